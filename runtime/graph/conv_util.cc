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

}  // namespace

absl::StatusOr<Window2D> Window2D::FromNode(const NodeDef& node, bool pool) {
  Window2D w;
  w.node = absl::StrCat(node.op(), " '", node.name(), "'");
  std::string format = "NHWC";
  if (node.attr().contains("data_format")) {
    MG_RETURN_IF_ERROR(GetNodeAttr(node, "data_format", &format));
  }
  if (format != "NHWC") {
    return absl::UnimplementedError(
        absl::StrCat(w.node,
                     ": the op currently only supports the NHWC tensor format on the "
                     "CPU. The op was given the format: ",
                     format));
  }
  std::vector<int64_t> strides;
  MG_RETURN_IF_ERROR(GetNodeAttr(node, "strides", &strides));
  if (strides.size() != 4) {
    return Invalid(node, "Sliding window strides field must specify 4 dimensions");
  }
  if (strides[0] != 1 || strides[3] != 1) {
    return Invalid(node,
                   "Current implementation does not yet support strides in the batch and depth "
                   "dimensions.");
  }
  if (strides[1] < 1 || strides[2] < 1) return Invalid(node, "strides must be positive");
  w.stride = {strides[1], strides[2]};
  if (pool) {
    std::vector<int64_t> ksize;
    MG_RETURN_IF_ERROR(GetNodeAttr(node, "ksize", &ksize));
    if (ksize.size() != 4) {
      return Invalid(node, "Sliding window ksize field must specify 4 dimensions");
    }
    if (ksize[0] != 1 || ksize[3] != 1) {
      return Invalid(node, "Pooling is not yet supported on the batch nor depth dimensions.");
    }
    if (ksize[1] < 1 || ksize[2] < 1) return Invalid(node, "ksize must be positive");
    w.ksize = {ksize[1], ksize[2]};
  }
  if (node.attr().contains("dilations")) {
    std::vector<int64_t> d;
    MG_RETURN_IF_ERROR(GetNodeAttr(node, "dilations", &d));
    if (d.size() != 4)
      return Invalid(node, "Sliding window dilations field must specify 4 dimensions");
    if (d[0] != 1 || d[3] != 1) {
      return Invalid(node,
                     "Current implementation does not yet support dilations in the batch and "
                     "depth dimensions.");
    }
    if (d[1] < 1 || d[2] < 1) return Invalid(node, "Dilated rates should be larger than 0.");
    w.dilation = {d[1], d[2]};
  }
  std::string padding;
  MG_RETURN_IF_ERROR(GetNodeAttr(node, "padding", &padding));
  if (padding == "VALID") {
    w.padding = Padding::kValid;
  } else if (padding == "SAME") {
    w.padding = Padding::kSame;
  } else if (padding == "EXPLICIT") {
    w.padding = Padding::kExplicit;
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
  } else {
    return Invalid(node, absl::StrCat("unknown padding \"", padding, "\""));
  }
  return w;
}

absl::StatusOr<WindowedSize> Window2D::Size(int dim, int64_t in, int64_t kernel) const {
  const int i = dim - 1;
  const int64_t stride_i = stride[i];
  const int64_t effective = (kernel - 1) * dilation[i] + 1;
  WindowedSize s;
  switch (padding) {
    case Padding::kValid:
      s.out = (in - effective + stride_i) / stride_i;
      break;
    case Padding::kExplicit:
      s.out =
          (in + explicit_pad[2 * i] + explicit_pad[2 * i + 1] - effective + stride_i) / stride_i;
      s.pad_before = explicit_pad[2 * i];
      break;
    case Padding::kSame: {
      s.out = (in + stride_i - 1) / stride_i;
      const int64_t needed = std::max<int64_t>(0, (s.out - 1) * stride_i + effective - in);
      s.pad_before = needed / 2;
      break;
    }
  }
  if (s.out < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        node, ": Computed output size would be negative: ", s.out, " [input_size: ", in,
        ", effective_filter_size: ", effective, ", stride: ", stride_i, "]"));
  }
  return s;
}

}  // namespace minigraph
