#include "runtime/cc/summary.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/cc/ops.h"

namespace minigraph {
namespace summary {
namespace {

Output Add(const Scope& scope, absl::string_view op, const std::string& name, Output value) {
  const Scope named = scope.WithOpName(name);
  Output tag = ops::Const(scope.NewSubScope(name).WithOpName("tag"), Tensor::Scalar<std::string>(
                                                                           name));
  Output s = named.AddOp(op, {{tag}, {value}}).output(0);
  if (scope.ok()) scope.AddToCollection(kSummariesCollection, s.tensor_name());
  return s;
}

}  // namespace

Output Scalar(const Scope& scope, const std::string& name, Output value) {
  return Add(scope, "ScalarSummary", name, value);
}

Output Histogram(const Scope& scope, const std::string& name, Output value) {
  return Add(scope, "HistogramSummary", name, value);
}

std::optional<Output> MergeAll(const Scope& scope) {
  std::vector<Output> inputs;
  for (const std::string& entry : scope.GetCollection(kSummariesCollection)) {
    std::vector<std::string> parts = absl::StrSplit(entry, ':');
    absl::StatusOr<Operation> op = scope.FindOp(parts[0]);
    if (!op.ok()) {
      scope.UpdateStatus(absl::NotFoundError(absl::StrCat(
          "the \"", kSummariesCollection, "\" collection names ", entry,
          ", which is not in the graph")));
      return std::nullopt;
    }
    inputs.push_back(op->output(0));
  }
  if (inputs.empty()) return std::nullopt;
  return scope.WithOpName("Merge/MergeSummary").AddOp("MergeSummary", {inputs}).output(0);
}

}  // namespace summary
}  // namespace minigraph
