#include "runtime/graph/conv_util.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

absl::Status Invalid(const NodeDef& node, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(node.op(), " '", node.name(), "': ", what));
}

// GetWindowedOutputSize: one dimension of `in` elements under a window of
// `kernel` taps `dilation` apart, `stride` apart; `before` and `after` the
// explicit padding.
absl::StatusOr<WindowedSize> WindowedOutputSize(const std::string& node, int64_t in,
                                                int64_t kernel, int64_t stride, int64_t dilation,
                                                Padding padding, int64_t before, int64_t after) {
  const int64_t effective = (kernel - 1) * dilation + 1;
  WindowedSize s;
  switch (padding) {
    case Padding::kValid:
      s.out = (in - effective + stride) / stride;
      break;
    case Padding::kExplicit:
      s.out = (in + before + after - effective + stride) / stride;
      s.pad_before = before;
      break;
    case Padding::kSame: {
      s.out = (in + stride - 1) / stride;
      const int64_t needed = std::max<int64_t>(0, (s.out - 1) * stride + effective - in);
      s.pad_before = needed / 2;
      break;
    }
  }
  if (s.out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        node, ": Computed output size would be negative: ", s.out, " [input_size: ", in,
        ", effective_filter_size: ", effective, ", stride: ", stride, "]"));
  }
  return s;
}

// TensorFlow's messages for one window attr of a kernel.
struct AttrMessages {
  const char* size;      // not `rank` elements
  const char* batch;     // not 1 in the batch dimension
  const char* positive;  // a spatial element below 1
  const char* depth = nullptr;  // not 1 in the depth dimension (nullptr: `batch`)
  // Batch and depth refused as Unimplemented (the 3-D pools), not
  // InvalidArgument.
  bool unimplemented = false;
};

// Window attr `name` ("strides", "dilations", "ksize") of a node whose
// tensors have `rank` dimensions: its spatial elements, the others being 1.
absl::StatusOr<std::vector<int64_t>> SpatialAttr(const NodeDef& node, const char* name,
                                                 size_t rank, const AttrMessages& m) {
  std::vector<int64_t> v;
  MG_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  if (v.size() != rank) return Invalid(node, m.size);
  const char* refused = v.front() != 1 ? m.batch
                        : v.back() != 1 ? (m.depth != nullptr ? m.depth : m.batch)
                                        : nullptr;
  if (refused != nullptr) {
    if (m.unimplemented) {
      return absl::UnimplementedError(
          absl::StrCat(node.op(), " '", node.name(), "': ", refused));
    }
    return Invalid(node, refused);
  }
  std::vector<int64_t> spatial(v.begin() + 1, v.end() - 1);
  for (int64_t x : spatial) {
    if (x < 1) return Invalid(node, m.positive);
  }
  return spatial;
}

// The "padding" attr: VALID, SAME, and EXPLICIT where `explicit_ok`.
absl::StatusOr<Padding> PaddingAttr(const NodeDef& node, bool explicit_ok) {
  std::string padding;
  MG_RETURN_IF_ERROR(GetNodeAttr(node, "padding", &padding));
  if (padding == "VALID") return Padding::kValid;
  if (padding == "SAME") return Padding::kSame;
  if (padding == "EXPLICIT" && explicit_ok) return Padding::kExplicit;
  return Invalid(node, absl::StrCat("unknown padding \"", padding, "\""));
}

// The "data_format" attr, `default_format` when absent.
absl::StatusOr<std::string> FormatAttr(const NodeDef& node, const char* default_format) {
  std::string format = default_format;
  if (node.attr().contains("data_format")) {
    MG_RETURN_IF_ERROR(GetNodeAttr(node, "data_format", &format));
  }
  return format;
}

constexpr char kBatchDepthStrides[] =
    "Current implementation does not yet support strides in the batch and depth dimensions.";
constexpr char kDilatedRates[] = "Dilated rates should be larger than 0.";

}  // namespace

