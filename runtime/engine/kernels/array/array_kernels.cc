// Kernels for constants, placeholders, shapes, reshaping, joining and
// gathering.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"  // half and bfloat16 conversions (Cast)
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/bcast.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/list_math.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/kernels/internal/wrapping.h"
#include "runtime/graph/partial_shape.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace kernels_internal {
namespace {

int64_t Product(absl::Span<const int64_t> dims, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= dims[i];
  return p;
}

class ConstOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("value", &value_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, value_);
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    return c->GetAttr("shape", &shape_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    return absl::InvalidArgumentError(absl::StrCat(
        "You must feed a value for placeholder tensor '", name(), "' with dtype ",
        DataTypeString(dtype_),
        shape_.rank_known() ? absl::StrCat(" and shape ", shape_.DebugString()) : ""));
  }

 private:
  DataType dtype_;
  PartialShape shape_;
};

// Identity, StopGradient, Snapshot and PlaceholderWithDefault forward input 0.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, ctx->input(0));
    return absl::OkStatus();
  }
};

// EnsureShape: the input, forwarded when its shape fits the `shape` attr
// (unknown dims and an unknown rank fit anything).
class EnsureShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("shape", &shape_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (!shape_.IsCompatibleWith(input.shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape of tensor ", name(), " ", input.shape().DebugString(),
                       " is not compatible with expected shape ", shape_.DebugString(), "."));
    }
    ctx->set_output(0, input);
    return absl::OkStatus();
  }

 private:
  PartialShape shape_;
};

// BroadcastArgs: the shape two shapes broadcast to, as NumPy broadcasts.
template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<TensorShape> shapes;
    for (int i = 0; i < 2; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "In[", i, "] must be a vector, got shape ", t.shape().DebugString()));
      }
      std::vector<int64_t> dims(t.data<T>(), t.data<T>() + t.NumElements());
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      shapes.push_back(shape);
    }
    MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(shapes[0], shapes[1]));
    const TensorShape& result = b.output_shape();
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({result.dims()}), &out));
    for (int d = 0; d < result.dims(); ++d) out->data<T>()[d] = static_cast<T>(result.dim_size(d));
    return absl::OkStatus();
  }
};

// Bitcast: the input's bytes as `type`. Elements of the same size keep the
// shape; a larger input element becomes a last dimension of the smaller
// ones it holds; a smaller one needs a last dimension of as many as the
// larger holds, which goes. (A copy: a buffer here has one dtype.)
class BitcastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("type", &type_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const size_t in = DataTypeSize(x.dtype()), out = DataTypeSize(type_);
    std::vector<int64_t> dims(x.shape().dim_sizes().begin(), x.shape().dim_sizes().end());
    if (in > out && in % out == 0) {
      dims.push_back(static_cast<int64_t>(in / out));
    } else if (in < out) {
      const int64_t ratio = out % in == 0 ? static_cast<int64_t>(out / in) : -1;
      if (dims.empty() || dims.back() != ratio) {
        return absl::InvalidArgumentError(absl::StrCat(
            type_string(), " '", name(), "': Cannot bitcast from ", DataTypeString(x.dtype()),
            " to ", DataTypeString(type_), ": shape ", x.shape().DebugString(),
            " (its last dimension must be ", out, " / ", in, ")"));
      }
      dims.pop_back();
    } else if (in != out) {
      return absl::InvalidArgumentError(
          absl::StrCat(type_string(), " '", name(), "': Cannot bitcast from ",
                       DataTypeString(x.dtype()), " to ", DataTypeString(type_)));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    if (x.TotalBytes() > 0) std::memcpy(y->raw_data(), x.raw_data(), x.TotalBytes());
    return absl::OkStatus();
  }

 private:
  DataType type_;
};

// IdentityN: every input forwarded.
class ForwardAllOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < ctx->num_inputs(); ++i) ctx->set_output(i, ctx->input(i));
    return absl::OkStatus();
  }
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext*) const override { return absl::OkStatus(); }
};

