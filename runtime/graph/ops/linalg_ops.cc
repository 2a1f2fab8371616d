// Linear algebra on batches of matrices: inverses, determinants,
// decompositions and solves, with TensorFlow's shape functions (its
// linalg_ops.cc): the last two dimensions are the matrix, the ones before
// them the batch.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

constexpr char kLinalgTypes[] = "T: {double, float, half, complex64, complex128}";

// A batch of matrices: the batch dimensions, and the rows and columns (-1
// where unknown); `known` is false when the rank is.
struct Matrices {
  bool known = false;
  std::vector<int64_t> batch;
  int64_t rows = -1, cols = -1;

  PartialShape With(std::vector<int64_t> last) const {
    if (!known) return PartialShape();
    std::vector<int64_t> dims = batch;
    dims.insert(dims.end(), last.begin(), last.end());
    return PartialShape(dims);
  }
};

// Input `i` as a batch of matrices: rank 2 or more.
absl::StatusOr<Matrices> MatricesOf(InferenceContext* c, int i) {
  const PartialShape& s = c->input(i);
  Matrices m;
  if (!s.rank_known()) return m;
  if (s.rank() < 2) {
    return c->Error(absl::StrCat("Shape must be at least rank 2 but is rank ", s.rank()));
  }
  m.known = true;
  m.batch.assign(s.dims().begin(), s.dims().end() - 2);
  m.rows = s.dim(s.rank() - 2);
  m.cols = s.dim(s.rank() - 1);
  return m;
}

// The one size of two that must be equal (-1 when neither is known).
absl::StatusOr<int64_t> MergeDim(InferenceContext* c, int64_t a, int64_t b) {
  if (a >= 0 && b >= 0 && a != b) {
    return c->Error(absl::StrCat("Dimensions must be equal, but are ", a, " and ", b));
  }
  return a >= 0 ? a : b;
}

// Input `i` as a batch of square matrices; `n` gets their size.
absl::StatusOr<Matrices> SquareMatricesOf(InferenceContext* c, int i, int64_t* n) {
  MG_ASSIGN_OR_RETURN(Matrices m, MatricesOf(c, i));
  MG_ASSIGN_OR_RETURN(*n, MergeDim(c, m.rows, m.cols));
  return m;
}

int64_t MinDim(int64_t a, int64_t b) { return a >= 0 && b >= 0 ? std::min(a, b) : -1; }

// Square matrices in, the same shape out (MatrixInverse, Cholesky, ...).
absl::Status SquareUnchanged(InferenceContext* c) {
  int64_t n = -1;
  MG_ASSIGN_OR_RETURN(Matrices m, SquareMatricesOf(c, 0, &n));
  c->set_output(0, m.With({n, n}));
  return absl::OkStatus();
}

// Square matrices in, one value per matrix out on every output.
absl::Status PerSquareMatrix(InferenceContext* c) {
  int64_t n = -1;
  MG_ASSIGN_OR_RETURN(Matrices m, SquareMatricesOf(c, 0, &n));
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, m.With({}));
  return absl::OkStatus();
}

absl::Status QrShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(Matrices m, MatricesOf(c, 0));
  MG_ASSIGN_OR_RETURN(bool full, c->GetAttr<bool>("full_matrices"));
  const int64_t p = full ? m.rows : MinDim(m.rows, m.cols);
  c->set_output(0, m.With({m.rows, p}));
  c->set_output(1, m.With({p, m.cols}));
  return absl::OkStatus();
}

absl::Status SvdShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(Matrices m, MatricesOf(c, 0));
  MG_ASSIGN_OR_RETURN(bool compute_uv, c->GetAttr<bool>("compute_uv"));
  MG_ASSIGN_OR_RETURN(bool full, c->GetAttr<bool>("full_matrices"));
  const int64_t p = MinDim(m.rows, m.cols);
  c->set_output(0, m.With({p}));
  if (!compute_uv) {  // u and v are empty vectors
    c->set_output(1, PartialShape({0}));
    c->set_output(2, PartialShape({0}));
  } else {
    c->set_output(1, m.With({m.rows, full ? m.rows : p}));
    c->set_output(2, m.With({m.cols, full ? m.cols : p}));
  }
  return absl::OkStatus();
}

absl::Status SelfAdjointEigShape(InferenceContext* c) {
  int64_t n = -1;
  MG_ASSIGN_OR_RETURN(Matrices m, SquareMatricesOf(c, 0, &n));
  MG_ASSIGN_OR_RETURN(bool compute_v, c->GetAttr<bool>("compute_v"));
  c->set_output(0, m.With({n}));
  c->set_output(1, compute_v ? m.With({n, n}) : PartialShape({0}));
  return absl::OkStatus();
}

