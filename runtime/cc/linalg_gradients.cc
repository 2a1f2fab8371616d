// Gradients of the linear algebra ops, as TensorFlow's linalg_grad.py and
// the matrix ops of array_grad.py define them: bands and diagonals,
// inverses, determinants, solves, the Cholesky factor and Einsum.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using gradients_internal::Conj;
using gradients_internal::CopyAttrs;

using Grads = std::vector<Output>;

// A zero of `dtype` (float or double: the dtypes gradients flow in), the
// padding of a gradient's diagonals.
Output Zero(const Scope& s, DataType dtype) {
  Tensor t(dtype, TensorShape());
  if (dtype == DT_DOUBLE) {
    *t.data<double>() = 0;
  } else {
    *t.data<float>() = 0;
  }
  return ops::Const(s, t);
}

// The `align` attr of a V3 op (V1 and V2 ops have none: both sides left).
std::map<std::string, AttrValue> Align(const Scope& s, const Operation& op) {
  const NodeDef& n = s.GetNodeDef(op);
  auto it = n.attr().find("align");
  if (it == n.attr().end()) return {};
  return {{"align", it->second}};
}

// The op of the same version as `op_type` (its V2/V3 suffix) for `base`.
std::string SameVersion(const std::string& op_type, const char* base) {
  for (const char* v : {"V2", "V3"}) {
    if (absl::EndsWith(op_type, v)) return absl::StrCat(base, v);
  }
  return base;
}

// A boolean attr of `op` (false when unset).
bool BoolAttr(const Scope& s, const Operation& op, const char* name) {
  bool v = false;
  return GetNodeAttr(s.GetNodeDef(op), name, &v).ok() && v;
}

// An op of one output whose input arguments are single tensors.
Output AddOp1(const Scope& s, const char* type, const std::vector<Output>& inputs,
              const std::map<std::string, AttrValue>& attrs = {}) {
  std::vector<std::vector<Output>> args;
  for (const Output& in : inputs) args.push_back({in});
  return s.AddOp(type, args, attrs).output(0);
}

AttrValue Bool(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}

// x [..., m, n] times y, adjoining either (a BatchMatMulV2: batches
// broadcast).
Output MatMul(const Scope& s, Output x, Output y, bool adj_x = false, bool adj_y = false) {
  return ops::BatchMatMulV2(s, x, y, adj_x, adj_y);
}

// The gradient `g` of a batch of matrices broadcast from `x`'s: summed over
// the batch dimensions x was broadcast along, in x's shape.
Output Unbroadcast(const Scope& s, Output g, Output x) {
  auto batch = [&](Output t) {
    Output shape = ops::Shape(s, t);
    return ops::Slice(s, shape, ops::Const<int32_t>(s, {0}),
                      ops::Sub(s, ops::Size(s, shape), ops::Const<int32_t>(s, {2})));
  };
  ops::BroadcastGradientArgsOutputs axes = ops::BroadcastGradientArgs(s, batch(x), batch(g));
  return ops::Reshape(s, ops::Sum(s, g, axes.r0), ops::Shape(s, x));
}

// t [...] as [..., 1, 1], to scale each matrix of a batch.
Output PerMatrix(const Scope& s, Output t) {
  return ops::ExpandDims(s, ops::ExpandDims(s, t, ops::Const<int32_t>(s, -1)),
                         ops::Const<int32_t>(s, -1));
}

// The adjoint (for real dtypes, the transpose) of each matrix of a batch:
// the permutation [0, ..., r-3, r-1, r-2] of x's rank r.
Output Adjoint(const Scope& s, Output x) {
  Output r = ops::Rank(s, x);
  Output one = ops::Const<int32_t>(s, 1), two = ops::Const<int32_t>(s, 2);
  Output last = ops::Sub(s, r, one), before = ops::Sub(s, r, two);
  Output perm = s.AddOp("ConcatV2", {{ops::Range(s, ops::Const<int32_t>(s, 0), before, one),
                                      ops::Pack(s, {last, before})},
                                     {ops::Const<int32_t>(s, 0)}})
                    .output(0);
  return ops::Transpose(s, x, perm);
}

// The columns [begin, begin + size) (size -1: the rest) of each matrix of
// t, a batch of rank `rank`.
Output Columns(const Scope& s, Output t, int rank, int64_t begin, int64_t size) {
  Tensor b(DT_INT64, TensorShape({rank})), z(DT_INT64, TensorShape({rank}));
  for (int i = 0; i < rank; ++i) {
    b.data<int64_t>()[i] = i == rank - 1 ? begin : 0;
    z.data<int64_t>()[i] = i == rank - 1 ? size : -1;
  }
  return ops::Slice(s, t, ops::Const(s, b), ops::Const(s, z));
}

// x * 1 / (x^2 + 1e-20): TensorFlow's _SafeReciprocal, 0 at 0.
Output SafeReciprocal(const Scope& s, Output x) {
  Output epsilon = ops::Cast(s, ops::Const<double>(s, 1e-20), x.dtype());
  return ops::Mul(s, x, ops::Reciprocal(s, ops::Add(s, ops::Mul(s, x, x), epsilon)));
}

