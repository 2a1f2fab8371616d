// Slices in a checkpoint (TensorSlice itself is core/tensor_slice.h).
// Partitioned variables save one slice each under the full tensor's name; a
// checkpoint stores each slice as a tensor of its own under an OrderedCode
// key (EncodeTensorNameSlice) and lists the slices in the full tensor's
// entry (checkpoint/FORMAT.md, "Partitioned tensors").
//
// Thread safety: functions of their arguments only; CopySliceRegion writes only
// its destination.

#ifndef MINIGRAPH_CHECKPOINT_SAVED_SLICES_H_
#define MINIGRAPH_CHECKPOINT_SAVED_SLICES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/tensor_slice.h"

namespace minigraph {

// For a reader of saved slices: an error message unless `slice` lies within
// `shape` and overlaps none of `others` (empty when it fits).
std::string SlicePlacementError(const TensorSlice& slice, const TensorShape& shape,
                                const std::vector<TensorSlice>& others);

// The key a checkpoint stores slice `slice` of tensor `name` under, as
// TensorFlow's checkpoint::EncodeTensorNameSlice makes it (OrderedCode:
// 0, the name, the rank, then each dimension's start and length).
std::string EncodeTensorNameSlice(absl::string_view name, const TensorSlice& slice);
// True for a key EncodeTensorNameSlice made (it starts with a 0x00 byte,
// which no tensor name does).
inline bool IsSliceKey(absl::string_view key) { return !key.empty() && key[0] == '\0'; }

// Copies the elements in `region` (whole dimensions resolved against
// `full_shape`) from `src`, which holds slice `src_slice` of the full
// tensor, into `dst`, which holds slice `dst_slice`. REQUIRES: the same
// dtype, and `region` within both slices.
void CopySliceRegion(const Tensor& src, const TensorSlice& src_slice, const TensorSlice& region,
                     const TensorShape& full_shape, const TensorSlice& dst_slice, Tensor* dst);

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_SAVED_SLICES_H_
