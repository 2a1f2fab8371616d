// Diagonals of matrices and of tensors, as TensorFlow's matrix_diag_op.cc,
// matrix_set_diag_op.cc and diag_op.cc define them:
//   MatrixDiag{,V2,V3}      a batch of diagonals -> matrices holding them
//   MatrixDiagPart{,V2,V3}  matrices -> a band of their diagonals
//   MatrixSetDiag{,V2,V3}   matrices with a band of diagonals replaced
//   Diag, DiagPart          rank k <-> rank 2k, t[i..., i...]
// A band is the diagonals k = (lower, upper), 0 the main one, positive
// above it; the V3 ops' `align` says on which side a diagonal shorter than
// the band's longest sits within its row of the packed form (V1 and V2
// align every diagonal left). Each op moves values only, so one template
// per element size would do; the kernels are typed to keep T's padding
// value.
#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The band k and the alignment of its diagonals.
struct Band {
  int64_t lower = 0;
  int64_t upper = 0;
  bool left_super = true;  // superdiagonals (k > 0) sit left in their row
  bool left_sub = true;    // subdiagonals (k < 0) likewise

  int64_t count() const { return upper - lower + 1; }
  // The longest diagonal of the band in a rows x cols matrix.
  int64_t MaxLength(int64_t rows, int64_t cols) const {
    return std::min(rows + std::min<int64_t>(upper, 0), cols - std::max<int64_t>(lower, 0));
  }
  // Diagonal d's length, and where it starts within a row of max_len.
  std::pair<int64_t, int64_t> LengthAndOffset(int64_t d, int64_t rows, int64_t cols,
                                              int64_t max_len) const {
    const int64_t len = std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
    const bool left = (d >= 0 && left_super) || (d <= 0 && left_sub);
    return {len, left ? 0 : max_len - len};
  }
  // Calls fn(p, m) for each element of the band in a rows x cols matrix: p
  // its index in the packed form (count() rows of max_len, the uppermost
  // diagonal first), m its index in the row-major matrix.
  template <typename Fn>
  void ForEachElement(int64_t rows, int64_t cols, int64_t max_len, const Fn& fn) const {
    int64_t packed = 0;
    for (int64_t d = upper; d >= lower; --d, packed += max_len) {
      auto [len, offset] = LengthAndOffset(d, rows, cols, max_len);
      const int64_t r0 = std::max<int64_t>(0, -d);
      const int64_t c0 = std::max<int64_t>(0, d);
      for (int64_t i = 0; i < len; ++i) fn(packed + offset + i, (r0 + i) * cols + c0 + i);
    }
  }
};

absl::Status ReadAlign(OpKernelConstruction* c, Band* band) {
  if (!c->def().attr().contains("align")) return absl::OkStatus();  // V1, V2: left
  std::string align;
  MG_RETURN_IF_ERROR(c->GetAttr("align", &align));
  band->left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  band->left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  return absl::OkStatus();
}

// k: a scalar, or a vector of one or two int32s.
absl::Status ReadK(const Tensor& k, Band* band) {
  if (k.dims() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must be a scalar or vector, received shape: ", k.shape().DebugString()));
  }
  if (k.NumElements() < 1 || k.NumElements() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "diag_index must have only one or two elements, received ", k.NumElements(),
        " elements."));
  }
  const int32_t* v = k.data<int32_t>();
  band->lower = v[0];
  band->upper = k.NumElements() == 2 ? v[1] : v[0];
  return absl::OkStatus();
}

// An int32 input read as one number (num_rows, num_cols).
absl::StatusOr<int64_t> ReadCount(const Tensor& t, const char* what) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, received shape: ", t.shape().DebugString()));
  }
  return *t.data<int32_t>();
}

template <typename T>
absl::StatusOr<T> ReadPadding(const Tensor& t) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padding_value must be a scalar, received shape: ", t.shape().DebugString()));
  }
  return *t.data<T>();
}

