// ExtractImagePatches: the windows a 2-D convolution would see (ksizes,
// strides, rates as dilations, SAME or VALID), each flattened into the
// depth of one output position: [batch, out_rows, out_cols, ksize_rows *
// ksize_cols * depth], padding as zeros. Pure data movement, so one kernel
// per element size serves every dtype TensorFlow registers.
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/graph/conv_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class ExtractImagePatchesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    window_.node = absl::StrCat(type_string(), " '", name(), "'");
    for (const auto& [attr, to] : {std::pair<const char*, std::array<int64_t, 2>*>{
                                       "ksizes", &window_.ksize},
                                   {"strides", &window_.stride},
                                   {"rates", &window_.dilation}}) {
      std::vector<int64_t> v;
      MG_RETURN_IF_ERROR(c->GetAttr(attr, &v));
      // TensorFlow's messages, and its error classes.
      if (v.size() != 4 || v[0] != 1 || v[3] != 1) {
        return absl::UnimplementedError(
            absl::StrCat(window_.node, ": Only support ", attr, " across space."));
      }
      if (v[1] < 1 || v[2] < 1) {
        return absl::OutOfRangeError(absl::StrCat(window_.node, ": ", attr, " is out of range."));
      }
      *to = {v[1], v[2]};
    }
    std::string padding;
    MG_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
    if (padding != "SAME" && padding != "VALID") {
      return absl::InvalidArgumentError(
          absl::StrCat(window_.node, ": unknown padding \"", padding, "\""));
    }
    window_.padding = padding == "SAME" ? Padding::kSame : Padding::kValid;
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    if (x.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          window_.node, ": input must be 4-dimensional", x.shape().DebugString()));
    }
    const int64_t batch = x.dim_size(0), rows = x.dim_size(1), cols = x.dim_size(2),
                  depth = x.dim_size(3);
    const int64_t k_rows = window_.ksize[0], k_cols = window_.ksize[1];
    MG_ASSIGN_OR_RETURN(WindowedSize out_rows, window_.Size(1, rows, k_rows));
    MG_ASSIGN_OR_RETURN(WindowedSize out_cols, window_.Size(2, cols, k_cols));
    // (ksizes come from attrs: their product with the depth may not fit.)
    const int64_t max = std::numeric_limits<int64_t>::max();
    if (k_rows > max / k_cols || (depth > 0 && k_rows * k_cols > max / depth)) {
      return absl::InvalidArgumentError(absl::StrCat(window_.node, ": patches of ", k_rows, "x",
                                                     k_cols, "x", depth, " are too large"));
    }
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build({batch, out_rows.out, out_cols.out,
                                                               k_rows * k_cols * depth}));
    Tensor* y;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &y));
    if (y->NumElements() == 0) return absl::OkStatus();
    const size_t bytes = DataTypeSize(x.dtype());
    const size_t run = depth * bytes;  // one input pixel's channels
    const char* in = static_cast<const char*>(x.raw_data());
    char* out = static_cast<char*>(y->raw_data());
    const int64_t positions = batch * out_rows.out * out_cols.out;
    const double cost = static_cast<double>(k_rows * k_cols * depth);
    ctx->ParallelFor(positions, cost * bytes, cost * bytes, cost,
                     [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / (out_rows.out * out_cols.out);
        const int64_t orow = p / out_cols.out % out_rows.out, ocol = p % out_cols.out;
        char* o = out + p * k_rows * k_cols * run;
        for (int64_t kr = 0; kr < k_rows; ++kr) {
          const int64_t r = orow * window_.stride[0] - out_rows.pad_before +
                            kr * window_.dilation[0];
          for (int64_t kc = 0; kc < k_cols; ++kc, o += run) {
            const int64_t c = ocol * window_.stride[1] - out_cols.pad_before +
                              kc * window_.dilation[1];
            if (r < 0 || r >= rows || c < 0 || c >= cols) {
              std::memset(o, 0, run);
            } else {
              std::memcpy(o, in + ((n * rows + r) * cols + c) * run, run);
            }
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  Window2D window_;
};

// Every numeric dtype TensorFlow's CPU kernel takes (not strings, bool or
// the quantized ones); zero bytes are their zero.
KernelFactory PatchesFactory() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dt));
    switch (dt) {
      case DT_FLOAT: case DT_DOUBLE: case DT_HALF: case DT_BFLOAT16:
      case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
      case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
      case DT_COMPLEX64: case DT_COMPLEX128:
        return MakeFactory<ExtractImagePatchesOp>()(c);
      default:
        return NoKernelForType(c, dt);
    }
  };
}

}  // namespace

void RegisterPatchesKernels(KernelRegistry* r) {
  r->Register("ExtractImagePatches", PatchesFactory());
}

}  // namespace kernels_internal
}  // namespace minigraph