template <typename T>
class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "Fill dims"));
    const Tensor& value = ctx->input(1);
    if (value.NumElements() != 1 || value.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fill value must be a scalar, got shape ", value.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    std::fill_n(out->data<T>(), out->NumElements(), *value.data<T>());
    return absl::OkStatus();
  }
};

// Empty: a tensor of `shape`. TensorFlow's leaves it uninitialized unless
// `init`; this one is always zeros (the value init asks for), so a step
// never reads what an earlier one left.
template <typename T>
class EmptyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    if (ctx->input(0).dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Empty: shape must be a vector, got shape ", ctx->input(0).shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(0), "Empty shape"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    std::fill_n(out->data<T>(), out->NumElements(), T());
    return absl::OkStatus();
  }
};

template <int kValue>
struct ConstantLike {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Compute(OpKernelContext* ctx) const override {
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, ctx->input(0).shape(), &out));
      std::fill_n(out->data<T>(), out->NumElements(), static_cast<T>(kValue));
      return absl::OkStatus();
    }
  };
};

// Shape, Size: out_type int32 or int64.
template <typename T>
class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({x.dims()}), &out));
    for (int i = 0; i < x.dims(); ++i) out->data<T>()[i] = static_cast<T>(x.dim_size(i));
    return absl::OkStatus();
  }
};

template <typename T>
class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape(), &out));
    *out->data<T>() = static_cast<T>(ctx->input(0).NumElements());
    return absl::OkStatus();
  }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(ctx->input(0).dims()));
    return absl::OkStatus();
  }
};

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntsFromTensor(ctx->input(1), "Reshape shape"));
    int unknown = -1;
    int64_t product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (dims[i] < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Reshape shape [", absl::StrJoin(dims, ","), "] has an invalid dimension"));
      } else {
        product *= dims[i];
      }
    }
    if (unknown >= 0) {
      if (product == 0 || x.NumElements() % product != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Input to reshape is a tensor with ", x.NumElements(),
            " values, but the requested shape [", absl::StrJoin(dims, ","), "] cannot hold them"));
      }
      dims[unknown] = x.NumElements() / product;
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    if (shape.num_elements() != x.NumElements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input to reshape is a tensor with ", x.NumElements(),
          " values, but the requested shape has ", shape.num_elements()));
    }
    MG_ASSIGN_OR_RETURN(Tensor out, x.Reshaped(shape));
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }
};

// x's integer part as the integer type D, for every x: NaN and values out
// of D's range give what x86's conversion gives (TensorFlow's Cast does
// that conversion): the lowest int32 or int64, and for narrower types the
// int32 conversion wrapped (so NaN is 0 and 300 is 44 as uint8). For
// uint32 and uint64 C++ leaves them undefined and TensorFlow's answer
// depends on the element's position (docs/tf_interop.md): 0 here.
template <typename D, typename F>
D FloatToInt(F x) {
  if constexpr (sizeof(D) < sizeof(int32_t)) {
    return static_cast<D>(FloatToInt<int32_t>(x));
  } else if constexpr (std::is_unsigned_v<D>) {
    const double v = static_cast<double>(x);
    // 2^32 or 2^64: the first value past D's range.
    constexpr double kEnd = 2.0 * static_cast<double>(std::numeric_limits<D>::max() / 2 + 1);
    return v >= 0 && v < kEnd ? static_cast<D>(v) : D(0);
  } else {
    const double v = static_cast<double>(x);
    constexpr double kLowest = static_cast<double>(std::numeric_limits<D>::lowest());
    if (!(v >= kLowest && v < -kLowest)) return std::numeric_limits<D>::lowest();
    return static_cast<D>(v);
  }
}