// The identity matrices of a batch like x [..., n, n].
Output Eye(const Scope& s, Output x) {
  return AddOp1(s, "MatrixDiag", {ops::OnesLike(s, AddOp1(s, "MatrixDiagPart", {x}))});
}

// t shifted by one place along its last axis (`rows`: the next to last):
// forward, t[i] = t[i + 1] with a zero last; else t[i] = t[i - 1] with a
// zero first. The shifted diagonals of a tridiagonal gradient.
Output Shifted(const Scope& s, Output t, bool rows, bool forward) {
  auto slice = [&](int32_t begin, int32_t end, bool to_end, bool from_start) {
    ops::StridedSliceOptions o;
    o.ellipsis_mask = 1;
    if (to_end) o.end_mask |= 2;
    if (from_start) o.begin_mask |= 2;
    if (!rows) {
      return ops::StridedSlice(s, t, ops::Const<int32_t>(s, {0, begin}),
                               ops::Const<int32_t>(s, {0, end}), ops::Const<int32_t>(s, {1, 1}),
                               o);
    }
    o.begin_mask |= 4;  // and every column
    o.end_mask |= 4;
    return ops::StridedSlice(s, t, ops::Const<int32_t>(s, {0, begin, 0}),
                             ops::Const<int32_t>(s, {0, end, 0}),
                             ops::Const<int32_t>(s, {1, 1, 1}), o);
  };
  Output zero = ops::ZerosLike(s, slice(0, 1, false, false));
  Output kept = forward ? slice(1, 0, true, false) : slice(0, -1, false, true);
  return ops::ConcatV2(s, forward ? Grads{kept, zero} : Grads{zero, kept},
                       ops::Const<int32_t>(s, rows ? -2 : -1));
}

// The sum over the last axis of x * y.
Output SumOfProducts(const Scope& s, Output x, Output y) {
  return ops::Sum(s, ops::Mul(s, x, y), ops::Const<int32_t>(s, -1));
}

// Einsum's gradient (TensorFlow's _EinsumGrad): with only transposes,
// diagonals and contractions, the gradient of an operand is an einsum of
// the output's gradient (and the other operand) back to the operand's
// subscripts; labels summed away (reduce labels) are put back first, the
// gradient broadcast along them.
class EinsumGrad {
 public:
  explicit EinsumGrad(const Scope& s) : s_(s) {}

  Output Einsum(const std::vector<Output>& inputs, const std::string& equation) const {
    AttrValue eq;
    eq.set_s(equation);
    return s_.AddOp("Einsum", {inputs}, {{"equation", eq}}).output(0);
  }

  // The labels of `sub` that are in none of `others` (nor an ellipsis).
  static std::string Missing(const std::string& sub, const std::string& others) {
    std::set<char> missing;
    for (char c : sub) {
      if (c != '.' && others.find(c) == std::string::npos) missing.insert(c);
    }
    return std::string(missing.begin(), missing.end());
  }

  static std::string Without(const std::string& sub, const std::string& labels) {
    std::string out;
    for (char c : sub) {
      if (labels.find(c) == std::string::npos) out += c;
    }
    return out;
  }

  // The axis of `label` in `sub`: from the front before an ellipsis, from
  // the back (negative) after it.
  static int Axis(const std::string& sub, char label) {
    const size_t ellipsis = sub.find("...");
    const size_t at = sub.find(label);
    if (ellipsis == std::string::npos || at < ellipsis) return static_cast<int>(at);
    return static_cast<int>(at) - static_cast<int>(sub.size());
  }

  // The gradient of x for "in_subs->out_subs" where the labels `reduced`
  // of x are summed away, given the output's gradient `g`.
  Output Reduced(Output g, const std::string& out_subs, const std::string& in_subs,
                 Output in_shape, const std::string& reduced) const {
    auto distinct = [](const std::string& t) { return std::set<char>(t.begin(), t.end()).size(); };
    const bool repeated = distinct(in_subs) + distinct(out_subs) < in_subs.size() + out_subs.size();
    if (!repeated && Without(in_subs, reduced) == out_subs) {
      // A plain sum over axes: g reshaped with 1s there, broadcast back.
      std::vector<int32_t> keep(in_subs.size(), 1);
      for (char c : reduced) keep[Axis(in_subs, c)] = 0;
      Tensor k(DT_INT32, TensorShape({static_cast<int64_t>(keep.size())}));
      std::copy(keep.begin(), keep.end(), k.data<int32_t>());
      Output keep_t = ops::Const(s_, k);
      Output shape = ops::Add(s_, ops::Mul(s_, in_shape, keep_t),
                              ops::Sub(s_, ops::Const<int32_t>(s_, 1), keep_t));
      return ops::BroadcastTo(s_, ops::Reshape(s_, g, shape), in_shape);
    }
    // The reduced labels put in front of the output's, g broadcast along
    // them, then the unary einsum back to x's subscripts.
    std::vector<Output> dims;
    for (char c : reduced) {
      const int axis = Axis(in_subs, c);
      ops::StridedSliceOptions one;
      one.shrink_axis_mask = 1;
      dims.push_back(ops::StridedSlice(s_, in_shape, ops::Const<int32_t>(s_, {axis}),
                                       ops::Const<int32_t>(s_, {axis + 1}),
                                       ops::Const<int32_t>(s_, {1}), one));
    }
    Output zero = ops::Const<int32_t>(s_, 0);
    Output g_shape = ops::Shape(s_, g);
    Output full = ops::ConcatV2(s_, {ops::Pack(s_, dims), g_shape}, zero);
    Output ones = ops::Const<int32_t>(s_, {1}, TensorShape({static_cast<int64_t>(dims.size())}));
    Output with_ones = ops::ConcatV2(s_, {ones, g_shape}, zero);
    Output spread = ops::BroadcastTo(s_, ops::Reshape(s_, g, with_ones), full);
    return Einsum({spread}, reduced + out_subs + "->" + in_subs);
  }

