// The windows of TensorFlow's 2-D convolutions and pools (NHWC) and 3-D
// convolutions (NDHWC): their attrs, checked with TensorFlow's messages,
// and the output size and padding of each spatial dimension (TensorFlow's
// GetWindowedOutputSize). Shape functions and kernels share it.
//
//   MG_ASSIGN_OR_RETURN(Window2D w, Window2D::FromNode(node, /*pool=*/false));
//   MG_ASSIGN_OR_RETURN(WindowedSize rows, w.Rows(in_rows, filter_rows));
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_RUNTIME_GRAPH_CONV_UTIL_H_
#define MINIGRAPH_RUNTIME_GRAPH_CONV_UTIL_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/proto/node_def.pb.h"

namespace minigraph {

enum class Padding { kValid, kSame, kExplicit };

// One spatial dimension of a window's result.
struct WindowedSize {
  int64_t out = 0;         // output size
  int64_t pad_before = 0;  // rows (or columns) of padding before the input
};

struct Window2D {
  // From a node's "strides", "padding", "explicit_paddings", "dilations"
  // and "data_format" attrs, and for a pool its "ksize". Returns
  // InvalidArgument naming the node for values TensorFlow refuses, and
  // Unimplemented for NCHW (TensorFlow's CPU kernels are NHWC only).
  static absl::StatusOr<Window2D> FromNode(const NodeDef& node, bool pool);

  // TensorFlow's GetWindowedOutputSize for rows (dim 1) or columns (dim 2)
  // of `in` elements and a window of `kernel` (ksize for a pool, the
  // filter's size for a convolution). Returns InvalidArgument when the
  // output would be negative.
  absl::StatusOr<WindowedSize> Size(int dim, int64_t in, int64_t kernel) const;

  std::string node;                       // for messages
  std::array<int64_t, 2> ksize = {1, 1};  // pools only
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> dilation = {1, 1};
  Padding padding = Padding::kValid;
  // kExplicit: (before, after) for rows and for columns.
  std::array<int64_t, 4> explicit_pad = {0, 0, 0, 0};
};

// The window of Conv3D and its gradients, and of the 3-D pools:
// 5-element "strides", "dilations" and "ksize", SAME or VALID, NDHWC only.
// TensorFlow's CPU convolutions take no dilations but 1; FromNode refuses
// others, with their messages.
struct Window3D {
  // Returns InvalidArgument naming the node for values TensorFlow refuses
  // (Unimplemented for a pool over the batch or depth, as TensorFlow).
  static absl::StatusOr<Window3D> FromNode(const NodeDef& node, bool pool = false);

  // GetWindowedOutputSize for planes (dim 1), rows (2) or columns (3).
  absl::StatusOr<WindowedSize> Size(int dim, int64_t in, int64_t kernel) const;

  std::string node;  // for messages
  std::array<int64_t, 3> ksize = {1, 1, 1};  // pools only
  std::array<int64_t, 3> stride = {1, 1, 1};
  Padding padding = Padding::kValid;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_CONV_UTIL_H_
