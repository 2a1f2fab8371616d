// Element-wise math, reductions and matrix multiplication.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

constexpr char kNumeric[] = "T: {float, double, int32, int64}";
constexpr char kFloat[] = "T: {float, double}";
// Ops whose kernels take complex numbers too.
constexpr char kNumericComplex[] = "T: {float, double, int32, int64, complex64, complex128}";
constexpr char kFloatComplex[] = "T: {float, double, complex64, complex128}";

absl::Status MatMulShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape a, c->WithRank(0, 2));
  MG_ASSIGN_OR_RETURN(PartialShape b, c->WithRank(1, 2));
  MG_ASSIGN_OR_RETURN(bool ta, c->GetAttr<bool>("transpose_a"));
  MG_ASSIGN_OR_RETURN(bool tb, c->GetAttr<bool>("transpose_b"));
  const int64_t m = a.dim(ta ? 1 : 0), ka = a.dim(ta ? 0 : 1);
  const int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return c->Error(absl::StrCat("MatMul inner dimensions differ: a is ", a.DebugString(),
                                 ta ? " (transposed)" : "", ", b is ", b.DebugString(),
                                 tb ? " (transposed)" : ""));
  }
  c->set_output(0, PartialShape({m, n}));
  return absl::OkStatus();
}