// The band must lie within a rows x cols matrix and lower <= upper.
absl::Status CheckBand(const Band& b, int64_t rows, int64_t cols) {
  for (auto [name, d] : {std::pair{"lower", b.lower}, std::pair{"upper", b.upper}}) {
    if (!((-rows < d && d < cols) || d == 0)) {
      return absl::InvalidArgumentError(absl::StrCat(name, "_diag_index is out of bound: ", d,
                                                     ". It must be between ", -rows, " and ",
                                                     cols));
    }
  }
  if (b.lower > b.upper) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower_diag_index must not be larger than upper_diag_index: ", b.lower,
                     " > ", b.upper));
  }
  return absl::OkStatus();
}

absl::Status CheckMatrices(const Tensor& t, const char* what) {
  if (t.dims() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be at least 2-dim, received shape: ", t.shape().DebugString()));
  }
  return absl::OkStatus();
}

// The packed band of `input`'s matrices: its batch dimensions, the band's
// diagonals when more than one, the longest's length.
absl::StatusOr<TensorShape> BandShape(const Tensor& input, const Band& b, int64_t max_len) {
  std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                            input.shape().dim_sizes().end() - 2);
  if (b.count() > 1) dims.push_back(b.count());
  dims.push_back(max_len);
  return TensorShape::Build(dims);
}

// MatrixDiag, MatrixDiagV2, MatrixDiagV3: inputs (diagonal[, k, num_rows,
// num_cols, padding_value]).
template <typename T>
class MatrixDiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return ReadAlign(c, &band_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& diagonal = ctx->input(0);
    Band b = band_;
    int64_t rows = -1, cols = -1;
    T padding = T();
    if (ctx->num_inputs() > 1) {
      MG_RETURN_IF_ERROR(ReadK(ctx->input(1), &b));
      MG_ASSIGN_OR_RETURN(rows, ReadCount(ctx->input(2), "num_rows"));
      MG_ASSIGN_OR_RETURN(cols, ReadCount(ctx->input(3), "num_cols"));
      MG_ASSIGN_OR_RETURN(padding, ReadPadding<T>(ctx->input(4)));
    }
    const int rank = diagonal.dims();
    if (rank < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "diagonal must be at least 1-dim, received shape: ", diagonal.shape().DebugString()));
    }
    if (b.lower > b.upper) {
      return absl::InvalidArgumentError(
          absl::StrCat("lower_diag_index must not be larger than upper_diag_index: ", b.lower,
                       " > ", b.upper));
    }
    if (b.count() > 1 && (rank < 2 || diagonal.dim_size(rank - 2) != b.count())) {
      return absl::InvalidArgumentError(
          "The number of diagonals provided in the input does not match the lower_diag_index "
          "and upper_diag_index range.");
    }
    const int64_t max_len = diagonal.dim_size(rank - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(b.upper, 0);
    const int64_t min_cols = max_len + std::max<int64_t>(b.lower, 0);
    if (rows != -1 && rows < min_rows) {
      return absl::InvalidArgumentError("The number of rows is too small.");
    }
    if (cols != -1 && cols < min_cols) {
      return absl::InvalidArgumentError("The number of columns is too small.");
    }
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    if (rows != min_rows && cols != min_cols) {
      return absl::InvalidArgumentError(
          "The number of rows or columns is not consistent with the specified d_lower, "
          "d_upper, and diagonal.");
    }
    std::vector<int64_t> dims(diagonal.shape().dim_sizes().begin(),
                              diagonal.shape().dim_sizes().end());
    if (b.count() == 1) {
      dims.back() = rows;
      dims.push_back(cols);
    } else {
      dims[rank - 2] = rows;
      dims[rank - 1] = cols;
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const int64_t batches = out->NumElements() / (rows * cols);
    const T* in = diagonal.data<T>();
    T* y = out->data<T>();
    const int64_t in_per_batch = b.count() * max_len;
    ctx->ParallelFor(batches, in_per_batch * sizeof(T), rows * cols * sizeof(T), rows * cols,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t n = begin; n < end; ++n) {
                         T* m = y + n * rows * cols;
                         std::fill(m, m + rows * cols, padding);
                         const T* packed = in + n * in_per_batch;
                         b.ForEachElement(rows, cols, max_len,
                                          [&](int64_t p, int64_t e) { m[e] = packed[p]; });
                       }
                     });
    return absl::OkStatus();
  }

 private:
  Band band_;
};

