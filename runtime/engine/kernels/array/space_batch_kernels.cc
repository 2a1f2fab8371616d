// Blocks of space moved into the batch or the depth and back:
// SpaceToBatchND and BatchToSpaceND (every dilated convolution TensorFlow
// builds is one between the two), their rank-4 V1 forms SpaceToBatch and
// BatchToSpace, SpaceToDepth and DepthToSpace; as TensorFlow's
// spacetobatch_op.cc, batchtospace_op.cc and spacetodepth_op.cc define them,
// with their checks in their order.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/strided_copy.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow's kMaxSpaceToBatchBlockDims: its kernels are templates over
// the number of block dimensions that are not plain (block 1, no padding).
// This loop has no such limit; TensorFlow's refusal is kept.
constexpr int kMaxBlockDims = 4;

// The two tensors of a move. The space tensor is [batch, S_1..S_M,
// depth...]; the batch tensor [P * batch, O_1..O_M, depth...], P the
// product of the block sizes B_k. Row r of the batch tensor, at grid
// position o and block offset i (r = ((i * batch + b) * O_1 + o_1) ...),
// is the space tensor's row at [b, o_k * B_k + i_k - start_k]; rows that
// fall outside the space (padding, crops) are zeros (padding) or dropped.
struct Blocks {
  std::vector<int64_t> block, start, space, grid;
  int64_t batch = 0;
  int64_t depth = 1;  // elements per row
  int64_t product = 1;
};

// The block sizes and paddings (crops) of a move of `input`, checked as
// TensorFlow checks them: `to_batch` for SpaceToBatch.
absl::StatusOr<Blocks> Geometry(const Tensor& input, const Tensor& block_t, const Tensor& pads_t,
                                bool to_batch, TensorShape* out_shape, bool* trivial) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  if (block_t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("block_shape rank should be 1 instead of ", block_t.dims()));
  }
  const int m = static_cast<int>(block_t.dim_size(0));
  if (input.dims() < 1 + m) {
    return absl::InvalidArgumentError(
        absl::StrCat("input rank should be >= ", 1 + m, " instead of ", input.dims()));
  }
  if (pads_t.dims() != 2 || pads_t.dim_size(0) != m || pads_t.dim_size(1) != 2) {
    return absl::InvalidArgumentError(absl::StrCat(pads_name, " should have shape [", m,
                                                   ", 2] instead of ",
                                                   pads_t.shape().DebugString()));
  }
  Blocks g;
  MG_ASSIGN_OR_RETURN(g.block, IntsFromTensor(block_t, "block_shape"));
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> pads, FlatInts(pads_t, pads_name));
  auto plain = [&](int k) { return g.block[k] == 1 && pads[2 * k] == 0 && pads[2 * k + 1] == 0; };
  int prefix = 0, suffix = 0;
  while (prefix < m && plain(prefix)) ++prefix;
  while (suffix < m - prefix && plain(m - 1 - suffix)) ++suffix;
  for (int k = 0; k < m; ++k) {
    if (g.block[k] < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "All values in block_shape must be positive, got value, ", g.block[k], " at index ", k,
          "."));
    }
    if (__builtin_mul_overflow(g.product, g.block[k], &g.product)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Product of block sizes must be positive, got overflow at index ", k));
    }
  }
  const int64_t in_batch = input.dim_size(0);
  if (!to_batch && in_batch % g.product != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input batch dimension (", in_batch,
                     ") is not divisible by product of block sizes (", g.product, ")"));
  }
  if (m - prefix - suffix > kMaxBlockDims) {
    return absl::InvalidArgumentError(
        absl::StrCat("Maximum number of non-combined block dimensions is ", m - prefix - suffix,
                     " but must not exceed ", kMaxBlockDims));
  }
  *trivial = m - prefix - suffix == 0;
  std::vector<int64_t> out_dims;
  if (to_batch) {
    int64_t out_batch;
    if (__builtin_mul_overflow(in_batch, g.product, &out_batch)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Negative output dimension size caused by overflow when multiplying ", in_batch,
          " and ", g.product));
    }
    out_dims.push_back(out_batch);
  } else {
    out_dims.push_back(in_batch / g.product);
  }
  g.batch = to_batch ? in_batch : in_batch / g.product;
  for (int k = 0; k < m; ++k) {
    const int64_t first = pads[2 * k], last = pads[2 * k + 1];
    const int64_t size = input.dim_size(k + 1);
    if (first < 0 || last < 0) {
      return absl::InvalidArgumentError(to_batch ? "Paddings must be non-negative"
                                                 : "Crops must be non-negative");
    }
    g.start.push_back(first);
    if (to_batch) {
      const int64_t padded = size + first + last;
      if (padded % g.block[k] != 0) {
        return absl::InvalidArgumentError(absl::StrCat("padded_shape[", k, "]=", padded,
                                                       " is not divisible by block_shape[", k,
                                                       "]=", g.block[k]));
      }
      g.space.push_back(size);
      g.grid.push_back(padded / g.block[k]);
      out_dims.push_back(padded / g.block[k]);
    } else {
      int64_t full;
      if (__builtin_mul_overflow(size, g.block[k], &full)) full = -1;
      const int64_t cropped = full - first - last;
      if (full < 0 || cropped < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("cropped_shape[", k, "]=", cropped, " must be non-negative"));
      }
      g.space.push_back(cropped);
      g.grid.push_back(size);
      out_dims.push_back(cropped);
    }
  }
  for (int d = m + 1; d < input.dims(); ++d) {
    g.depth *= input.dim_size(d);
    out_dims.push_back(input.dim_size(d));
  }
  MG_ASSIGN_OR_RETURN(*out_shape, TensorShape::Build(out_dims));
  return g;
}