template <typename Src>
class CastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("DstT", &dst_));
    switch (dst_) {
      case DT_FLOAT: case DT_DOUBLE: case DT_INT32: case DT_INT64: case DT_BOOL:
      case DT_UINT8: case DT_HALF: case DT_BFLOAT16: case DT_UINT32: case DT_UINT64:
      case DT_COMPLEX64: case DT_COMPLEX128:
        return absl::OkStatus();
      default:
        return NoKernelForType(c, dst_);
    }
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dtype() == dst_) {
      ctx->set_output(0, x);
      return absl::OkStatus();
    }
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    switch (dst_) {
#define MG_CASE(D)                                              \
  case DataTypeToEnum<D>::value:                                \
    Convert(ctx, x.data<Src>(), y->data<D>(), x.NumElements()); \
    break;
      MG_CASE(float) MG_CASE(double) MG_CASE(int32_t) MG_CASE(int64_t) MG_CASE(bool)
      MG_CASE(uint8_t) MG_CASE(half) MG_CASE(bfloat16) MG_CASE(uint32_t) MG_CASE(uint64_t)
      MG_CASE(complex64) MG_CASE(complex128)
#undef MG_CASE
      default:
        break;
    }
    return absl::OkStatus();
  }

 private:
  // y[i] = x[i] as D, as Eigen's cast converts (so 16-bit floats too). A
  // complex number to a real type (bool too) is its real part's, as
  // TensorFlow's Cast; a real one to complex has no imaginary part.
  template <typename D>
  static void Convert(const OpKernelContext* ctx, const Src* __restrict x, D* __restrict y,
                      int64_t n) {
    ctx->ParallelFor(n, sizeof(Src), sizeof(D), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        if constexpr (kIsComplex<Src> && kIsComplex<D>) {
          y[i] = D(x[i]);
        } else if constexpr (kIsComplex<Src>) {
          y[i] = ConvertReal<D>(x[i].real());
        } else if constexpr (kIsComplex<D>) {
          y[i] = D(ConvertReal<typename D::value_type>(x[i]));
        } else {
          y[i] = ConvertReal<D>(x[i]);
        }
      }
    });
  }

  // One real value of type S as D.
  template <typename D, typename S>
  static D ConvertReal(S v) {
    if constexpr (std::is_same_v<S, bfloat16> && std::is_same_v<D, bool>) {
      // Any nonzero bit pattern, as TensorFlow's (a denormal is true,
      // though it reads as zero once widened to a flushed float).
      return (Eigen::numext::bit_cast<uint16_t>(v) & 0x7fff) != 0;
    } else if constexpr (kWraps<D> && !kWraps<S> && !std::is_same_v<S, bool>) {
      return FloatToInt<D>(v);
    } else {
      return Eigen::internal::cast<S, D>(v);
    }
  }

  DataType dst_;
};

class PackOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs();
    const TensorShape& s = ctx->input(0).shape();
    for (int i = 1; i < n; ++i) {
      if (ctx->input(i).shape() != s) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Pack inputs must have the same shape: input 0 is ", s.DebugString(), ", input ", i,
            " is ", ctx->input(i).shape().DebugString()));
      }
    }
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(axis_, s.dims() + 1, "Pack"));
    std::vector<int64_t> dims(s.dim_sizes().begin(), s.dim_sizes().end());
    dims.insert(dims.begin() + axis, n);
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t outer = Product(s.dim_sizes(), 0, static_cast<int>(axis));
    const int64_t inner = Product(s.dim_sizes(), static_cast<int>(axis), s.dims());
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n; ++i) {
        CopyElements(ctx->input(i), o * inner, out, (o * n + i) * inner, inner);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

// Concat (axis first) and ConcatV2 (axis last).
class ConcatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    axis_first_ = c->def().op() == "Concat";
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs() - 1;
    const int first = axis_first_ ? 1 : 0;
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, IntsFromTensor(axis_t, "Concat axis"));
    if (axis_v.size() != 1) return absl::InvalidArgumentError("Concat axis must be a scalar");
    const Tensor& x0 = ctx->input(first);
    const int rank = x0.dims();
    if (rank == 0) return absl::InvalidArgumentError("Concat of scalars is not possible; use Pack");
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(axis_v[0], rank, "Concat"));
    std::vector<int64_t> dims(x0.shape().dim_sizes().begin(), x0.shape().dim_sizes().end());
    dims[axis] = 0;
    for (int i = first; i < first + n; ++i) {
      const Tensor& x = ctx->input(i);
      bool ok = x.dims() == rank;
      for (int d = 0; ok && d < rank; ++d) ok = d == axis || x.dim_size(d) == x0.dim_size(d);
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Concat inputs must match in all dimensions but ", axis, ": ",
            x0.shape().DebugString(), " vs ", x.shape().DebugString()));
      }
      dims[axis] += x.dim_size(axis);
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t outer = Product(x0.shape().dim_sizes(), 0, static_cast<int>(axis));
    const int64_t out_row = out_shape.num_elements() / std::max<int64_t>(outer, 1);
    int64_t col = 0;
    for (int i = first; i < first + n; ++i) {
      const Tensor& x = ctx->input(i);
      const int64_t row = outer == 0 ? 0 : x.NumElements() / outer;
      for (int64_t o = 0; o < outer; ++o) CopyElements(x, o * row, out, o * out_row + col, row);
      col += row;
    }
    return absl::OkStatus();
  }

 private:
  bool axis_first_ = false;
};

