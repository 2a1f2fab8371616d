#include "runtime/graph/op_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace minigraph {

absl::Status OpRegistry::Register(const OpDefBuilder& builder) {
  MG_ASSIGN_OR_RETURN(OpRegistrationData data, builder.Finalize());
  return Register(std::move(data));
}

absl::Status OpRegistry::Register(OpRegistrationData data) {
  const std::string name = data.op_def.name();
  absl::MutexLock l(&mu_);
  auto [it, inserted] =
      ops_.try_emplace(name, std::make_unique<OpRegistrationData>(std::move(data)));
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat("op ", name, " is registered twice"));
  }
  return absl::OkStatus();
}

absl::StatusOr<const OpRegistrationData*> OpRegistry::LookUp(absl::string_view op_name) const {
  absl::ReaderMutexLock l(&mu_);
  auto it = ops_.find(op_name);
  if (it == ops_.end()) {
    return absl::NotFoundError(absl::StrCat("op type not registered '", op_name, "'"));
  }
  return it->second.get();
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  absl::ReaderMutexLock l(&mu_);
  for (const auto& [name, op] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace minigraph