// [..., m, k] x [..., k, n] -> [broadcast(...), m, n] (V1: equal batch
// dimensions), each matrix adjoint (transposed) when adj_x / adj_y.
absl::Status BatchMatMulShape(InferenceContext* c) {
  const PartialShape& x = c->input(0);
  const PartialShape& y = c->input(1);
  if (!x.rank_known() || !y.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (x.rank() < 2 || y.rank() < 2) {
    return c->Error(absl::StrCat("inputs must be at least 2-dimensional, got ", x.DebugString(),
                                 " and ", y.DebugString()));
  }
  MG_ASSIGN_OR_RETURN(bool adj_x, c->GetAttr<bool>("adj_x"));
  MG_ASSIGN_OR_RETURN(bool adj_y, c->GetAttr<bool>("adj_y"));
  const int rx = x.rank(), ry = y.rank();
  const int64_t m = x.dim(adj_x ? rx - 1 : rx - 2), kx = x.dim(adj_x ? rx - 2 : rx - 1);
  const int64_t ky = y.dim(adj_y ? ry - 1 : ry - 2), n = y.dim(adj_y ? ry - 2 : ry - 1);
  if (kx >= 0 && ky >= 0 && kx != ky) {
    return c->Error(absl::StrCat("inner dimensions differ: x is ", x.DebugString(),
                                 adj_x ? " (adjoint)" : "", ", y is ", y.DebugString(),
                                 adj_y ? " (adjoint)" : ""));
  }
  const PartialShape bx(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2));
  const PartialShape by(std::vector<int64_t>(y.dims().begin(), y.dims().end() - 2));
  absl::StatusOr<PartialShape> batch = c->node_def().op() == "BatchMatMul"
                                           ? PartialShape::Merge(bx, by)
                                           : PartialShape::Broadcast(bx, by);
  if (!batch.ok()) {
    return c->Error(absl::StrCat("batch dimensions ", bx.DebugString(), " and ", by.DebugString(),
                                 " do not ",
                                 c->node_def().op() == "BatchMatMul" ? "match" : "broadcast"));
  }
  std::vector<int64_t> dims = batch->dims();
  dims.push_back(m);
  dims.push_back(n);
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status ReductionShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(bool keep_dims, c->GetAttr<bool>("keep_dims"));
  // Graphs before version 21 could give the axes as a tensor of any rank
  // ([[1, 2]] for axes 1 and 2); later ones, at most a vector.
  if (c->graph_def_version() >= kReductionAxesRankVersion && c->input(1).rank_known() &&
      c->input(1).rank() > 1) {
    return c->Error(absl::StrCat("Shape must be at most rank 1 but is rank ", c->input(1).rank(),
                                 " (reduction_indices)"));
  }
  const PartialShape& in = c->input(0);
  const Tensor* axes = c->input_tensor(1);
  if (!in.rank_known() || axes == nullptr) {
    c->set_output(
        0, keep_dims && in.rank_known() ? PartialShape::UnknownOfRank(in.rank()) : PartialShape());
    return absl::OkStatus();
  }
  std::set<int64_t> reduce;
  for (int64_t i = 0; i < axes->NumElements(); ++i) {
    int64_t a = axes->dtype() == DT_INT32 ? axes->data<int32_t>()[i] : axes->data<int64_t>()[i];
    if (a < -in.rank() || a >= in.rank()) {
      return c->Error(absl::StrCat("reduction axis ", a, " is out of range for input of shape ",
                                   in.DebugString()));
    }
    reduce.insert(a < 0 ? a + in.rank() : a);
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduce.count(d)) {
      dims.push_back(in.dim(d));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

void Unary(OpRegistry* r, const char* name, const char* types) {
  MG_REGISTER_OP(r, OpDefBuilder(name).Input("x: T").Output("y: T").Attr(types).SetShapeFn(
                        shape_fn::Unchanged));
}

// Commutative: x op y == y op x, as TensorFlow marks them.
bool IsCommutative(absl::string_view name) {
  static constexpr absl::string_view kCommutative[] = {
      "AddV2",      "Mul",       "SquaredDifference", "Equal",     "NotEqual",
      "LogicalAnd", "LogicalOr", "BitwiseAnd",        "BitwiseOr", "BitwiseXor"};
  return std::find(std::begin(kCommutative), std::end(kCommutative), name) !=
         std::end(kCommutative);
}

void Binary(OpRegistry* r, const char* name, const char* types, bool bool_out = false) {
  OpDefBuilder b(name);
  b.Input("x: T")
      .Input("y: T")
      .Output(bool_out ? "z: bool" : "z: T")
      .Attr(types)
      .SetShapeFn(shape_fn::BroadcastBinary);
  if (IsCommutative(name)) b.SetIsCommutative();
  // AddV2 also adds N tensors in any order (TensorFlow's aggregate).
  if (absl::string_view(name) == "AddV2") b.SetIsAggregate();
  MG_REGISTER_OP(r, b);
}

// Element-wise arithmetic, comparisons, logic and unary math.
void RegisterElementwiseOps(OpRegistry* r) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div"}) Binary(r, op, kNumericComplex);
  for (const char* op : {"Maximum", "Minimum", "FloorDiv", "FloorMod"}) Binary(r, op, kNumeric);
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py", "MulNoNan"}) Binary(r, op, kFloat);
  constexpr char kIntegers[] = "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    Binary(r, op, kIntegers);
  }
  Unary(r, "Invert", kIntegers);
  MG_REGISTER_OP(r, OpDefBuilder("ClipByValue")
                        .Input("t: T")
                        .Input("clip_value_min: T")
                        .Input("clip_value_max: T")
                        .Output("output: T")
                        .Attr(kNumeric)
                        .SetShapeFn(shape_fn::Unchanged));
  Binary(r, "RealDiv", kFloatComplex);
  Binary(r, "DivNoNan", kFloatComplex);
  Binary(r, "Pow", kNumeric);  // kernels for float and double
  Binary(r, "SquaredDifference", kNumeric);
  for (const char* op : {"Greater", "Less", "GreaterEqual", "LessEqual"}) {
    Binary(r, op, kNumeric, /*bool_out=*/true);
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: T")
                          .Input("y: T")
                          .Output("z: bool")
                          .Attr("T: {float, double, int32, int64, bool, string}")
                          .Attr("incompatible_shape_error: bool = true")
                          .SetIsCommutative()
                          .SetShapeFn(shape_fn::BroadcastBinary));
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: bool")
                          .Input("y: bool")
                          .Output("z: bool")
                          .SetIsCommutative()
                          .SetShapeFn(shape_fn::BroadcastBinary));
  }
  MG_REGISTER_OP(r, OpDefBuilder("LogicalNot")
                        .Input("x: bool")
                        .Output("y: bool")
                        .SetShapeFn(shape_fn::Unchanged));
  for (const char* op : {"IsFinite", "IsNan", "IsInf"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: T")
                          .Output("y: bool")
                          .Attr("T: {float, double}")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  for (const char* op : {"Neg", "Square"}) Unary(r, op, kNumericComplex);
  for (const char* op : {"Abs", "Sign"}) Unary(r, op, kNumeric);
  for (const char* op : {"Exp", "Reciprocal"}) Unary(r, op, kFloatComplex);
  for (const char* op : {"Sqrt", "Expm1", "Log", "Sigmoid", "Tanh", "Floor",
                         "Ceil", "Rsqrt", "Log1p", "Sin", "Cos", "Erf", "Erfc"}) {
    Unary(r, op, kFloat);
  }
  MG_REGISTER_OP(r, OpDefBuilder("Atan2")
                        .Input("y: T")
                        .Input("x: T")
                        .Output("z: T")
                        .Attr(kFloat)
                        .SetShapeFn(shape_fn::BroadcastBinary));
  Unary(r, "Round", kNumeric);
  // Complex numbers made and taken apart.
  MG_REGISTER_OP(r, OpDefBuilder("Complex")
                        .Input("real: T")
                        .Input("imag: T")
                        .Output("out: Tout")
                        .Attr("T: {float, double} = DT_FLOAT")
                        .Attr("Tout: {complex64, complex128} = DT_COMPLEX64")
                        .SetShapeFn(shape_fn::BroadcastBinary));
  for (const char* op : {"Real", "Imag", "ComplexAbs", "Angle"}) {
    const bool abs = absl::string_view(op) == "ComplexAbs";  // (its arguments' names)
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input(abs ? "x: T" : "input: T")
                          .Output(abs ? "y: Tout" : "output: Tout")
                          .Attr("T: {complex64, complex128} = DT_COMPLEX64")
                          .Attr("Tout: {float, double} = DT_FLOAT")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("Conj")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: {complex64, complex128} = DT_COMPLEX64")
                        .SetShapeFn(shape_fn::Unchanged));
  // Gradient helpers: y and dy in, dx out.
  for (const char* op : {"SigmoidGrad", "TanhGrad", "SqrtGrad", "RsqrtGrad"}) {
    MG_REGISTER_OP(
        r, OpDefBuilder(op).Input("y: T").Input("dy: T").Output("z: T").Attr(kFloat).SetShapeFn(
               shape_fn::MergeAllInputs));
  }
}

// Sums of many, matrix products, reductions, scans and arg max/min.
void RegisterMatrixAndReductionOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("AddN")
                        .Input("inputs: N * T")
                        .Output("sum: T")
                        .Attr("N: int >= 1")
                        .Attr("T: {float, double, int32, int64, complex64, complex128, variant}")
                        .SetIsAggregate()
                        .SetIsCommutative()
                        .SetShapeFn(shape_fn::MergeAllInputs));
  MG_REGISTER_OP(r, OpDefBuilder("MatMul")
                        .Input("a: T")
                        .Input("b: T")
                        .Output("product: T")
                        .Attr("transpose_a: bool = false")
                        .Attr("transpose_b: bool = false")
                        .Attr(kNumericComplex)
                        // TensorFlow 2.12's: marks a gradient's MatMul (for
                        // its GPU kernels); the product is the same.
                        .Attr("grad_a: bool = false")
                        .Attr("grad_b: bool = false")
                        .SetShapeFn(MatMulShape));
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: T")
                          .Input("y: T")
                          .Output("output: T")
                          .Attr(kFloatComplex)
                          .Attr("adj_x: bool = false")
                          .Attr("adj_y: bool = false")
                          .Attr("grad_x: bool = false")
                          .Attr("grad_y: bool = false")
                          .SetShapeFn(BatchMatMulShape));
  }
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("input: T")
                          .Input("reduction_indices: Tidx")
                          .Output("output: T")
                          .Attr("keep_dims: bool = false")
                          .Attr(absl::string_view(op) == "Sum" ? kNumericComplex : kNumeric)
                          .Attr("Tidx: {int32, int64} = int32")
                          .SetShapeFn(ReductionShape));
  }
  for (const char* op : {"All", "Any"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("input: bool")
                          .Input("reduction_indices: Tidx")
                          .Output("output: bool")
                          .Attr("keep_dims: bool = false")
                          .Attr("Tidx: {int32, int64} = int32")
                          .SetShapeFn(ReductionShape));
  }
  for (const char* op : {"Cumsum", "Cumprod", "CumulativeLogsumexp"}) {
    const bool logsumexp = std::string(op) == "CumulativeLogsumexp";
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: T")
                          .Input("axis: Tidx")
                          .Output("out: T")
                          .Attr("exclusive: bool = false")
                          .Attr("reverse: bool = false")
                          .Attr(logsumexp ? "T: {float, double}" : kNumeric)
                          .Attr("Tidx: {int32, int64} = int32")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  for (const char* arg_op : {"ArgMax", "ArgMin"}) {
    MG_REGISTER_OP(r, OpDefBuilder(arg_op)
                          .Input("input: T")
                          .Input("dimension: Tidx")
                          .Output("output: output_type")
                          .Attr(kNumeric)
                          .Attr("Tidx: {int32, int64} = int32")
                          .Attr("output_type: {int32, int64} = int64")
                          .SetShapeFn([](InferenceContext* c) {
                            const PartialShape& in = c->input(0);
                            const Tensor* d = c->input_tensor(1);
                            if (!in.rank_known() || d == nullptr || d->NumElements() != 1) {
                              c->set_output(0, PartialShape());
                              return absl::OkStatus();
                            }
                            int64_t axis = d->dtype() == DT_INT32 ? d->data<int32_t>()[0]
                                                                  : d->data<int64_t>()[0];
                            if (axis < 0) axis += in.rank();
                            if (axis < 0 || axis >= in.rank()) {
                              return c->Error(
                                  absl::StrCat("dimension is out of range for ", in.DebugString()));
                            }
                            std::vector<int64_t> dims = in.dims();
                            dims.erase(dims.begin() + axis);
                            c->set_output(0, PartialShape(dims));
                            return absl::OkStatus();
                          }));
  }
}