absl::Status LuShape(InferenceContext* c) {
  int64_t n = -1;
  MG_ASSIGN_OR_RETURN(Matrices m, SquareMatricesOf(c, 0, &n));
  c->set_output(0, m.With({n, n}));
  c->set_output(1, m.With({n}));
  return absl::OkStatus();
}

// matrix [..., M, M] and rhs [..., M, K] give [..., M, K]; the batches
// broadcast (MatrixTriangularSolve) or must be equal (MatrixSolve).
absl::Status SolveShape(InferenceContext* c, bool broadcast) {
  int64_t n = -1;
  MG_ASSIGN_OR_RETURN(Matrices matrix, SquareMatricesOf(c, 0, &n));
  MG_ASSIGN_OR_RETURN(Matrices rhs, MatricesOf(c, 1));
  MG_ASSIGN_OR_RETURN(n, MergeDim(c, n, rhs.rows));
  if (!matrix.known || !rhs.known) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  Matrices out;
  out.known = true;
  MG_ASSIGN_OR_RETURN(PartialShape batch,
                      broadcast ? PartialShape::Broadcast(PartialShape(matrix.batch),
                                                          PartialShape(rhs.batch))
                                : PartialShape::Merge(PartialShape(matrix.batch),
                                                      PartialShape(rhs.batch)));
  out.batch = batch.dims();
  c->set_output(0, out.With({n, rhs.cols}));
  return absl::OkStatus();
}

OpDefBuilder OneMatrixOp(const char* name, const char* types = kLinalgTypes) {
  OpDefBuilder b(name);
  b.Input("input: T").Attr(types);
  return b;
}

}  // namespace

void RegisterLinalgOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OneMatrixOp("MatrixInverse")
                        .Output("output: T")
                        .Attr("adjoint: bool = false")
                        .SetShapeFn(SquareUnchanged));
  for (const char* name : {"Cholesky", "MatrixSquareRoot"}) {
    MG_REGISTER_OP(r, OneMatrixOp(name).Output("output: T").SetShapeFn(SquareUnchanged));
  }
  MG_REGISTER_OP(r, OneMatrixOp("MatrixLogarithm", "T: {complex64, complex128}")
                        .Output("output: T")
                        .SetShapeFn(SquareUnchanged));
  MG_REGISTER_OP(r, OneMatrixOp("MatrixDeterminant").Output("output: T").SetShapeFn(PerSquareMatrix));
  MG_REGISTER_OP(r, OneMatrixOp("LogMatrixDeterminant")
                        .Output("sign: T")
                        .Output("log_abs_determinant: T")
                        .SetShapeFn(PerSquareMatrix));
  MG_REGISTER_OP(r, OneMatrixOp("Qr")
                        .Output("q: T")
                        .Output("r: T")
                        .Attr("full_matrices: bool = false")
                        .SetShapeFn(QrShape));
  MG_REGISTER_OP(r, OneMatrixOp("Svd")
                        .Output("s: T")
                        .Output("u: T")
                        .Output("v: T")
                        .Attr("compute_uv: bool = true")
                        .Attr("full_matrices: bool = false")
                        .SetShapeFn(SvdShape));
  MG_REGISTER_OP(r, OneMatrixOp("SelfAdjointEigV2")
                        .Output("e: T")
                        .Output("v: T")
                        .Attr("compute_v: bool = true")
                        .SetShapeFn(SelfAdjointEigShape));
  MG_REGISTER_OP(r, OneMatrixOp("Lu")
                        .Output("lu: T")
                        .Output("p: output_idx_type")
                        .Attr("output_idx_type: {int32, int64} = int32")
                        .SetShapeFn(LuShape));
  MG_REGISTER_OP(r, OpDefBuilder("MatrixTriangularSolve")
                        .Input("matrix: T")
                        .Input("rhs: T")
                        .Output("output: T")
                        .Attr("lower: bool = true")
                        .Attr("adjoint: bool = false")
                        .Attr("T: {bfloat16, double, float, half, complex64, complex128}")
                        .SetShapeFn([](InferenceContext* c) { return SolveShape(c, true); }));
  MG_REGISTER_OP(r, OpDefBuilder("MatrixSolve")
                        .Input("matrix: T")
                        .Input("rhs: T")
                        .Output("output: T")
                        .Attr("adjoint: bool = false")
                        .Attr(kLinalgTypes)
                        .SetShapeFn([](InferenceContext* c) { return SolveShape(c, false); }));
}

}  // namespace ops_internal
}  // namespace minigraph