  // The gradient of operand x of a binary einsum (before unbroadcasting).
  Output Wrt(Output g, Output other, Output x_shape, const std::string& x_subs,
             const std::string& other_subs, const std::string& out_subs) const {
    const std::string reduced = Missing(x_subs, out_subs + other_subs);
    const std::string left = Without(x_subs, reduced);
    Output grad = Einsum({g, other}, out_subs + "," + other_subs + "->" + left);
    if (reduced.empty()) return grad;
    return Reduced(grad, left, x_subs, x_shape, reduced);
  }

  // `grad` of x (subscripts `sub`) summed over the broadcast axes its
  // ellipsis was broadcast along against `other`'s.
  Output Unbroadcast(Output grad, Output x_shape, const std::string& sub, Output other_shape,
                     const std::string& other_sub) const {
    auto ellipsis_part = [&](Output shape, const std::string& t) {
      const int start = static_cast<int>(t.find("..."));
      const int after = static_cast<int>(t.size()) - start - 3;
      Output size = ops::Sub(s_, ops::Size(s_, shape), ops::Const<int32_t>(s_, start + after));
      return ops::Slice(s_, shape, ops::Const<int32_t>(s_, {start}), ops::Reshape(
          s_, size, ops::Const<int32_t>(s_, {1})));
    };
    ops::BroadcastGradientArgsOutputs r = ops::BroadcastGradientArgs(
        s_, ellipsis_part(x_shape, sub), ellipsis_part(other_shape, other_sub));
    const int start = static_cast<int>(sub.find("..."));
    Output axes = ops::Add(s_, r.r0, ops::Const<int32_t>(s_, start));
    return ops::Reshape(s_, ops::Sum(s_, grad, axes), x_shape);
  }

 private:
  const Scope& s_;
};

}  // namespace