// Gather (axis 0), GatherV2 (axis input, batch_dims) and ResourceGather
// (axis 0 of a resource variable's value, batch_dims). With batch_dims b,
// params and indices share their first b dimensions and each batch gathers
// from its own params: out[batch, outer, i, inner] =
// params[batch, outer, indices[batch, i], inner].
template <typename Index>
class GatherOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    v2_ = c->def().op() == "GatherV2";
    resource_ = c->def().op() == "ResourceGather";
    if (resource_) MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    if (v2_ || resource_) MG_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims_));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    Tensor snapshot;
    if (resource_) {
      MG_ASSIGN_OR_RETURN(snapshot, ctx->read_variable(0, dtype_));
    }
    const Tensor& params = resource_ ? snapshot : ctx->input(0);
    const Tensor& indices = ctx->input(1);
    int64_t axis = 0;
    if (v2_) {
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> a, IntsFromTensor(ctx->input(2), "Gather axis"));
      if (a.size() != 1) return absl::InvalidArgumentError("Gather axis must be a scalar");
      axis = a[0];
    }
    if (params.dims() == 0) return absl::InvalidArgumentError("Gather params must be at least 1-D");
    int64_t b = batch_dims_ < 0 ? batch_dims_ + indices.dims() : batch_dims_;
    if (resource_ && b != 0) axis = b;  // ResourceGather gathers right after the batch dims
    MG_ASSIGN_OR_RETURN(axis, CanonicalAxis(axis, params.dims(), "Gather"));
    if (b < 0 || b > axis || b > indices.dims()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Gather batch_dims ", batch_dims_, " must be in [0, min(axis ", axis,
          ", rank of indices ", indices.dims(), ")]"));
    }
    for (int d = 0; d < b; ++d) {
      if (params.dim_size(d) != indices.dim_size(d)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Gather params.shape[", d, "] = ", params.dim_size(d), " should equal indices.shape[",
            d, "] = ", indices.dim_size(d), " (batch_dims ", b, ")"));
      }
    }
    auto pd = params.shape().dim_sizes();
    const auto id = indices.shape().dim_sizes();
    std::vector<int64_t> dims(pd.begin(), pd.begin() + axis);
    dims.insert(dims.end(), id.begin() + b, id.end());
    dims.insert(dims.end(), pd.begin() + axis + 1, pd.end());
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t batches = Product(pd, 0, static_cast<int>(b));
    const int64_t outer = Product(pd, static_cast<int>(b), static_cast<int>(axis));
    const int64_t limit = pd[axis];
    const int64_t inner = Product(pd, static_cast<int>(axis) + 1, params.dims());
    const int64_t n = batches == 0 ? 0 : indices.NumElements() / batches;  // per batch
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < indices.NumElements(); ++i) {
      if (idx[i] < 0 || idx[i] >= limit) {
        return absl::InvalidArgumentError(absl::StrCat("indices[", i, "] = ", idx[i],
                                                       " is not in [0, ", limit, ")"));
      }
    }
    for (int64_t bi = 0; bi < batches; ++bi) {
      const Index* batch_idx = idx + bi * n;
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t row = bi * outer + o;
        for (int64_t i = 0; i < n; ++i) {
          CopyElements(params, (row * limit + batch_idx[i]) * inner, out, (row * n + i) * inner,
                       inner);
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool v2_ = false;
  bool resource_ = false;
  int64_t batch_dims_ = 0;
  DataType dtype_ = DT_INVALID;
};

// o[i] = c[i] ? t[i] : e[i] for i < n: numbers on the step's intra-op
// threads, in a loop the compiler vectorizes; strings in order.
template <typename T>
void SelectElements(const OpKernelContext* ctx, const bool* c, const T* t, const T* e, T* o,
                    int64_t n) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    ctx->ParallelFor(n, 2 * sizeof(T) + 1, sizeof(T), 1, [&](int64_t begin, int64_t end) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) o[i] = c[i] ? t[i] : e[i];
    });
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = c[i] ? t[i] : e[i];
  }
}

