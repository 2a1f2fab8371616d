// The version check both checkpoint formats make (TensorFlow's
// CheckVersions): the V2 header's and the V1 table of contents' VersionDef.
//
// Thread safety: constants only.

#ifndef MINIGRAPH_CHECKPOINT_FORMAT_VERSION_H_
#define MINIGRAPH_CHECKPOINT_FORMAT_VERSION_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/proto/versions.pb.h"

namespace minigraph {

// Unimplemented, naming `what` ("checkpoint /ckpt/m.index"), unless a
// reader of version `consumer` may read data written as `v`: a producer
// version of 0 or more, a min_consumer of at most `consumer`, and
// `consumer` not among the bad consumers.
inline absl::Status CheckFormatVersion(const VersionDef& v, int consumer, absl::string_view what) {
  bool bad = v.producer() < 0 || v.min_consumer() > consumer;
  for (int b : v.bad_consumers()) bad |= b == consumer;
  if (!bad) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      what, " has format version producer=", v.producer(), " min_consumer=", v.min_consumer(),
      ", which this reader (version ", consumer, ") cannot read"));
}

}  // namespace minigraph

#endif  // MINIGRAPH_CHECKPOINT_FORMAT_VERSION_H_
