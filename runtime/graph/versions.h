// The GraphDef versions minigraph implements, and TensorFlow's check of a
// graph's VersionDef against them.
//
// A GraphDef's `versions.producer` says which version of TensorFlow's
// semantics the graph was written for; in a few places those semantics
// changed (a Placeholder whose `shape` attr has no dimensions is an unknown
// shape up to version 21, reduction axes of any rank were accepted below
// 21), and shape functions read the producer through
// InferenceContext::graph_def_version(). A GraphDef without `versions` is
// version 0, as in TensorFlow. minigraph implements TensorFlow 2.21's
// version and writes it into the graphs it builds (Scope).
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_RUNTIME_GRAPH_VERSIONS_H_
#define MINIGRAPH_RUNTIME_GRAPH_VERSIONS_H_

#include "absl/status/status.h"
#include "core/proto/op_def.pb.h"
#include "core/proto/versions.pb.h"

namespace minigraph {

// TensorFlow 2.21's TF_GRAPH_DEF_VERSION, TF_GRAPH_DEF_VERSION_MIN_CONSUMER
// and TF_GRAPH_DEF_VERSION_MIN_PRODUCER.
inline constexpr int kGraphDefVersion = 2474;
inline constexpr int kGraphDefVersionMinConsumer = 0;
inline constexpr int kGraphDefVersionMinProducer = 0;

// The last producer version whose Placeholder reads a `shape` attr without
// dimensions as an unknown shape, and the first whose reductions require
// axes of rank at most 1.
inline constexpr int kLegacyPlaceholderShapeVersion = 21;
inline constexpr int kReductionAxesRankVersion = 21;

// InvalidArgument, in TensorFlow's words, when a graph of `versions` cannot
// be run by this consumer: a producer older than the oldest supported, a
// min_consumer newer than kGraphDefVersion, or kGraphDefVersion among its
// bad_consumers.
absl::Status CheckGraphDefVersions(const VersionDef& versions);

// Unimplemented, in TensorFlow's words, when `op` was removed at a version
// at or below `producer` ("Op TopK is not available in GraphDef version 7.
// It has been removed in version 7. Use TopKV2 instead.").
absl::Status CheckOpDeprecation(const OpDef& op, int producer);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_VERSIONS_H_