absl::StatusOr<Window2D> Window2D::FromNode(const NodeDef& node, bool pool) {
  Window2D w;
  w.node = absl::StrCat(node.op(), " '", node.name(), "'");
  MG_ASSIGN_OR_RETURN(const std::string format, FormatAttr(node, "NHWC"));
  if (format != "NHWC") {
    return absl::UnimplementedError(
        absl::StrCat(w.node,
                     ": the op currently only supports the NHWC tensor format on the "
                     "CPU. The op was given the format: ",
                     format));
  }
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                      SpatialAttr(node, "strides", 4,
                                  {"Sliding window strides field must specify 4 dimensions",
                                   kBatchDepthStrides, "strides must be positive"}));
  w.stride = {strides[0], strides[1]};
  if (pool) {
    MG_ASSIGN_OR_RETURN(
        std::vector<int64_t> ksize,
        SpatialAttr(node, "ksize", 4,
                    {"Sliding window ksize field must specify 4 dimensions",
                     "Pooling is not yet supported on the batch nor depth dimensions.",
                     "ksize must be positive"}));
    w.ksize = {ksize[0], ksize[1]};
  }
  if (node.attr().contains("dilations")) {
    MG_ASSIGN_OR_RETURN(
        std::vector<int64_t> d,
        SpatialAttr(node, "dilations", 4,
                    {"Sliding window dilations field must specify 4 dimensions",
                     "Current implementation does not yet support dilations in the batch and "
                     "depth dimensions.",
                     kDilatedRates}));
    w.dilation = {d[0], d[1]};
  }
  MG_ASSIGN_OR_RETURN(w.padding, PaddingAttr(node, /*explicit_ok=*/true));
  if (w.padding == Padding::kExplicit) {
    std::vector<int64_t> p;
    if (node.attr().contains("explicit_paddings")) {
      MG_RETURN_IF_ERROR(GetNodeAttr(node, "explicit_paddings", &p));
    }
    if (p.size() != 8) {
      return Invalid(node, absl::StrCat("explicit_paddings attribute must contain 8 values, but "
                                        "got: ",
                                        p.size()));
    }
    if (p[0] != 0 || p[1] != 0 || p[6] != 0 || p[7] != 0) {
      return Invalid(node,
                     "Nonzero explicit padding in the batch or depth dimensions is not "
                     "supported");
    }
    for (int64_t v : p) {
      if (v < 0)
        return Invalid(node, absl::StrCat("Explicit padding must be nonnegative, got ", v));
    }
    w.explicit_pad = {p[2], p[3], p[4], p[5]};
  }
  return w;
}

absl::StatusOr<WindowedSize> Window2D::Size(int dim, int64_t in, int64_t kernel) const {
  const int i = dim - 1;
  return WindowedOutputSize(node, in, kernel, stride[i], dilation[i], padding,
                            explicit_pad[2 * i], explicit_pad[2 * i + 1]);
}

absl::StatusOr<Window3D> Window3D::FromNode(const NodeDef& node, bool pool) {
  Window3D w;
  w.node = absl::StrCat(node.op(), " '", node.name(), "'");
  MG_ASSIGN_OR_RETURN(const std::string format, FormatAttr(node, "NDHWC"));
  if (format != "NDHWC") {
    return Invalid(node, absl::StrCat("CPU implementation of ", node.op(),
                                      " currently only supports the NDHWC tensor format, not ",
                                      format));
  }
  if (pool) {
    static constexpr char kBatch[] = "Pooling is not yet supported on the batch dimension.";
    static constexpr char kDepth[] = "Pooling is not yet supported on the depth dimension.";
    MG_ASSIGN_OR_RETURN(
        std::vector<int64_t> ksize,
        SpatialAttr(node, "ksize", 5,
                    {"Sliding window ksize field must specify 5 dimensions", kBatch,
                     "Sliding window ksize field must have positive dimensions", kDepth,
                     /*unimplemented=*/true}));
    MG_ASSIGN_OR_RETURN(
        std::vector<int64_t> strides,
        SpatialAttr(node, "strides", 5,
                    {"Sliding window stride field must specify 5 dimensions", kBatch,
                     "Stride must be > 0", kDepth, /*unimplemented=*/true}));
    w.ksize = {ksize[0], ksize[1], ksize[2]};
    w.stride = {strides[0], strides[1], strides[2]};
    MG_ASSIGN_OR_RETURN(w.padding, PaddingAttr(node, /*explicit_ok=*/false));
    return w;
  }
  MG_ASSIGN_OR_RETURN(
      std::vector<int64_t> strides,
      SpatialAttr(node, "strides", 5,
                  {"Sliding window strides field must specify 5 dimensions", kBatchDepthStrides,
                   "Spatial strides should be larger than 0."}));
  w.stride = {strides[0], strides[1], strides[2]};
  if (node.attr().contains("dilations")) {
    MG_ASSIGN_OR_RETURN(
        std::vector<int64_t> d,
        SpatialAttr(node, "dilations", 5,
                    {"Dilation rates field must specify 5 dimensions",
                     "Current implementation does not yet support dilation rates in the batch "
                     "and depth dimensions.",
                     kDilatedRates}));
    if (d != std::vector<int64_t>{1, 1, 1}) {
      return Invalid(node, absl::StrCat("CPU implementation of ", node.op(),
                                        " currently only supports dilated rates of 1."));
    }
  }
  MG_ASSIGN_OR_RETURN(w.padding, PaddingAttr(node, /*explicit_ok=*/false));
  return w;
}

absl::StatusOr<WindowedSize> Window3D::Size(int dim, int64_t in, int64_t kernel) const {
  return WindowedOutputSize(node, in, kernel, stride[dim - 1], 1, padding, 0, 0);
}

}  // namespace minigraph