template <typename T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    if (t.shape() != e.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("Select branches must have the same shape: ",
                                                     t.shape().DebugString(), " vs ",
                                                     e.shape().DebugString()));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, t.shape(), &out));
    if (cond.shape() == t.shape()) {
      SelectElements(ctx, cond.data<bool>(), t.data<T>(), e.data<T>(), out->data<T>(),
                     out->NumElements());
    } else if (cond.dims() == 0) {
      ctx->set_output(0, *cond.data<bool>() ? t : e);
    } else if (cond.dims() == 1 && t.dims() >= 1 && cond.dim_size(0) == t.dim_size(0)) {
      const int64_t rows = t.dim_size(0);
      const int64_t row = rows == 0 ? 0 : t.NumElements() / rows;
      for (int64_t r = 0; r < rows; ++r) {
        CopyElements(cond.data<bool>()[r] ? t : e, r * row, out, r * row, row);
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Select condition of shape ", cond.shape().DebugString(),
          " must be a scalar, match the branches' shape ", t.shape().DebugString(),
          ", or be a vector of their first dimension"));
    }
    return absl::OkStatus();
  }
};

// Writes `in` broadcast by `b` (BCast::Make(in.shape(), out->shape())) into
// `out`, allocated with b's output shape.
void BroadcastInto(const Tensor& in, const BCast& b, Tensor* out) {
  if (out->NumElements() == 0) return;
  // Over BCast's merged dimensions: the input's stride is 0 along each
  // broadcast one. Rows of the last dimension are copied whole when it is
  // not broadcast, else its one element is repeated.
  const BCast::Vec& dims = b.x_reshape();
  const BCast::Vec& reps = b.x_bcast();
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> out_dims(rank), in_stride(rank);
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    out_dims[d] = dims[d] * reps[d];
    in_stride[d] = reps[d] > 1 ? 0 : stride;
    stride *= dims[d];
  }
  const int64_t row = out_dims[rank - 1];
  const bool repeat = in_stride[rank - 1] == 0;
  std::vector<int64_t> at(rank, 0);
  for (int64_t o = 0; o < out->NumElements(); o += row) {
    int64_t src = 0;
    for (int d = 0; d < rank - 1; ++d) src += at[d] * in_stride[d];
    if (repeat) {
      for (int64_t j = 0; j < row; ++j) CopyElements(in, src, out, o + j, 1);
    } else {
      CopyElements(in, src, out, o, row);
    }
    for (int d = rank - 2; d >= 0 && ++at[d] == out_dims[d]; --d) at[d] = 0;
  }
}

// SelectV2: condition, then and else broadcast together (numpy's where).
template <typename T>
class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    absl::StatusOr<BCast> te = BCast::Make(t.shape(), e.shape());
    absl::StatusOr<BCast> all =
        te.ok() ? BCast::Make(cond.shape(), te->output_shape()) : te.status();
    if (!all.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("condition ", cond.shape().DebugString(), ", then ", t.shape().DebugString(),
                       ", and else ", e.shape().DebugString(), " must be broadcastable"));
    }
    const TensorShape& shape = all->output_shape();
    std::vector<Tensor> expanded;
    auto expand = [&](const Tensor& x) -> absl::StatusOr<const Tensor*> {
      if (x.shape() == shape) return &x;
      MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(x.shape(), shape));
      MG_ASSIGN_OR_RETURN(Tensor tmp, ctx->allocate_temp(x.dtype(), shape));
      BroadcastInto(x, b, &tmp);
      expanded.push_back(std::move(tmp));
      return &expanded.back();
    };
    expanded.reserve(3);
    MG_ASSIGN_OR_RETURN(const Tensor* c, expand(cond));
    MG_ASSIGN_OR_RETURN(const Tensor* tt, expand(t));
    MG_ASSIGN_OR_RETURN(const Tensor* ee, expand(e));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    SelectElements(ctx, c->data<bool>(), tt->data<T>(), ee->data<T>(), out->data<T>(),
                   out->NumElements());
    return absl::OkStatus();
  }
};