// Einsum's output: each output label's dimension from an input that has it
// (-1 where none knows it), the ellipsis the broadcast of the inputs'
// ellipsis dimensions (unknown rank when an input with one has unknown
// rank). What does not fit otherwise the kernel refuses, naming it.
absl::Status EinsumShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(std::string equation, c->GetAttr<std::string>("equation"));
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos) {
    return c->Error(absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  const std::vector<std::string> subs = absl::StrSplit(equation.substr(0, arrow), ',');
  const std::string output = equation.substr(arrow + 2);
  if (static_cast<int>(subs.size()) != c->num_inputs()) {
    return c->Error(absl::StrCat("Expected ", subs.size(), " inputs but got: ", c->num_inputs()));
  }
  // The kernel's checks of the labels, made when the graph is built.
  std::string labels;
  std::vector<const std::string*> parts;
  for (const std::string& sub : subs) {
    labels += sub;
    parts.push_back(&sub);
  }
  parts.push_back(&output);
  for (const std::string* part : parts) {
    const size_t dots = part->find("...");
    for (size_t k = 0; k < part->size(); ++k) {
      const char ch = (*part)[k];
      if (k == dots) {
        k += 2;
      } else if (ch == '.') {
        return c->Error(absl::StrCat("Invalid ellipsis in subscript '", *part,
                                     "' of einsum equation: ", equation));
      } else if (!absl::ascii_isalpha(static_cast<unsigned char>(ch))) {
        return c->Error(absl::StrCat("Invalid character '", std::string(1, ch),
                                     "' in einsum equation: ", equation));
      } else if (part == &output && labels.find(ch) == std::string::npos) {
        return c->Error(absl::StrCat("The output subscripts of einsum equation ", equation,
                                     " name a label that no input has: ", std::string(1, ch)));
      }
    }
  }
  std::map<char, int64_t> dims;
  PartialShape ellipsis = PartialShape::Scalar();
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialShape& in = c->input(i);
    const std::string& sub = subs[i];
    const size_t dots = sub.find("...");
    const int named = static_cast<int>(sub.size()) - (dots == std::string::npos ? 0 : 3);
    if (!in.rank_known()) {
      if (dots != std::string::npos) ellipsis = PartialShape();
      continue;
    }
    if (dots == std::string::npos ? in.rank() != named : in.rank() < named) {
      return c->Error(absl::StrCat("Expected input ", i, " to have rank ", named, " but got: ",
                                   in.rank()));
    }
    int axis = 0;
    for (size_t k = 0; k < sub.size(); ++k) {
      if (k == dots) {
        const int count = in.rank() - named;
        std::vector<int64_t> part(in.dims().begin() + axis, in.dims().begin() + axis + count);
        MG_ASSIGN_OR_RETURN(ellipsis, PartialShape::Broadcast(ellipsis, PartialShape(part)));
        axis += count;
        k += 2;
        continue;
      }
      const int64_t d = in.dim(axis++);
      auto [it, added] = dims.emplace(sub[k], d);
      if (!added && it->second < 0) it->second = d;
    }
  }
  if (output.find("...") == std::string::npos && ellipsis.rank_known() && ellipsis.rank() > 0) {
    return c->Error(absl::StrCat("Output contains ", ellipsis.rank(),
                                 " broadcasting dimension(s) but no ellipsis (...) was found in "
                                 "the output subscripts of einsum equation: ",
                                 equation));
  }
  std::vector<int64_t> out;
  for (size_t k = 0; k < output.size(); ++k) {
    if (output.compare(k, 3, "...") == 0) {
      if (!ellipsis.rank_known()) {
        c->set_output(0, PartialShape());
        return absl::OkStatus();
      }
      out.insert(out.end(), ellipsis.dims().begin(), ellipsis.dims().end());
      k += 2;
      continue;
    }
    auto it = dims.find(output[k]);
    out.push_back(it == dims.end() ? -1 : it->second);
  }
  c->set_output(0, PartialShape(out));
  return absl::OkStatus();
}