// Moves every row of the batch tensor from (to_batch) or to the space
// tensor, on the intra-op threads.
void MoveRows(OpKernelContext* ctx, const Blocks& g, Tensor* space, Tensor* batch,
              bool to_batch) {
  const int m = static_cast<int>(g.block.size());
  int64_t grid_rows = 1;
  for (int64_t o : g.grid) grid_rows *= o;
  const int64_t rows = g.product * g.batch * grid_rows;
  const size_t row_bytes = g.depth * DataTypeSize(space->dtype());
  ctx->ParallelFor(rows, row_bytes, row_bytes, g.depth, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> o(m), i(m);
    for (int64_t r = begin; r < end; ++r) {
      int64_t rest = r;
      for (int k = m - 1; k >= 0; --k) {
        o[k] = rest % g.grid[k];
        rest /= g.grid[k];
      }
      const int64_t b = rest % g.batch;
      rest /= g.batch;
      for (int k = m - 1; k >= 0; --k) {
        i[k] = rest % g.block[k];
        rest /= g.block[k];
      }
      int64_t at = b;
      bool inside = true;
      for (int k = 0; k < m && inside; ++k) {
        const int64_t s = o[k] * g.block[k] + i[k] - g.start[k];
        inside = s >= 0 && s < g.space[k];
        at = at * g.space[k] + s;
      }
      if (inside && to_batch) {
        CopyElements(*space, at * g.depth, batch, r * g.depth, g.depth);
      } else if (inside) {
        CopyElements(*batch, r * g.depth, space, at * g.depth, g.depth);
      } else if (to_batch) {
        std::memset(static_cast<char*>(batch->raw_data()) + r * row_bytes, 0, row_bytes);
      }
    }
  });
}

absl::Status Move(OpKernelContext* ctx, const Tensor& input, const Tensor& block,
                  const Tensor& pads, bool to_batch) {
  TensorShape shape;
  bool trivial = false;
  MG_ASSIGN_OR_RETURN(Blocks g, Geometry(input, block, pads, to_batch, &shape, &trivial));
  if (trivial) {
    ctx->set_output(0, input);
    return absl::OkStatus();
  }
  Tensor* out;
  MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
  if (out->NumElements() == 0) return absl::OkStatus();
  Tensor in = input;
  if (to_batch) {
    MoveRows(ctx, g, &in, out, true);
  } else {
    MoveRows(ctx, g, out, &in, false);
  }
  return absl::OkStatus();
}

// SpaceToBatchND (to_batch) and BatchToSpaceND: block shape and paddings
// (crops) as inputs.
template <bool kToBatch>
class SpaceBatchNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    return Move(ctx, ctx->input(0), ctx->input(1), ctx->input(2), kToBatch);
  }
};

