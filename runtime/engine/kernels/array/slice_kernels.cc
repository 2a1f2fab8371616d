// Kernels that move elements without computing on them: ExpandDims,
// Squeeze, Transpose, Slice, StridedSlice (and its gradient), Tile, Pad,
// ReverseV2, Split, SplitV, Unpack, ShapeN; and the small generators Range,
// OneHot and InvertPermutation. The copies go through CopyStrided
// (internal/strided_copy.h), one loop for every dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/strided_copy.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/graph/strided_slice.h"

namespace minigraph {
namespace kernels_internal {
namespace {

std::vector<int64_t> Dims(const TensorShape& s) {
  return std::vector<int64_t>(s.dim_sizes().begin(), s.dim_sizes().end());
}

absl::Status Invalid(const OpKernel& k, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(k.type_string(), " '", k.name(), "': ", what));
}

// Fills `t` with the value of the scalar `value` (same dtype).
void FillWith(const Tensor& value, Tensor* t) {
  StridedBlock b;
  b.dims = {t->NumElements()};
  b.src_strides = {0};
  b.dst_strides = {1};
  CopyStrided(value, t, b);
}

// A scalar zero (empty string, ...) of `dtype`.
Tensor Zero(DataType dtype) {
  Tensor z(dtype, TensorShape());
  if (DataTypeCanUseMemcpy(dtype)) std::memset(z.raw_data(), 0, DataTypeSize(dtype));
  return z;
}

// Copies `src` whole into the block of `dst` that starts at `offset` (one
// per dim) with `step`s (one per dim; negative reverses).
void CopyInto(const Tensor& src, Tensor* dst, const std::vector<int64_t>& offset,
              const std::vector<int64_t>& step) {
  StridedBlock b;
  b.dims = Dims(src.shape());
  b.src_strides = RowMajorStrides(src.shape());
  const std::vector<int64_t> ds = RowMajorStrides(dst->shape());
  for (size_t i = 0; i < ds.size(); ++i) {
    b.dst_offset += offset[i] * ds[i];
    b.dst_strides.push_back(step[i] * ds[i]);
  }
  CopyStrided(src, dst, b);
}

// Copies the block of `src` that starts at `offset` with `step`s, shaped
// like `dst`, into `dst`.
void CopyFrom(const Tensor& src, const std::vector<int64_t>& offset,
              const std::vector<int64_t>& step, Tensor* dst) {
  StridedBlock b;
  b.dims = Dims(dst->shape());
  b.dst_strides = RowMajorStrides(dst->shape());
  const std::vector<int64_t> ss = RowMajorStrides(src.shape());
  for (size_t i = 0; i < ss.size(); ++i) {
    b.src_offset += offset[i] * ss[i];
    b.src_strides.push_back(step[i] * ss[i]);
  }
  CopyStrided(src, dst, b);
}

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axis, IntsFromTensor(ctx->input(1), "ExpandDims dim"));
    if (axis.size() != 1) {
      return Invalid(*this,
                     absl::StrCat("'dim' must be a tensor with a single value, got ", axis.size()));
    }
    const int rank = x.dims();
    int64_t a = axis[0];
    if (a < -rank - 1 || a > rank) {
      return Invalid(*this, absl::StrCat("Tried to expand dim index ", a, " for tensor with ", rank,
                                         " dimensions."));
    }
    if (a < 0) a += rank + 1;
    std::vector<int64_t> dims = Dims(x.shape());
    dims.insert(dims.begin() + a, 1);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    MG_ASSIGN_OR_RETURN(Tensor y, x.Reshaped(shape));
    ctx->set_output(0, std::move(y));
    return absl::OkStatus();
  }
};

class SqueezeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("squeeze_dims", &axes_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const int rank = x.dims();
    std::vector<bool> drop(rank, axes_.empty());
    if (axes_.empty()) {
      for (int i = 0; i < rank; ++i) drop[i] = x.dim_size(i) == 1;
    }
    for (int64_t a : axes_) {
      if (a < -rank || a >= rank) {
        return Invalid(*this, absl::StrCat("Tried to squeeze dim index ", a, " for tensor with ",
                                           rank, " dimensions."));
      }
      if (a < 0) a += rank;
      if (x.dim_size(a) != 1) {
        return Invalid(*this, absl::StrCat("Can not squeeze dim[", a,
                                           "], expected a dimension of 1, got ", x.dim_size(a)));
      }
      drop[a] = true;
    }
    std::vector<int64_t> dims;
    for (int i = 0; i < rank; ++i) {
      if (!drop[i]) dims.push_back(x.dim_size(i));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    MG_ASSIGN_OR_RETURN(Tensor y, x.Reshaped(shape));
    ctx->set_output(0, std::move(y));
    return absl::OkStatus();
  }

 private:
  std::vector<int64_t> axes_;
};

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> perm, IntsFromTensor(ctx->input(1), "perm"));
    const int rank = x.dims();
    if (static_cast<int>(perm.size()) != rank) {
      return Invalid(*this, absl::StrCat("transpose expects a vector of size ", rank,
                                         ". But input(1) is a vector of size ", perm.size()));
    }
    std::vector<bool> seen(rank, false);
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[p]) {
        return Invalid(*this, absl::StrCat("[", absl::StrJoin(perm, ","),
                                           "] is not a valid permutation of ", rank, " dims"));
      }
      seen[p] = true;
    }
    std::vector<int64_t> dims(rank);
    const std::vector<int64_t> xs = RowMajorStrides(x.shape());
    StridedBlock b;
    for (int i = 0; i < rank; ++i) {
      dims[i] = x.dim_size(perm[i]);
      b.src_strides.push_back(xs[perm[i]]);
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    b.dims = dims;
    b.dst_strides = RowMajorStrides(shape);
    CopyStrided(x, y, b);
    return absl::OkStatus();
  }
};

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dims() != 1) return Invalid(*this, "invert_permutation expects a 1D vector.");
    const int64_t n = x.NumElements();
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    std::fill_n(y->data<T>(), n, T(-1));
    for (int64_t i = 0; i < n; ++i) {
      const T d = x.data<T>()[i];
      if (d < 0 || d >= n) return Invalid(*this, absl::StrCat(d, " is not between 0 and ", n));
      if (y->data<T>()[d] != -1)
        return Invalid(*this, absl::StrCat(d, " is duplicated in the input."));
      y->data<T>()[d] = static_cast<T>(i);
    }
    return absl::OkStatus();
  }
};

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> begin, IntsFromTensor(ctx->input(1), "Slice begin"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> size, IntsFromTensor(ctx->input(2), "Slice size"));
    const int rank = x.dims();
    if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
      return Invalid(*this, absl::StrCat("Expected begin and size arguments to be 1-D tensors of "
                                         "size ",
                                         rank, ", but got shapes [", begin.size(), "] and [",
                                         size.size(), "] instead."));
    }
    for (int i = 0; i < rank; ++i) {
      const int64_t d = x.dim_size(i);
      if (size[i] == -1) size[i] = d - begin[i];
      if (begin[i] < 0 || begin[i] > d) {
        return Invalid(*this,
                       absl::StrCat("Expected begin[", i, "] in [0, ", d, "], but got ", begin[i]));
      }
      if (size[i] < 0 || begin[i] + size[i] > d) {
        return Invalid(*this, absl::StrCat("Expected size[", i, "] in [0, ", d - begin[i],
                                           "], but got ", size[i]));
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(size));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    CopyFrom(x, begin, std::vector<int64_t>(rank, 1), y);
    return absl::OkStatus();
  }
};

// StridedSlice and StridedSliceGrad: the masks, and the slice resolved
// against a shape.
class StridedSliceBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("begin_mask", &masks_.begin));
    MG_RETURN_IF_ERROR(c->GetAttr("end_mask", &masks_.end));
    MG_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &masks_.ellipsis));
    MG_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &masks_.new_axis));
    return c->GetAttr("shrink_axis_mask", &masks_.shrink_axis);
  }

 protected:
  // Inputs begin, end, strides at `first`.
  absl::StatusOr<StridedSlice> Resolve(OpKernelContext* ctx, const TensorShape& shape,
                                       int first) const {
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> begin, IntsFromTensor(ctx->input(first), "begin"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> end, IntsFromTensor(ctx->input(first + 1), "end"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                        IntsFromTensor(ctx->input(first + 2), "strides"));
    absl::StatusOr<StridedSlice> s = ResolveStridedSlice(Dims(shape), begin, end, strides, masks_);
    if (!s.ok()) return Invalid(*this, s.status().message());
    return s;
  }
  // The block of the input the slice reads: its (processing) dims,
  // per-dim offsets and steps.
  static StridedBlock Block(const StridedSlice& s, const TensorShape& input) {
    StridedBlock b;
    const std::vector<int64_t> xs = RowMajorStrides(input);
    b.dims = s.size;
    for (size_t i = 0; i < xs.size(); ++i) {
      b.src_offset += s.begin[i] * xs[i];
      b.src_strides.push_back(s.stride[i] * xs[i]);
    }
    TensorShape processing;
    for (int64_t d : s.size) processing.AddDim(d);
    b.dst_strides = RowMajorStrides(processing);
    return b;
  }

  StridedSliceMasks masks_;
};

