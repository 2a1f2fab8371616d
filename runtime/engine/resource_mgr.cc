#include "runtime/engine/resource_mgr.h"

#include "absl/strings/str_cat.h"

namespace minigraph {
namespace {
std::string ContainerOrDefault(absl::string_view c) {
  return c.empty() ? ResourceMgr::kDefaultContainer : std::string(c);
}
}  // namespace

absl::StatusOr<Var*> ResourceMgr::LookupOrCreateVar(absl::string_view container,
                                                    absl::string_view name, DataType dtype,
                                                    const PartialShape& declared_shape) {
  absl::MutexLock l(&mu_);
  auto& slot = vars_[{ContainerOrDefault(container), std::string(name)}];
  if (slot == nullptr) {
    // Lock order: a variable's lock, then the manager's.
    slot = std::make_unique<Var>(dtype, std::string(name), declared_shape, [this] { Changed(); });
  } else if (slot->dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variable '", name, "' in container '", ContainerOrDefault(container), "' has dtype ",
        DataTypeString(slot->dtype()), ", but a node asks for ", DataTypeString(dtype)));
  }
  return slot.get();
}

Var* ResourceMgr::FindVar(absl::string_view container, absl::string_view name) const {
  absl::MutexLock l(&mu_);
  auto it = vars_.find({ContainerOrDefault(container), std::string(name)});
  return it == vars_.end() ? nullptr : it->second.get();
}

void ResourceMgr::Cleanup(absl::string_view container) {
  absl::MutexLock l(&mu_);
  const std::string c = ContainerOrDefault(container);
  for (auto it = vars_.begin(); it != vars_.end();) {
    it = it->first.first == c ? vars_.erase(it) : std::next(it);
  }
  ChangedLocked();
}

std::vector<std::pair<std::string, std::string>> ResourceMgr::VarNames() const {
  absl::MutexLock l(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, var] : vars_) out.push_back(key);
  return out;
}

uint64_t ResourceMgr::version() const {
  absl::MutexLock l(&mu_);
  return version_;
}

int64_t ResourceMgr::Watch(uint64_t seen, std::function<void(uint64_t)> fn) {
  absl::MutexLock l(&mu_);
  const int64_t id = next_watch_++;
  if (version_ != seen) {
    fn(version_);
  } else {
    watches_.emplace(id, std::move(fn));
  }
  return id;
}

void ResourceMgr::Unwatch(int64_t id) {
  absl::MutexLock l(&mu_);
  watches_.erase(id);
}

void ResourceMgr::Changed() {
  absl::MutexLock l(&mu_);
  ChangedLocked();
}

void ResourceMgr::ChangedLocked() {
  ++version_;
  for (auto& [id, fn] : watches_) fn(version_);
  watches_.clear();
}

}  // namespace minigraph