// SpaceToBatch and BatchToSpace: rank 4, one block size for both spatial
// dimensions.
template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    int64_t size;
    MG_RETURN_IF_ERROR(c->GetAttr("block_size", &size));
    if (size <= 1) {
      return absl::InvalidArgumentError(absl::StrCat("Block size should be > 1: ", size));
    }
    block_ = Tensor(DT_INT64, TensorShape({2}));
    block_.data<int64_t>()[0] = block_.data<int64_t>()[1] = size;
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input rank should be: 4instead of: ", input.dims()));
    }
    return Move(ctx, input, block_, ctx->input(1), kToBatch);
  }

 private:
  Tensor block_;
};

// SpaceToDepth (kToDepth) and DepthToSpace, NHWC: each block_size x
// block_size square of pixels is one pixel of block_size^2 times the
// depth, the square's rows outermost. One strided copy.
template <bool kToDepth>
class SpaceDepthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("block_size", &block_));
    std::string format;
    MG_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
    if (format != "NHWC") {
      return absl::InvalidArgumentError(
          absl::StrCat("Only NHWC data_format supported on CPU. Got ", format));
    }
    if (block_ <= 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Block size should be > 1, but was: ", block_));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (input.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input rank should be: 4 instead of: ", input.dims()));
    }
    const int64_t n = input.dim_size(0), h = input.dim_size(1), w = input.dim_size(2);
    const int64_t c = input.dim_size(3), b = block_;
    TensorShape shape;
    // The copy walks (batch, row, block row, column, block column, depth)
    // of the space side; the depth side holds them as (batch, row, column,
    // block row, block column, depth).
    StridedBlock copy;
    if (kToDepth) {
      if (h % b != 0 || w % b != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Image width ", w, " and height ", h,
                                                       " should be divisible by block_size: ", b));
      }
      MG_ASSIGN_OR_RETURN(shape, TensorShape::Build({n, h / b, w / b, c * b * b}));
      copy.dims = {n, h / b, b, w / b, b, c};
      copy.src_strides = {h * w * c, b * w * c, w * c, b * c, c, 1};
      copy.dst_strides = {h * w * c, w * b * c, b * c, b * b * c, c, 1};
    } else {
      if (c % (b * b) != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Input depth dimension ", c,
                                                       " should be divisible by: ", b * b));
      }
      const int64_t depth = c / (b * b);
      MG_ASSIGN_OR_RETURN(shape, TensorShape::Build({n, h * b, w * b, depth}));
      copy.dims = {n, h, b, w, b, depth};
      copy.src_strides = {h * w * c, w * c, b * depth, c, depth, 1};
      copy.dst_strides = {h * w * c, w * c, w * b * depth, b * depth, depth, 1};
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() > 0) CopyStrided(input, out, copy);
    return absl::OkStatus();
  }

 private:
  int64_t block_ = 0;
};

// The real number types TensorFlow registers these kernels for.
template <typename K>
KernelFactory RealTypes() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    switch (dt) {
      case DT_FLOAT: case DT_DOUBLE: case DT_HALF: case DT_BFLOAT16: case DT_INT8:
      case DT_INT16: case DT_INT32: case DT_INT64: case DT_UINT8: case DT_UINT16:
      case DT_UINT32: case DT_UINT64:
        return kernel_registry_internal::Build<K>(c);
      default:
        return NoKernelForType(c, dt);
    }
  };
}

}  // namespace

void RegisterSpaceBatchKernels(KernelRegistry* r) {
  r->Register("SpaceToBatchND", RealTypes<SpaceBatchNdOp<true>>());
  r->Register("BatchToSpaceND", RealTypes<SpaceBatchNdOp<false>>());
  r->Register("SpaceToBatch", RealTypes<SpaceBatchOp<true>>());
  r->Register("BatchToSpace", RealTypes<SpaceBatchOp<false>>());
  r->Register("SpaceToDepth", MakeFactory<SpaceDepthOp<true>>());
  r->Register("DepthToSpace", MakeFactory<SpaceDepthOp<false>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