class StridedSliceOp : public StridedSliceBase {
 public:
  using StridedSliceBase::StridedSliceBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(StridedSlice s, Resolve(ctx, x.shape(), 1));
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(s.output_dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    CopyStrided(x, y, Block(s, x.shape()));
    return absl::OkStatus();
  }
};

// dy of the slice's output, scattered into zeros shaped like the input.
class StridedSliceGradOp : public StridedSliceBase {
 public:
  using StridedSliceBase::StridedSliceBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(TensorShape shape,
                        ShapeFromTensor(ctx->input(0), "StridedSliceGrad shape"));
    const Tensor& dy = ctx->input(4);
    MG_ASSIGN_OR_RETURN(StridedSlice s, Resolve(ctx, shape, 1));
    MG_ASSIGN_OR_RETURN(TensorShape want, TensorShape::Build(s.output_dims));
    if (dy.shape() != want) {
      return Invalid(*this, absl::StrCat("shape of dy was ", dy.shape().DebugString(),
                                         " instead of ", want.DebugString()));
    }
    Tensor* dx;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &dx));
    FillWith(Zero(dx->dtype()), dx);
    StridedBlock b = Block(s, shape);
    std::swap(b.src_strides, b.dst_strides);
    std::swap(b.src_offset, b.dst_offset);
    CopyStrided(dy, dx, b);
    return absl::OkStatus();
  }
};

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> m, IntsFromTensor(ctx->input(1), "multiples"));
    const int rank = x.dims();
    if (static_cast<int>(m.size()) != rank) {
      return Invalid(*this, absl::StrCat("Expected multiples argument to be a vector of length ",
                                         rank, " but got length ", m.size()));
    }
    std::vector<int64_t> dims(rank);
    for (int i = 0; i < rank; ++i) {
      if (m[i] < 0) {
        return Invalid(*this, absl::StrCat("Expected multiples[", i, "] >= 0, but got ", m[i]));
      }
      dims[i] = x.dim_size(i) * m[i];
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    // The output as [m0, d0, m1, d1, ...]: each (m_i) index repeats the
    // input (stride 0), each (d_i) index walks it.
    const std::vector<int64_t> xs = RowMajorStrides(x.shape()), ys = RowMajorStrides(shape);
    StridedBlock b;
    for (int i = 0; i < rank; ++i) {
      b.dims.insert(b.dims.end(), {m[i], x.dim_size(i)});
      b.src_strides.insert(b.src_strides.end(), {0, xs[i]});
      b.dst_strides.insert(b.dst_strides.end(), {x.dim_size(i) * ys[i], ys[i]});
    }
    CopyStrided(x, y, b);
    return absl::OkStatus();
  }
};

// Pad (zeros) and PadV2 (constant_values).
class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& p = ctx->input(1);
    const int rank = x.dims();
    if (p.dims() != 2 || p.dim_size(0) != rank || p.dim_size(1) != 2) {
      return Invalid(*this, absl::StrCat("paddings must be a matrix with 2 columns and ", rank,
                                         " rows: ", p.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(Tensor flat, p.Reshaped(TensorShape({2 * rank})));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> pads, IntsFromTensor(flat, "paddings"));
    std::vector<int64_t> dims(rank), before(rank);
    for (int i = 0; i < rank; ++i) {
      before[i] = pads[2 * i];
      if (pads[2 * i] < 0 || pads[2 * i + 1] < 0) {
        return Invalid(*this, absl::StrCat("Paddings must be non-negative: ", pads[2 * i], " ",
                                           pads[2 * i + 1]));
      }
      dims[i] = x.dim_size(i) + pads[2 * i] + pads[2 * i + 1];
    }
    Tensor value = Zero(x.dtype());
    if (ctx->num_inputs() > 2) {
      value = ctx->input(2);
      if (value.NumElements() != 1) {
        return Invalid(*this, absl::StrCat("constant_values must be a scalar. Found: ",
                                           value.shape().DebugString()));
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    FillWith(value, y);
    CopyInto(x, y, before, std::vector<int64_t>(rank, 1));
    return absl::OkStatus();
  }
};

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsFromTensor(ctx->input(1), "axis"));
    const int rank = x.dims();
    std::vector<int64_t> offset(rank, 0), step(rank, 1);
    for (int64_t a : axes) {
      MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(a, rank, "ReverseV2"));
      if (step[axis] == -1) {
        return Invalid(*this, absl::StrCat("axis ", axis, " specified more than once."));
      }
      step[axis] = -1;
      offset[axis] = std::max<int64_t>(x.dim_size(axis) - 1, 0);
    }
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &y));
    CopyFrom(x, offset, step, y);
    return absl::OkStatus();
  }
};