// MatrixDiagPart, MatrixDiagPartV2, MatrixDiagPartV3: inputs (input[, k,
// padding_value]).
template <typename T>
class MatrixDiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return ReadAlign(c, &band_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    Band b = band_;
    T padding = T();
    if (ctx->num_inputs() > 1) {
      MG_RETURN_IF_ERROR(ReadK(ctx->input(1), &b));
      MG_ASSIGN_OR_RETURN(padding, ReadPadding<T>(ctx->input(2)));
    }
    MG_RETURN_IF_ERROR(CheckMatrices(input, "input"));
    const int rank = input.dims();
    const int64_t rows = input.dim_size(rank - 2);
    const int64_t cols = input.dim_size(rank - 1);
    MG_RETURN_IF_ERROR(CheckBand(b, rows, cols));
    const int64_t max_len = b.MaxLength(rows, cols);
    MG_ASSIGN_OR_RETURN(TensorShape shape, BandShape(input, b, max_len));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const int64_t batches = out->NumElements() / (b.count() * max_len);
    const T* x = input.data<T>();
    T* y = out->data<T>();
    const int64_t out_per_batch = b.count() * max_len;
    ctx->ParallelFor(batches, out_per_batch * sizeof(T), out_per_batch * sizeof(T),
                     out_per_batch, [&](int64_t begin, int64_t end) {
                       for (int64_t n = begin; n < end; ++n) {
                         const T* m = x + n * rows * cols;
                         T* packed = y + n * out_per_batch;
                         std::fill(packed, packed + out_per_batch, padding);
                         b.ForEachElement(rows, cols, max_len,
                                          [&](int64_t p, int64_t e) { packed[p] = m[e]; });
                       }
                     });
    return absl::OkStatus();
  }

 private:
  Band band_;
};

// MatrixSetDiag, MatrixSetDiagV2, MatrixSetDiagV3: inputs (input,
// diagonal[, k]).
template <typename T>
class MatrixSetDiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return ReadAlign(c, &band_); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& diagonal = ctx->input(1);
    Band b = band_;
    if (ctx->num_inputs() > 2) MG_RETURN_IF_ERROR(ReadK(ctx->input(2), &b));
    MG_RETURN_IF_ERROR(CheckMatrices(input, "input"));
    if (diagonal.dims() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "diagonal must be at least 1-dim, received shape: ", diagonal.shape().DebugString()));
    }
    const int rank = input.dims();
    const int64_t rows = input.dim_size(rank - 2);
    const int64_t cols = input.dim_size(rank - 1);
    MG_RETURN_IF_ERROR(CheckBand(b, rows, cols));
    const int64_t max_len = b.MaxLength(rows, cols);
    MG_ASSIGN_OR_RETURN(TensorShape expected, BandShape(input, b, max_len));
    if (expected != diagonal.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Either first dimensions of diagonal don't match input.shape[:-2], or "
          "diagonal.shape[:-1] is not equal to the longests diagonal in range "
          "[lower_diag_index:upper_diag_index]. Input shape: ",
          input.shape().DebugString(), ", diagonal shape: ", diagonal.shape().DebugString(),
          ", expected diagonal shape: ", expected.DebugString()));
    }
    Tensor forwarded;
    if (!ctx->forward_input(0, &forwarded)) {
      MG_ASSIGN_OR_RETURN(forwarded, ctx->allocate_temp(input.dtype(), input.shape()));
      if (input.NumElements() > 0) {
        std::copy(input.data<T>(), input.data<T>() + input.NumElements(), forwarded.data<T>());
      }
    }
    if (forwarded.NumElements() > 0) {
      const int64_t per_batch = b.count() * max_len;
      const int64_t batches = forwarded.NumElements() / (rows * cols);
      const T* in = diagonal.data<T>();
      T* y = forwarded.data<T>();
      ctx->ParallelFor(batches, per_batch * sizeof(T), per_batch * sizeof(T), per_batch,
                       [&](int64_t begin, int64_t end) {
                         for (int64_t n = begin; n < end; ++n) {
                           T* m = y + n * rows * cols;
                           const T* packed = in + n * per_batch;
                           b.ForEachElement(rows, cols, max_len,
                                            [&](int64_t p, int64_t e) { m[e] = packed[p]; });
                         }
                       });
    }
    ctx->set_output(0, std::move(forwarded));
    return absl::OkStatus();
  }

 private:
  Band band_;
};

