// Summaries as tf.compat.v1.summary builds them: each op's serialized
// Summary is recorded in the "summaries" collection, and MergeAll merges
// them into the one string a training loop fetches and writes to
// an event file (core/events_writer.h).
//
//   summary::Scalar(root, "loss", loss);
//   summary::Scalar(root, "learning_rate", lr);
//   std::optional<Output> merged = summary::MergeAll(root);
//
// Like Scope's, not thread-safe: build a graph on one thread.

#ifndef MINIGRAPH_RUNTIME_CC_SUMMARY_H_
#define MINIGRAPH_RUNTIME_CC_SUMMARY_H_

#include <optional>
#include <string>

#include "runtime/cc/scope.h"

namespace minigraph {
namespace summary {

// TensorFlow's GraphKeys.SUMMARIES and GraphKeys.SUMMARY_OP.
inline constexpr char kSummariesCollection[] = "summaries";
inline constexpr char kSummaryOpCollection[] = "summary_op";

// A ScalarSummary of the scalar `value` tagged `name` (the node is named
// `name` too, under the scope's prefix), added to the "summaries"
// collection.
Output Scalar(const Scope& scope, const std::string& name, Output value);
// A HistogramSummary of `values`, likewise.
Output Histogram(const Scope& scope, const std::string& name, Output values);
// A MergeSummary of the "summaries" collection; nullopt when it is empty.
// The scope's status says why a collection entry could not be used.
std::optional<Output> MergeAll(const Scope& scope);

}  // namespace summary
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_SUMMARY_H_
