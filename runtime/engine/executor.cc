#include "runtime/engine/executor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/internal/executor_plan.h"

namespace minigraph {

absl::Status WithNodeName(const absl::Status& s, absl::string_view node) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), "\n\t [[{{node ", node, "}}]]"));
}

Executor::Executor(std::unique_ptr<const executor_internal::Plan> plan) : plan_(std::move(plan)) {}

Executor::~Executor() = default;

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Graph* graph, const std::vector<const OpKernel*>& kernels,
    const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
    const std::vector<std::string>& targets, bool every_node,
    const std::vector<absl::Status>* why_no_kernel) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<executor_internal::Plan> plan,
                      executor_internal::Plan::Build(graph, kernels, feeds, fetches, targets,
                                                     every_node, why_no_kernel));
  return std::unique_ptr<Executor>(new Executor(std::move(plan)));
}

absl::Status Executor::Run(const Args& args, std::vector<Tensor>* fetches) const {
  return plan_->Run(args, fetches);
}

std::vector<int> Executor::PlannedNodes() const { return plan_->PlannedNodes(); }

}  // namespace minigraph