// ConcatOffset: where each input of a Concat starts in its output (the
// Concat gradient's slice offsets).
template <typename Index>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axis_v, IntsFromTensor(ctx->input(0), "concat_dim"));
    if (axis_v.size() != 1) return absl::InvalidArgumentError("concat_dim must be a scalar");
    const int n = ctx->num_inputs() - 1;
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> first, IntsFromTensor(ctx->input(1), "shape"));
    const int rank = static_cast<int>(first.size());
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(axis_v[0], rank, "ConcatOffset"));
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      MG_ASSIGN_OR_RETURN(std::vector<int64_t> shape, IntsFromTensor(ctx->input(1 + i), "shape"));
      if (static_cast<int>(shape.size()) != rank) {
        return absl::InvalidArgumentError(absl::StrCat("input ", i, " should contain ", rank,
                                                       " elements, but got ", shape.size()));
      }
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(i, TensorShape({rank}), &out));
      for (int d = 0; d < rank; ++d) {
        if (shape[d] < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("ConcatOffset: input ", i, " has a negative size ", shape[d]));
        }
        if (d == axis) {
          out->data<Index>()[d] = static_cast<Index>(offset);
          if (__builtin_add_overflow(offset, shape[d], &offset)) {
            return absl::InvalidArgumentError(
                "ConcatOffset: the inputs' sizes along concat_dim add up past 2^63");
          }
        } else if (shape[d] != first[d]) {
          return absl::InvalidArgumentError(
              absl::StrCat("input[", i, ",", d, "] mismatch: ", first[d], " vs. ", shape[d]));
        } else {
          out->data<Index>()[d] = 0;
        }
      }
    }
    return absl::OkStatus();
  }
};

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dims() == 0) {
      return absl::InvalidArgumentError(
          "Where needs an input of rank 1 or more, as TensorFlow's (got a scalar)");
    }
    const T* p = x.data<T>();
    int64_t count = 0;
    for (int64_t i = 0; i < x.NumElements(); ++i) count += p[i] != T(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({count, x.dims()}), &out));
    int64_t* o = out->data<int64_t>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      if (p[i] == T(0)) continue;
      int64_t rem = i;
      for (int d = x.dims() - 1; d >= 0; --d) {
        o[d] = rem % x.dim_size(d);
        rem /= x.dim_size(d);
      }
      o += x.dims();
    }
    return absl::OkStatus();
  }
};

template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape s0, ShapeFromTensor(ctx->input(0), "s0"));
    MG_ASSIGN_OR_RETURN(TensorShape s1, ShapeFromTensor(ctx->input(1), "s1"));
    MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(s0, s1));
    for (int k = 0; k < 2; ++k) {
      const BCast::Vec& v = k == 0 ? b.grad_x_reduce_idx() : b.grad_y_reduce_idx();
      Tensor* out;
      MG_RETURN_IF_ERROR(
          ctx->allocate_output(k, TensorShape({static_cast<int64_t>(v.size())}), &out));
      for (size_t i = 0; i < v.size(); ++i) out->data<T>()[i] = static_cast<T>(v[i]);
    }
    return absl::OkStatus();
  }
};