// Output i is the slice [starts[i], starts[i] + sizes[i]) of `x` along `axis`,
// with the axis kept (Split, SplitV) or dropped (Unpack).
absl::Status SliceAlong(OpKernelContext* ctx, const Tensor& x, int64_t axis,
                        const std::vector<int64_t>& sizes, bool drop_axis) {
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> dims = Dims(x.shape());
    dims[axis] = sizes[i];
    MG_ASSIGN_OR_RETURN(TensorShape piece, TensorShape::Build(dims));
    if (drop_axis) dims.erase(dims.begin() + axis);
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(static_cast<int>(i), out_shape, &y));
    MG_ASSIGN_OR_RETURN(Tensor view, y->Reshaped(piece));
    std::vector<int64_t> offset(x.dims(), 0);
    offset[axis] = start;
    CopyFrom(x, offset, std::vector<int64_t>(x.dims(), 1), &view);
    start += sizes[i];
  }
  return absl::OkStatus();
}

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> a, IntsFromTensor(ctx->input(0), "split_dim"));
    const Tensor& x = ctx->input(1);
    const int n = ctx->num_outputs();
    if (a.size() != 1) return Invalid(*this, "split_dim must be a scalar");
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(a[0], x.dims(), "Split"));
    const int64_t d = x.dim_size(axis);
    if (d % n != 0) {
      return Invalid(*this, absl::StrCat("Number of ways to split should evenly divide the split "
                                         "dimension, but got split_dim ",
                                         axis, " (size = ", d, ") and num_split ", n));
    }
    return SliceAlong(ctx, x, axis, std::vector<int64_t>(n, d / n), false);
  }
};

class SplitVOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IntsFromTensor(ctx->input(1), "size_splits"));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> a, IntsFromTensor(ctx->input(2), "split_dim"));
    if (a.size() != 1) return Invalid(*this, "split_dim must be a scalar");
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(a[0], x.dims(), "SplitV"));
    if (static_cast<int>(sizes.size()) != ctx->num_outputs()) {
      return Invalid(*this, absl::StrCat("size_splits has ", sizes.size(),
                                         " values but num_split is ", ctx->num_outputs()));
    }
    const int64_t d = x.dim_size(axis);
    int64_t known = 0;
    int unknown = -1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (sizes[i] < 0) {
        return Invalid(*this, "There can only be one -1 in the input, and sizes must be >= 0");
      } else {
        known += sizes[i];
      }
    }
    if (unknown >= 0) sizes[unknown] = d - known;
    if ((unknown >= 0 && known > d) || (unknown < 0 && known != d)) {
      return Invalid(*this, absl::StrCat("Determined shape must either match input shape along "
                                         "split_dim exactly if fully specified, or be less than "
                                         "the size of the input along split_dim if not fully "
                                         "specified.  Got: ",
                                         known));
    }
    return SliceAlong(ctx, x, axis, sizes, false);
  }
};

class UnpackOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("axis", &axis_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    MG_ASSIGN_OR_RETURN(int64_t axis, CanonicalAxis(axis_, x.dims(), "Unpack"));
    if (x.dim_size(axis) != ctx->num_outputs()) {
      return Invalid(*this,
                     absl::StrCat("Input shape axis ", axis, " must equal ", ctx->num_outputs(),
                                  ", got shape ", x.shape().DebugString()));
    }
    return SliceAlong(ctx, x, axis, std::vector<int64_t>(ctx->num_outputs(), 1), true);
  }

 private:
  int64_t axis_ = 0;
};