// OK unless input 0's rank is known and below `rank`.
absl::Status AtLeastRank(InferenceContext* c, int rank) {
  const PartialShape& in = c->input(0);
  if (!in.rank_known() || in.rank() >= rank) return absl::OkStatus();
  return c->Error(absl::StrCat("Shape must be at least rank ", rank, " but is rank ", in.rank()));
}

// The real FFTs' output: the input's shape with its last `rank` dimensions
// fft_length's (the last one's half spectrum, n / 2 + 1, forward), where
// fft_length is a constant; else of unknown size.
absl::Status RealFftShape(InferenceContext* c, int rank, bool forward) {
  const PartialShape& in = c->input(0);
  MG_RETURN_IF_ERROR(AtLeastRank(c, rank));
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = in.dims();
  const Tensor* length = c->input_tensor(1);
  for (int i = 0; i < rank; ++i) {
    int64_t& d = dims[in.rank() - rank + i];
    if (length == nullptr || length->dtype() != DT_INT32 || length->NumElements() != rank) {
      d = -1;
      continue;
    }
    const int64_t n = length->data<int32_t>()[i];
    d = forward && i == rank - 1 && n != 0 ? n / 2 + 1 : n;
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// Fourier transforms: the shape of the input, or fft_length's.
void RegisterSpectralOps(OpRegistry* r) {
  for (int rank = 1; rank <= 3; ++rank) {
    const std::string suffix = rank == 1 ? "" : absl::StrCat(rank, "D");
    for (const char* base : {"FFT", "IFFT"}) {
      MG_REGISTER_OP(r, OpDefBuilder(absl::StrCat(base, suffix))
                            .Input("input: Tcomplex")
                            .Output("output: Tcomplex")
                            .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
                            .SetShapeFn([rank](InferenceContext* c) -> absl::Status {
                              MG_RETURN_IF_ERROR(AtLeastRank(c, rank));
                              return shape_fn::Unchanged(c);
                            }));
    }
    for (bool forward : {true, false}) {
      MG_REGISTER_OP(r, OpDefBuilder(absl::StrCat(forward ? "RFFT" : "IRFFT", suffix))
                            .Input(forward ? "input: Treal" : "input: Tcomplex")
                            .Input("fft_length: int32")
                            .Output(forward ? "output: Tcomplex" : "output: Treal")
                            .Attr("Treal: {float, double} = DT_FLOAT")
                            .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
                            .SetShapeFn([rank, forward](InferenceContext* c) {
                              return RealFftShape(c, rank, forward);
                            }));
    }
  }
}

// Eig's outputs: the eigenvalues [..., n] of square matrices [..., n, n],
// and with compute_v the eigenvectors like the input (without, the kernel
// gives a placeholder: unknown here).
absl::Status EigShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(bool compute_v, c->GetAttr<bool>("compute_v"));
  const PartialShape& in = c->input(0);
  c->set_output(1, PartialShape());
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (in.rank() < 2) {
    return c->Error(absl::StrCat("Shape must be at least rank 2 but is rank ", in.rank()));
  }
  std::vector<int64_t> dims = in.dims();
  const int64_t rows = dims[dims.size() - 2], cols = dims.back();
  if (rows >= 0 && cols >= 0 && rows != cols) {
    return c->Error(absl::StrCat("Input matrix must be square: ", in.DebugString()));
  }
  const int64_t n = rows >= 0 ? rows : cols;
  dims.pop_back();
  dims.back() = n;
  c->set_output(0, PartialShape(dims));
  if (compute_v) {
    dims.push_back(n);
    c->set_output(1, PartialShape(dims));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterMathOps(OpRegistry* r) {
  RegisterElementwiseOps(r);
  RegisterMatrixAndReductionOps(r);
  RegisterSpectralOps(r);
  MG_REGISTER_OP(r, OpDefBuilder("Einsum")
                        .Input("inputs: N * T")
                        .Output("output: T")
                        .Attr("equation: string")
                        .Attr("N: int >= 1")
                        .Attr("T: {float, double, int32, int64}")
                        .SetShapeFn(EinsumShape));
  MG_REGISTER_OP(r, OpDefBuilder("Eig")
                        .Input("input: T")
                        .Output("e: Tout")
                        .Output("v: Tout")
                        .Attr("compute_v: bool = true")
                        .Attr("T: {float, double, complex64, complex128}")
                        .Attr("Tout: {complex64, complex128}")
                        .SetShapeFn(EigShape));
}

}  // namespace ops_internal
}  // namespace minigraph