class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    MG_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromTensor(ctx->input(1), "BroadcastTo shape"));
    absl::StatusOr<BCast> b = BCast::Make(in.shape(), shape);
    if (!b.ok() || b->output_shape() != shape) {
      return absl::InvalidArgumentError(absl::StrCat("Unable to broadcast tensor of shape ",
                                                     in.shape().DebugString(),
                                                     " to tensor of shape ", shape.DebugString()));
    }
    if (in.shape() == shape) {
      ctx->set_output(0, in);
      return absl::OkStatus();
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    BroadcastInto(in, *b, out);
    return absl::OkStatus();
  }
};

// outputs[p] = the rows data[i, ...] whose partitions[i] is p, in order,
// where i runs over partitions' elements (a prefix of data's dimensions).
class DynamicPartitionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("num_partitions", &n_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    const auto data_dims = data.shape().dim_sizes();
    const auto part_dims = partitions.shape().dim_sizes();
    if (data.dims() < partitions.dims() ||
        !std::equal(part_dims.begin(), part_dims.end(), data_dims.begin())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DynamicPartition '", name(), "': data.shape must start with partitions.shape, got ",
          "data.shape = ", data.shape().DebugString(),
          ", partitions.shape = ", partitions.shape().DebugString()));
    }
    const int32_t* p = partitions.data<int32_t>();
    const int64_t count = partitions.NumElements();
    std::vector<int64_t> sizes(n_, 0);
    for (int64_t i = 0; i < count; ++i) {
      if (p[i] < 0 || p[i] >= n_) {
        // TensorFlow's message.
        return absl::InvalidArgumentError(absl::StrCat("DynamicPartition '", name(),
                                                       "': partitions[", i, "] = ", p[i],
                                                       " is not in [0, ", n_, ")"));
      }
      ++sizes[p[i]];
    }
    const std::vector<int64_t> inner(data_dims.begin() + partitions.dims(), data_dims.end());
    const int64_t row = Product(inner, 0, static_cast<int>(inner.size()));
    std::vector<Tensor*> outs(n_);
    for (int64_t k = 0; k < n_; ++k) {
      std::vector<int64_t> dims = {sizes[k]};
      dims.insert(dims.end(), inner.begin(), inner.end());
      MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
      MG_RETURN_IF_ERROR(ctx->allocate_output(static_cast<int>(k), shape, &outs[k]));
    }
    std::vector<int64_t> next(n_, 0);
    for (int64_t i = 0; i < count; ++i) {
      CopyElements(data, i * row, outs[p[i]], next[p[i]]++ * row, row);
    }
    return absl::OkStatus();
  }

 private:
  int64_t n_ = 1;
};