// Diag: rank k -> rank 2k with out[i..., i...] = in[i...], zeros elsewhere.
template <typename T>
class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& diagonal = ctx->input(0);
    if (diagonal.dims() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input must be at least rank 1, got ", diagonal.dims()));
    }
    std::vector<int64_t> dims(diagonal.shape().dim_sizes().begin(),
                              diagonal.shape().dim_sizes().end());
    const std::vector<int64_t> half = dims;
    dims.insert(dims.end(), half.begin(), half.end());
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t n = diagonal.NumElements();
    T* y = out->data<T>();
    const T* x = diagonal.data<T>();
    ctx->ParallelFor(n, sizeof(T), n * sizeof(T), n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        std::fill(y + i * n, y + (i + 1) * n, T());
        y[i * n + i] = x[i];
      }
    });
    return absl::OkStatus();
  }
};

// DiagPart: rank 2k of shape [d..., d...] -> rank k, out[i...] = in[i..., i...].
template <typename T>
class DiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    // A scalar is its own diagonal (TensorFlow returns it).
    if (rank % 2 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The rank of the tensor should be even and positive, got shape ",
                       input.shape().DebugString()));
    }
    const int half = rank / 2;
    std::vector<int64_t> dims;
    for (int i = 0; i < half; ++i) {
      if (input.dim_size(i) != input.dim_size(i + half)) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid shape ",
                                                       input.shape().DebugString(),
                                                       ": dimensions ", i, " and ", i + half,
                                                       " do not match."));
      }
      dims.push_back(input.dim_size(i));
    }
    Tensor* out;
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    const int64_t n = out->NumElements();
    const T* x = input.data<T>();
    T* y = out->data<T>();
    for (int64_t i = 0; i < n; ++i) y[i] = x[i * n + i];
    return absl::OkStatus();
  }
};

#define MG_DIAG_TYPES \
  float, double, int32_t, int64_t, bool, std::complex<float>, std::complex<double>

}  // namespace

void RegisterMatrixDiagKernels(KernelRegistry* r) {
  for (const char* op : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"}) {
    r->Register(op, TypedFactory<MatrixDiagOp, MG_DIAG_TYPES>());
  }
  for (const char* op : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    r->Register(op, TypedFactory<MatrixDiagPartOp, MG_DIAG_TYPES>());
  }
  for (const char* op : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    r->Register(op, TypedFactory<MatrixSetDiagOp, MG_DIAG_TYPES>());
  }
  r->Register("Diag", TypedFactory<DiagOp, float, double, int32_t, int64_t, std::complex<float>,
                                   std::complex<double>>());
  r->Register("DiagPart", TypedFactory<DiagPartOp, float, double, int32_t, int64_t,
                                       std::complex<float>, std::complex<double>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