template <typename T>
class ShapeNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const TensorShape& s = ctx->input(i).shape();
      Tensor* y;
      MG_RETURN_IF_ERROR(ctx->allocate_output(i, TensorShape({s.dims()}), &y));
      for (int d = 0; d < s.dims(); ++d) y->data<T>()[d] = static_cast<T>(s.dim_size(d));
    }
    return absl::OkStatus();
  }
};

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    for (int i = 0; i < 3; ++i) {
      if (ctx->input(i).NumElements() != 1) {
        return Invalid(*this, absl::StrCat(i == 0   ? "start"
                                           : i == 1 ? "limit"
                                                    : "delta",
                                           " must be a scalar, not shape ",
                                           ctx->input(i).shape().DebugString()));
      }
    }
    const T start = ctx->input(0).data<T>()[0], limit = ctx->input(1).data<T>()[0],
            delta = ctx->input(2).data<T>()[0];
    if (delta == T(0)) return Invalid(*this, absl::StrCat("Requires delta != 0: ", delta));
    if (delta > T(0) && start > limit) {
      return Invalid(*this,
                     absl::StrCat("Requires start <= limit when delta > 0: ", start, "/", limit));
    }
    if (delta < T(0) && start < limit) {
      return Invalid(*this,
                     absl::StrCat("Requires start >= limit when delta < 0: ", start, "/", limit));
    }
    int64_t size;
    if constexpr (std::is_integral_v<T>) {
      const int64_t span = std::abs(static_cast<int64_t>(limit) - static_cast<int64_t>(start));
      const int64_t step = std::abs(static_cast<int64_t>(delta));
      size = (span + step - 1) / step;
    } else {
      size = static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
    }
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({size}), &y));
    T v = start;
    for (int64_t i = 0; i < size; ++i, v += delta) y->data<T>()[i] = v;
    return absl::OkStatus();
  }
};

template <typename T>
class OneHotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("axis", &axis_));
    return c->GetAttr("TI", &index_type_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    if (depth_t.NumElements() != 1) return Invalid(*this, "depth must be a scalar");
    const int64_t depth = depth_t.data<int32_t>()[0];
    if (depth < 0) return Invalid(*this, absl::StrCat("depth must be non-negative, got: ", depth));
    if (ctx->input(2).NumElements() != 1 || ctx->input(3).NumElements() != 1) {
      return Invalid(*this, "on_value and off_value must be scalars");
    }
    const T on = ctx->input(2).data<T>()[0], off = ctx->input(3).data<T>()[0];
    const int rank = indices.dims();
    if (axis_ < -1 || axis_ > rank) {
      return Invalid(*this, absl::StrCat("Expected axis to be -1 or between [0, ", rank,
                                         "].  But received: ", axis_));
    }
    const int64_t axis = axis_ == -1 ? rank : axis_;
    std::vector<int64_t> dims = Dims(indices.shape());
    dims.insert(dims.begin() + axis, depth);
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> idx, Indices(indices));
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= indices.dim_size(i);
    for (int i = axis; i < rank; ++i) inner *= indices.dim_size(i);
    T* out = y->data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t d = 0; d < depth; ++d) {
        for (int64_t i = 0; i < inner; ++i) {
          out[(o * depth + d) * inner + i] = idx[o * inner + i] == d ? on : off;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<std::vector<int64_t>> Indices(const Tensor& t) const {
    std::vector<int64_t> v(t.NumElements());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      switch (index_type_) {
        case DT_UINT8:
          v[i] = t.data<uint8_t>()[i];
          break;
        case DT_INT32:
          v[i] = t.data<int32_t>()[i];
          break;
        case DT_INT64:
          v[i] = t.data<int64_t>()[i];
          break;
        default:
          return Invalid(*this, "indices must be uint8, int32 or int64");
      }
    }
    return v;
  }
  int64_t axis_ = -1;
  DataType index_type_ = DT_INT64;
};

}  // namespace

void RegisterSliceKernels(KernelRegistry* r) {
  r->Register("ExpandDims", MakeFactory<ExpandDimsOp>());
  r->Register("Squeeze", MakeFactory<SqueezeOp>());
  r->Register("Transpose", MakeFactory<TransposeOp>());
  r->Register("InvertPermutation", TypedFactory<InvertPermutationOp, int32_t, int64_t>());
  r->Register("Slice", MakeFactory<SliceOp>());
  r->Register("StridedSlice", MakeFactory<StridedSliceOp>());
  r->Register("StridedSliceGrad", MakeFactory<StridedSliceGradOp>());
  r->Register("Tile", MakeFactory<TileOp>());
  r->Register("Pad", MakeFactory<PadOp>());
  r->Register("PadV2", MakeFactory<PadOp>());
  r->Register("ReverseV2", MakeFactory<ReverseV2Op>());
  r->Register("Split", MakeFactory<SplitOp>());
  r->Register("SplitV", MakeFactory<SplitVOp>());
  r->Register("Unpack", MakeFactory<UnpackOp>());
  r->Register("ShapeN", TypedFactory<ShapeNOp, int32_t, int64_t>("out_type"));
  r->Register("Range", TypedFactory<RangeOp, float, double, int32_t, int64_t>("Tidx"));
  r->Register("OneHot", TypedFactory<OneHotOp, float, double, int32_t, int64_t, bool>());
}

}  // namespace kernels_internal
}  // namespace minigraph