// merged[indices[m][i], ...] = data[m][i, ...], later entries winning;
// rows no index names are zero.
class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs() / 2;
    const Tensor& idx0 = ctx->input(0);
    const Tensor& data0 = ctx->input(n);
    if (data0.dims() < idx0.dims()) {
      return absl::InvalidArgumentError("DynamicStitch: data[0] has lower rank than indices[0]");
    }
    std::vector<int64_t> inner(data0.shape().dim_sizes().begin() + idx0.dims(),
                               data0.shape().dim_sizes().end());
    int64_t max_index = -1;
    for (int m = 0; m < n; ++m) {
      const Tensor& idx = ctx->input(m);
      const Tensor& data = ctx->input(n + m);
      std::vector<int64_t> want(idx.shape().dim_sizes().begin(), idx.shape().dim_sizes().end());
      want.insert(want.end(), inner.begin(), inner.end());
      if (std::vector<int64_t>(data.shape().dim_sizes().begin(), data.shape().dim_sizes().end()) !=
          want) {
        return absl::InvalidArgumentError(absl::StrCat(
            "DynamicStitch: data[", m, "].shape = ", data.shape().DebugString(),
            " does not start with indices[", m, "].shape = ", idx.shape().DebugString(),
            " followed by the shape of data[0]'s rows"));
      }
      for (int64_t i = 0; i < idx.NumElements(); ++i) {
        const int32_t v = idx.data<int32_t>()[i];
        if (v < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("DynamicStitch: indices[", m, "][", i, "] = ", v, " is negative"));
        }
        max_index = std::max<int64_t>(max_index, v);
      }
    }
    std::vector<int64_t> dims = {max_index + 1};
    dims.insert(dims.end(), inner.begin(), inner.end());
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (DataTypeCanUseMemcpy(out->dtype()) && out->TotalBytes() > 0) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
    }
    const int64_t row = Product(inner, 0, static_cast<int>(inner.size()));
    for (int m = 0; m < n; ++m) {
      const Tensor& idx = ctx->input(m);
      for (int64_t i = 0; i < idx.NumElements(); ++i) {
        CopyElements(ctx->input(n + m), i * row, out, idx.data<int32_t>()[i] * row, row);
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterArrayKernels(KernelRegistry* r) {
  r->Register("Const", MakeFactory<ConstOp>());
  r->Register("Placeholder", MakeFactory<PlaceholderOp>());
  r->Register("PlaceholderV2", MakeFactory<PlaceholderOp>());
  r->Register("EnsureShape", MakeFactory<EnsureShapeOp>());
  r->Register("BroadcastArgs", TypedFactory<BroadcastArgsOp, int32_t, int64_t>());
  r->Register("Bitcast", MakeFactory<BitcastOp>());
  for (const char* op :
       {"Identity", "StopGradient", "Snapshot", "PlaceholderWithDefault", "PreventGradient"}) {
    r->Register(op, MakeFactory<ForwardOp>());
  }
  r->Register("IdentityN", MakeFactory<ForwardAllOp>());
  r->Register("NoOp", MakeFactory<NoOp>());
  r->Register("Empty", TypedFactory<EmptyOp, float, double, int32_t, int64_t, bool, complex64,
                                    complex128, std::string>("dtype"));
  r->Register("Fill", TypedFactory<FillOp, float, double, int32_t, int64_t, bool, complex64,
                                      complex128>());
  r->Register(
      "ZerosLike",
      [numeric = TypedFactory<ConstantLike<0>::Op, float, double, int32_t, int64_t, bool,
                              complex64, complex128>()](
          OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
        DataType dt;
        MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
        return dt == DT_VARIANT ? MakeZerosLikeListKernel(c) : numeric(c);
      });
  r->Register("OnesLike",
              TypedFactory<ConstantLike<1>::Op, float, double, int32_t, int64_t, bool, complex64,
                           complex128>());
  r->Register("Shape", TypedFactory<ShapeOp, int32_t, int64_t>("out_type"));
  r->Register("Size", TypedFactory<SizeOp, int32_t, int64_t>("out_type"));
  r->Register("Rank", MakeFactory<RankOp>());
  r->Register("Reshape", MakeFactory<ReshapeOp>());
  r->Register("Cast", TypedFactory<CastOp, float, double, int32_t, int64_t, bool, uint8_t, half,
                                   bfloat16, uint32_t, uint64_t, complex64, complex128>("SrcT"));
  r->Register("Pack", MakeFactory<PackOp>());
  r->Register("Concat", MakeFactory<ConcatOp>());
  r->Register("ConcatV2", MakeFactory<ConcatOp>());
  auto gather = TypedFactory<GatherOp, int32_t, int64_t>("Tindices");
  r->Register("Gather", gather);
  r->Register("GatherV2", gather);
  r->Register("ResourceGather", gather);
  r->Register("BroadcastTo", MakeFactory<BroadcastToOp>());
  r->Register("DynamicPartition", MakeFactory<DynamicPartitionOp>());
  r->Register("DynamicStitch", MakeFactory<DynamicStitchOp>());
  r->Register("ParallelDynamicStitch", MakeFactory<DynamicStitchOp>());
  r->Register("Select",
              TypedFactory<SelectOp, float, double, int32_t, int64_t, bool, std::string>());
  r->Register("SelectV2",
              TypedFactory<SelectV2Op, float, double, int32_t, int64_t, bool, std::string>());
  r->Register("ConcatOffset", TypedFactory<ConcatOffsetOp, int32_t, int64_t>("shape_type"));
  r->Register("Where", TypedFactory<WhereOp, bool, float, double, int32_t, int64_t>());
  r->Register("BroadcastGradientArgs",
              TypedFactory<BroadcastGradientArgsOp, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