void gradients_internal::RegisterLinalgGradients(GradientRegistry* r) {
  // The band of the gradient; the bounds have none.
  r->Register("MatrixBandPart", [](const Scope& s, const Operation& op, const Grads& dy,
                                   Grads* dx) {
    const Grads in = s.GetInputs(op);
    *dx = {s.AddOp("MatrixBandPart", {{dy[0]}, {in[1]}, {in[2]}}).output(0), Output(), Output()};
    return s.status();
  });
  // diag -> matrix: the same band of the gradient.
  for (const char* op_type : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string part = SameVersion(s.GetNodeDef(op).op(), "MatrixDiagPart");
      if (in.size() == 1) {
        *dx = {s.AddOp(part, {{dy[0]}}).output(0)};
      } else {
        *dx = {s.AddOp(part, {{dy[0]}, {in[1]}, {Zero(s, dy[0].dtype())}}, Align(s, op)).output(0),
               Output(), Output(), Output(), Output()};
      }
      return s.status();
    });
  }
  // matrix -> band: zeros with the band set to the gradient.
  for (const char* op_type : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string set = SameVersion(s.GetNodeDef(op).op(), "MatrixSetDiag");
      Output zeros = ops::ZerosLike(s, in[0]);
      if (in.size() == 1) {
        *dx = {s.AddOp(set, {{zeros}, {dy[0]}}).output(0)};
      } else {
        *dx = {s.AddOp(set, {{zeros}, {dy[0]}, {in[1]}}, Align(s, op)).output(0), Output(),
               Output()};
      }
      return s.status();
    });
  }
  // input with a band replaced: the input's gradient outside the band, the
  // diagonal's the band of the gradient.
  for (const char* op_type : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    r->Register(op_type, [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      const std::string& type = s.GetNodeDef(op).op();
      const std::string part = SameVersion(type, "MatrixDiagPart");
      Output zeros = ops::ZerosLike(s, in[1]);
      if (in.size() == 2) {
        *dx = {s.AddOp(type, {{dy[0]}, {zeros}}).output(0), s.AddOp(part, {{dy[0]}}).output(0)};
      } else {
        const auto align = Align(s, op);
        *dx = {s.AddOp(type, {{dy[0]}, {zeros}, {in[2]}}, align).output(0),
               s.AddOp(part, {{dy[0]}, {in[2]}, {Zero(s, dy[0].dtype())}}, align).output(0),
               Output()};
      }
      return s.status();
    });
  }
  // d(A^-1) = -A^-H dY A^-H (adjoint: A^-1 of A^H).
  r->Register("MatrixInverse", [](const Scope& s, const Operation& op, const Grads& dy,
                                  Grads* dx) {
    const bool adjoint = BoolAttr(s, op, "adjoint");
    Output inv = op.output(0);
    *dx = {ops::Neg(s, MatMul(s, inv, MatMul(s, dy[0], inv, adjoint, !adjoint), !adjoint))};
    return s.status();
  });
  // d det(A) = g det(A) A^-H.
  r->Register("MatrixDeterminant", [](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    Output a = s.GetInputs(op)[0];
    Output inv = AddOp1(s, "MatrixInverse", {a}, {{"adjoint", Bool(true)}});
    *dx = {ops::Mul(s, PerMatrix(s, ops::Mul(s, dy[0], op.output(0))), inv)};
    return s.status();
  });
  // d log|det(A)| = g A^-H; the sign has no gradient.
  r->Register("LogMatrixDeterminant", [](const Scope& s, const Operation& op, const Grads& dy,
                                         Grads* dx) {
    Output a = s.GetInputs(op)[0];
    Output inv = AddOp1(s, "MatrixInverse", {a}, {{"adjoint", Bool(true)}});
    *dx = {ops::Mul(s, PerMatrix(s, dy[1]), inv)};
    return s.status();
  });
  // TensorFlow's _MatrixSquareRootGrad: with R = sqrtm(A), dA = R dR + dR R,
  // a Sylvester equation, solved as one linear system over vec(dR):
  // (I kron R^T + R kron I) vec(dR^T) = vec(g^T).
  r->Register("MatrixSquareRoot", [](const Scope& s, const Operation& op, const Grads& dy,
                                     Grads* dx) {
    Output root = op.output(0);
    Output shape = ops::Shape(s, root);
    Output zero = ops::Const<int32_t>(s, 0), one = ops::Const<int32_t>(s, {1});
    Output batch = ops::Slice(s, shape, ops::Const<int32_t>(s, {0}),
                              ops::Sub(s, ops::Size(s, shape), ops::Const<int32_t>(s, {2})));
    Output n = ops::Slice(s, shape, ops::Sub(s, ops::Size(s, shape), one), one);
    Output nn = ops::Mul(s, n, n);
    // The Kronecker product of two batches of n x n matrices.
    auto kron = [&](Output a, Output b) {
      Output ar = ops::Reshape(s, a, ops::ConcatV2(s, {batch, n, one, n, one}, zero));
      Output br = ops::Reshape(s, b, ops::ConcatV2(s, {batch, one, n, one, n}, zero));
      return ops::Reshape(s, ops::Mul(s, ar, br), ops::ConcatV2(s, {batch, nn, nn}, zero));
    };
    Output eye = Eye(s, root);
    Output system = ops::Add(s, kron(eye, Adjoint(s, root)), kron(root, eye));
    Output vec = ops::Reshape(s, Adjoint(s, dy[0]), ops::ConcatV2(s, {batch, nn, one}, zero));
    Output solved = AddOp1(s, "MatrixSolve", {system, vec});
    *dx = {Adjoint(s, ops::Reshape(s, solved, shape))};
    return s.status();
  });
  // A X = B: dB = A^-H dX, dA = -dB X^H (adjoint: -X dB^H).
  r->Register("MatrixSolve", [](const Scope& s, const Operation& op, const Grads& dy,
                                Grads* dx) {
    const bool adjoint = BoolAttr(s, op, "adjoint");
    Output a = s.GetInputs(op)[0];
    Output x = op.output(0);
    Output db = AddOp1(s, "MatrixSolve", {a, dy[0]}, {{"adjoint", Bool(!adjoint)}});
    Output da = adjoint ? MatMul(s, x, db, false, true) : MatMul(s, db, x, false, true);
    *dx = {ops::Neg(s, da), db};
    return s.status();
  });
  // As MatrixSolve's, dA kept to A's triangle and both summed over the
  // batch dimensions they were broadcast along.
  r->Register("MatrixTriangularSolve", [](const Scope& s, const Operation& op, const Grads& dy,
                                          Grads* dx) {
    const bool adjoint = BoolAttr(s, op, "adjoint");
    const bool lower = BoolAttr(s, op, "lower");
    const Grads in = s.GetInputs(op);
    Output x = op.output(0);
    Output db = AddOp1(s, "MatrixTriangularSolve", {in[0], dy[0]},
                       {{"lower", Bool(lower)}, {"adjoint", Bool(!adjoint)}});
    Output da =
        ops::Neg(s, adjoint ? MatMul(s, x, db, false, true) : MatMul(s, db, x, false, true));
    da = AddOp1(s, "MatrixBandPart", {da, ops::Const<int64_t>(s, lower ? -1 : 0),
                                      ops::Const<int64_t>(s, lower ? 0 : -1)});
    *dx = {Unbroadcast(s, da, in[0]), Unbroadcast(s, db, in[1])};
    return s.status();
  });
  // TensorFlow's _CholeskyGrad (Murray, "Differentiation of the Cholesky
  // decomposition", 2016): with L^-1 = solve(L, I) and
  // M = Phi(L^H dL) (the lower triangle, its diagonal halved),
  // dA = (L^-H M L^-1 + (L^-H M L^-1)^H) / 2.
  // TensorFlow's _SelfAdjointEigV2Grad: with f(i, j) = 1 / (e_j - e_i) off
  // the diagonal (a safe reciprocal: 0 where eigenvalues coincide), da = v
  // (diag(de) + f o v^H dv) v^H, symmetrized onto the lower triangle that
  // the op reads. Without eigenvectors, v comes from the op run again.
  r->Register("SelfAdjointEigV2", [](const Scope& s, const Operation& op, const Grads& dy,
                                     Grads* dx) {
    Output e = op.output(0);
    Output middle = AddOp1(s, "MatrixDiag", {dy[0]});
    Output v;
    if (BoolAttr(s, op, "compute_v")) {
      v = op.output(1);
      Output diff = ops::Sub(s, ops::ExpandDims(s, e, ops::Const<int32_t>(s, -2)),
                             ops::ExpandDims(s, e, ops::Const<int32_t>(s, -1)));
      Output f = AddOp1(s, "MatrixSetDiag", {SafeReciprocal(s, diff), ops::ZerosLike(s, e)});
      middle = ops::Add(s, middle, ops::Mul(s, ops::Cast(s, f, v.dtype()),
                                            MatMul(s, v, dy[1], true, false)));
    } else {
      v = s.AddOp("SelfAdjointEigV2", {{s.GetInputs(op)[0]}}, {{"compute_v", Bool(true)}})
              .output(1);
    }
    Output da = MatMul(s, v, MatMul(s, ops::Cast(s, middle, v.dtype()), v, false, true));
    da = AddOp1(s, "MatrixBandPart", {ops::Add(s, da, Adjoint(s, da)),
                                      ops::Const<int64_t>(s, -1), ops::Const<int64_t>(s, 0)});
    Output half = ops::Cast(s, ops::Const<float>(s, 0.5f), da.dtype());
    *dx = {AddOp1(s, "MatrixSetDiag", {da, ops::Mul(s, half, AddOp1(s, "MatrixDiagPart", {da}))})};
    return s.status();
  });
  // TensorFlow's _QrGrad (arXiv:2009.10071), for real matrices: for m >= n
  // (thin), with the lower triangle of the antisymmetric parts of q^T dq and
  // r dr^T, da = q (dr + tril r^-T) + (dq - q q^T dq) r^-T; a wide matrix is
  // split as [x, y] and r as [u, v] and reduced to the square case. Not for
  // a tall matrix with full_matrices (as TensorFlow's).
  r->Register("Qr", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output q = op.output(0), r = op.output(1);
    Output a = s.GetInputs(op)[0];
    const PartialShape& as = a.shape();
    if (!as.rank_known() || as.rank() < 2 || as.dims()[as.rank() - 2] < 0 ||
        as.dims()[as.rank() - 1] < 0) {
      return absl::UnimplementedError("the gradient of Qr needs its matrices' static shape");
    }
    const int rank = as.rank();
    const int64_t m = as.dims()[rank - 2], n = as.dims()[rank - 1];
    if (m > n && BoolAttr(s, op, "full_matrices")) {
      return absl::UnimplementedError(
          "the gradient of Qr of a matrix of more rows than columns with full_matrices");
    }
    auto solve = [&](Output x, Output u) {  // x u^-T, u upper triangular
      return Adjoint(s, AddOp1(s, "MatrixTriangularSolve", {u, Adjoint(s, x)},
                               {{"lower", Bool(false)}, {"adjoint", Bool(false)}}));
    };
    auto square = [&](Output u, Output dq, Output du) {
      Output qdq = MatMul(s, q, dq, true, false);
      Output rdr = MatMul(s, u, du, false, true);
      Output tril = AddOp1(s, "MatrixBandPart",
                           {ops::Add(s, ops::Sub(s, qdq, Adjoint(s, qdq)),
                                     ops::Sub(s, rdr, Adjoint(s, rdr))),
                            ops::Const<int64_t>(s, -1), ops::Const<int64_t>(s, 0)});
      return ops::Add(s, MatMul(s, q, ops::Add(s, du, solve(tril, u))),
                      solve(ops::Sub(s, dq, MatMul(s, q, qdq)), u));
    };
    if (m >= n) {
      *dx = {square(r, dy[0], dy[1])};
      return s.status();
    }
    auto columns = [&](Output t, int64_t begin, int64_t size) {
      return Columns(s, t, rank, begin, size);
    };
    Output y = columns(a, m, -1), u = columns(r, 0, m);
    Output dv = columns(dy[1], m, -1), du = columns(dy[1], 0, m);
    Output dxx = square(u, ops::Add(s, dy[0], MatMul(s, y, dv, false, true)), du);
    *dx = {ops::ConcatV2(s, {dxx, MatMul(s, q, dv)}, ops::Const<int32_t>(s, -1))};
    return s.status();
  });
  // TensorFlow's _SvdGrad for real matrices (Giles; Townsend for thin
  // ones): a tall matrix differentiated as its transpose; with f(i, j) =
  // 1 / (s_j^2 - s_i^2) off the diagonal, da = u (diag(ds) + (f o u^T du +
  // its transpose) s + s (f o v1^T dv1 + its transpose)) v1^T, plus for a
  // wide matrix u s^-1 (dv1^T (1 - v1 v1^T) - (v1^T dv2) v2^T). Without u
  // and v, they come from the op run again. Not for full_matrices of shapes
  // that differ by more than 1 (as TensorFlow's).
  r->Register("Svd", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output a = s.GetInputs(op)[0];
    Output ds = AddOp1(s, "MatrixDiag", {ops::Cast(s, dy[0], a.dtype())});
    if (!BoolAttr(s, op, "compute_uv")) {
      Operation again = s.AddOp("Svd", {{a}}, {{"compute_uv", Bool(true)},
                                                {"full_matrices", Bool(false)}});
      *dx = {MatMul(s, again.output(1), MatMul(s, ds, again.output(2), false, true))};
      return s.status();
    }
    const PartialShape& as = a.shape();
    if (!as.rank_known() || as.rank() < 2 || as.dims()[as.rank() - 2] < 0 ||
        as.dims()[as.rank() - 1] < 0) {
      return absl::UnimplementedError("the gradient of Svd needs its matrices' static shape");
    }
    const int rank = as.rank();
    int64_t m = as.dims()[rank - 2], n = as.dims()[rank - 1];
    Output sv = op.output(0), u = op.output(1), v = op.output(2);
    Output du = dy[1], dv = dy[2];
    const bool transposed = m > n;
    if (transposed) {
      std::swap(m, n);
      std::swap(u, v);
      std::swap(du, dv);
    }
    const bool full = BoolAttr(s, op, "full_matrices");
    if (full && n - m > 1) {
      return absl::UnimplementedError(absl::StrCat(
          "the gradient of Svd with full_matrices of a ", m, "x", n, " matrix (|m - n| > 1)"));
    }
    Output s_mat = AddOp1(s, "MatrixDiag", {sv});
    Output s2 = ops::Square(s, sv);
    Output gaps = ops::Sub(s, ops::ExpandDims(s, s2, ops::Const<int32_t>(s, -2)),
                           ops::ExpandDims(s, s2, ops::Const<int32_t>(s, -1)));
    Output f = AddOp1(s, "MatrixSetDiag", {SafeReciprocal(s, gaps), ops::ZerosLike(s, sv)});
    Output v1 = Columns(s, v, rank, 0, m), dv1 = Columns(s, dv, rank, 0, m);
    Output f_u = ops::Mul(s, f, MatMul(s, u, du, true, false));
    Output f_v = ops::Mul(s, f, MatMul(s, v1, dv1, true, false));
    Output middle = ops::Add(
        s, ops::Add(s, ds, MatMul(s, ops::Add(s, f_u, Adjoint(s, f_u)), s_mat)),
        MatMul(s, s_mat, ops::Add(s, f_v, Adjoint(s, f_v))));
    Output da = MatMul(s, u, MatMul(s, middle, v1, false, true));
    if (m != n) {
      Output dv1t = Adjoint(s, dv1);
      Output rest = ops::Sub(s, dv1t, MatMul(s, MatMul(s, dv1t, v1), v1, false, true));
      if (full) {
        Output v2 = Columns(s, v, rank, m, n - m), dv2 = Columns(s, dv, rank, m, n - m);
        rest = ops::Sub(s, rest, MatMul(s, MatMul(s, v1, dv2, true, false), v2, false, true));
      }
      Output s_inv = AddOp1(s, "MatrixDiag", {SafeReciprocal(s, sv)});
      da = ops::Add(s, da, MatMul(s, MatMul(s, u, s_inv), rest));
    }
    *dx = {transposed ? Adjoint(s, da) : da};
    return s.status();
  });
  // TensorFlow's _EigGrad (Boeddeker et al., eq. 4.77; distinct
  // eigenvalues): with f(i, j) = conj(1 / (e_j - e_i)) off the diagonal (a
  // safe reciprocal), da = v^-H (diag(de) + f o (v^H dv - v^H v
  // diag(re(diag(v^H dv))))) v^H, a solve by v^H; without eigenvectors, v
  // comes from the op run again. Cast to a's dtype (a real a's gradient is
  // the real part).
  r->Register("Eig", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output a = s.GetInputs(op)[0];
    Output e = op.output(0);
    const DataType ct = BaseType(e.dtype());
    const AttrValue real_type = MakeAttrValue(ct == DT_COMPLEX64 ? DT_FLOAT : DT_DOUBLE);
    auto real = [&](Output z) { return s.AddOp("Real", {{z}}, {{"Tout", real_type}}).output(0); };
    Output v;
    Output mid = AddOp1(s, "MatrixDiag", {dy[0]});
    if (BoolAttr(s, op, "compute_v")) {
      v = op.output(1);
      Output vt = Conj(s, Adjoint(s, v));
      Output diff = ops::Sub(s, ops::ExpandDims(s, e, ops::Const<int32_t>(s, -2)),
                             ops::ExpandDims(s, e, ops::Const<int32_t>(s, -1)));
      Output f = Conj(s, AddOp1(s, "MatrixSetDiag", {SafeReciprocal(s, diff),
                                                    ops::ZerosLike(s, e)}));
      Output vgv = MatMul(s, vt, dy[1]);
      Output real_diag =
          AddOp1(s, "MatrixDiag", {ops::Cast(s, real(AddOp1(s, "MatrixDiagPart", {vgv})), ct)});
      mid = ops::Add(s, mid, ops::Mul(s, f, ops::Sub(s, vgv, MatMul(s, MatMul(s, vt, v),
                                                                     real_diag))));
    } else {
      v = s.AddOp("Eig", {{a}}, {{"compute_v", Bool(true)}, {"Tout", MakeAttrValue(ct)}})
              .output(1);
    }
    Output vt = Conj(s, Adjoint(s, v));  // Adjoint alone only transposes
    Output da = AddOp1(s, "MatrixSolve", {vt, MatMul(s, mid, vt)});
    const DataType at = BaseType(a.dtype());
    *dx = {at == ct ? da : ops::Cast(s, real(da), at)};
    return s.status();
  });
  r->Register("Cholesky", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    Output l = op.output(0);
    Output l_inv = AddOp1(s, "MatrixTriangularSolve", {l, Eye(s, l)},
                          {{"lower", Bool(true)}, {"adjoint", Bool(false)}});
    Output middle = MatMul(s, l, dy[0], true, false);
    Output half = ops::Cast(s, ops::Const<float>(s, 0.5f), l.dtype());
    middle = AddOp1(s, "MatrixSetDiag",
                    {middle, ops::Mul(s, half, AddOp1(s, "MatrixDiagPart", {middle}))});
    middle = AddOp1(s, "MatrixBandPart",
                    {middle, ops::Const<int64_t>(s, -1), ops::Const<int64_t>(s, 0)});
    Output da = MatMul(s, MatMul(s, l_inv, middle, true, false), l_inv);
    *dx = {ops::Mul(s, ops::Add(s, da, Adjoint(s, da)), half)};
    return s.status();
  });
  // TensorFlow's _TridiagonalMatMulGrad: with y[i] = sup[i] r[i+1] +
  // main[i] r[i] + sub[i] r[i-1] (rows of r), each diagonal's gradient is
  // the row sums of dy times r (shifted), and r's the diagonals (conjugated,
  // as columns) times dy, shifted back.
  r->Register("TridiagonalMatMul", [](const Scope& s, const Operation& op, const Grads& dy,
                                      Grads* dx) {
    const Grads in = s.GetInputs(op);
    Output rhs = Conj(s, in[3]), g = dy[0];
    auto column = [&](Output diagonal) { return Conj(s, Adjoint(s, diagonal)); };
    auto as_row = [&](Output v) { return ops::ExpandDims(s, v, ops::Const<int32_t>(s, -2)); };
    *dx = {as_row(SumOfProducts(s, Shifted(s, rhs, true, true), g)),
           as_row(SumOfProducts(s, rhs, g)),
           as_row(SumOfProducts(s, Shifted(s, rhs, true, false), g)),
           ops::AddN(s, {Shifted(s, ops::Mul(s, column(in[0]), g), true, false),
                         ops::Mul(s, column(in[1]), g),
                         Shifted(s, ops::Mul(s, column(in[2]), g), true, true)})};
    return s.status();
  });
  // TensorFlow's _TridiagonalSolveGrad: the right-hand side's gradient
  // solves the transposed system (its superdiagonal the subdiagonal moved
  // up, its subdiagonal the superdiagonal moved down); the diagonals' are
  // minus the three diagonals of drhs x^T.
  r->Register("TridiagonalSolve", [](const Scope& s, const Operation& op, const Grads& dy,
                                     Grads* dx) {
    const Grads in = s.GetInputs(op);
    const std::vector<Output> d = ops::Unstack(s, in[0], 3, -2);  // super, main, sub
    Output transposed =
        ops::Pack(s, {Shifted(s, d[2], false, true), d[1], Shifted(s, d[0], false, false)}, -2);
    Output drhs = AddOp1(s, "TridiagonalSolve", {transposed, dy[0]},
                         CopyAttrs(s.GetNodeDef(op), {"partial_pivoting", "perturb_singular"}));
    Output x = op.output(0);
    Output ddiags = ops::Pack(s, {SumOfProducts(s, drhs, Shifted(s, x, true, true)),
                                  SumOfProducts(s, drhs, x),
                                  SumOfProducts(s, drhs, Shifted(s, x, true, false))},
                              -2);
    *dx = {ops::Neg(s, ddiags), drhs};
    return s.status();
  });
  // TensorFlow's _BandedTriangularSolveGrad: as MatrixTriangularSolve's,
  // dA kept to the bands (MatrixDiagPartV3, LEFT_RIGHT, as the bands are
  // stored).
  r->Register("BandedTriangularSolve", [](const Scope& s, const Operation& op, const Grads& dy,
                                          Grads* dx) {
    const bool adjoint = BoolAttr(s, op, "adjoint");
    const bool lower = BoolAttr(s, op, "lower");
    const Grads in = s.GetInputs(op);
    Output x = op.output(0);
    Output db = AddOp1(s, "BandedTriangularSolve", {in[0], dy[0]},
                       {{"lower", Bool(lower)}, {"adjoint", Bool(!adjoint)}});
    Output da =
        ops::Neg(s, adjoint ? MatMul(s, x, db, false, true) : MatMul(s, db, x, false, true));
    ops::StridedSliceOptions o;
    o.shrink_axis_mask = 1;
    Output bands = ops::StridedSlice(s, ops::Shape(s, in[0]), ops::Const<int32_t>(s, {-2}),
                                     ops::Const<int32_t>(s, {-1}), ops::Const<int32_t>(s, {1}), o);
    Output far = ops::Sub(s, bands, ops::Const<int32_t>(s, 1));
    Output k = lower ? ops::Pack(s, {ops::Neg(s, far), ops::Const<int32_t>(s, 0)})
                     : ops::Pack(s, {ops::Const<int32_t>(s, 0), far});
    AttrValue align;
    align.set_s("LEFT_RIGHT");
    da = AddOp1(s, "MatrixDiagPartV3",
                {da, k, ops::Cast(s, ops::Const<float>(s, 0.0f), da.dtype())}, {{"align", align}});
    *dx = {Unbroadcast(s, da, in[0]), Unbroadcast(s, db, in[1])};
    return s.status();
  });
  r->Register("Einsum", [](const Scope& s, const Operation& op, const Grads& dy, Grads* dx) {
    std::string equation;
    MG_RETURN_IF_ERROR(GetNodeAttr(s.GetNodeDef(op), "equation", &equation));
    const size_t arrow = equation.find("->");
    const std::string in_subs = equation.substr(0, arrow), out_subs = equation.substr(arrow + 2);
    const Grads in = s.GetInputs(op);
    EinsumGrad e(s);
    if (in.size() == 1) {
      const std::string reduced = EinsumGrad::Missing(in_subs, out_subs);
      *dx = {reduced.empty() ? e.Einsum({dy[0]}, out_subs + "->" + in_subs)
                             : e.Reduced(dy[0], out_subs, in_subs, ops::Shape(s, in[0]), reduced)};
      return s.status();
    }
    const size_t comma = in_subs.find(',');
    std::string x_subs = in_subs.substr(0, comma), y_subs = in_subs.substr(comma + 1);
    // "...ij,jk->...ik": the gradient einsum "...ik,jk->ij" would lack the
    // ellipsis its output needs, so an operand without one gets one.
    const bool ellipsis = out_subs.find("...") != std::string::npos;
    if (ellipsis && x_subs.find("...") == std::string::npos) x_subs += "...";
    if (ellipsis && y_subs.find("...") == std::string::npos) y_subs += "...";
    Output x_shape = ops::Shape(s, in[0]), y_shape = ops::Shape(s, in[1]);
    Output gx = e.Wrt(dy[0], in[1], x_shape, x_subs, y_subs, out_subs);
    Output gy = e.Wrt(dy[0], in[0], y_shape, y_subs, x_subs, out_subs);
    if (ellipsis) {
      gx = e.Unbroadcast(gx, x_shape, x_subs, y_shape, y_subs);
      gy = e.Unbroadcast(gy, y_shape, y_subs, x_shape, x_subs);
    }
    *dx = {gx, gy};
    return s.status();
  });
  r->Register("Diag", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("DiagPart", {{dy[0]}}).output(0)};
    return s.status();
  });
  r->Register("DiagPart", [](const Scope& s, const Operation&, const Grads& dy, Grads* dx) {
    *dx = {s.AddOp("Diag", {{dy[0]}}).output(0)};
    return s.status();
  });
}

}  // namespace minigraph
