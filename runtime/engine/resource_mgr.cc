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
    slot = std::make_shared<Var>(dtype, std::string(name), declared_shape, [this] { Changed(); });
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

ResourceMgr::~ResourceMgr() {
  // A resource may own threads that look things up here until its
  // destructor joins them (a tf.data iterator's prefetching): resources go
  // first, outside the lock, while the variables are still whole.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Resource>> resources;
  {
    absl::MutexLock l(&mu_);
    resources.swap(resources_);
  }
}

void ResourceMgr::Cleanup(absl::string_view container) {
  // What the container held is destroyed after the lock is released (see
  // the destructor).
  std::vector<std::shared_ptr<Resource>> dropped;
  std::vector<std::shared_ptr<Var>> dropped_vars;
  {
    absl::MutexLock l(&mu_);
    const std::string c = ContainerOrDefault(container);
    for (auto it = vars_.begin(); it != vars_.end();) {
      if (it->first.first != c) {
        ++it;
        continue;
      }
      dropped_vars.push_back(std::move(it->second));
      it = vars_.erase(it);
    }
    for (auto it = resources_.begin(); it != resources_.end();) {
      if (it->first.first != c) {
        ++it;
        continue;
      }
      dropped.push_back(std::move(it->second));
      it = resources_.erase(it);
    }
    ChangedLocked();
  }
}

absl::StatusOr<std::shared_ptr<Resource>> ResourceMgr::LookupOrCreateResource(
    absl::string_view container, absl::string_view name,
    const std::function<std::unique_ptr<Resource>()>& create) {
  absl::MutexLock l(&mu_);
  auto key = std::make_pair(ContainerOrDefault(container), std::string(name));
  auto it = resources_.find(key);
  if (it != resources_.end()) return it->second;
  std::shared_ptr<Resource> r = create();
  if (r == nullptr) {
    return absl::InternalError(absl::StrCat("could not create resource ", key.first, "/", name));
  }
  resources_.emplace(std::move(key), r);
  return r;
}

std::shared_ptr<Resource> ResourceMgr::FindResource(absl::string_view container,
                                                    absl::string_view name) const {
  absl::MutexLock l(&mu_);
  auto it = resources_.find(std::make_pair(ContainerOrDefault(container), std::string(name)));
  return it == resources_.end() ? nullptr : it->second;
}

bool ResourceMgr::DeleteVar(absl::string_view container, absl::string_view name) {
  std::shared_ptr<Var> var;
  {
    absl::MutexLock l(&mu_);
    auto it = vars_.find({ContainerOrDefault(container), std::string(name)});
    if (it == vars_.end()) return false;
    var = std::move(it->second);
    vars_.erase(it);
    ChangedLocked();
  }
  {
    absl::MutexLock l(var->mu());
    var->Reset();
  }
  absl::MutexLock l(&mu_);
  deleted_.push_back(std::move(var));
  return true;
}

std::vector<std::pair<std::string, std::string>> ResourceMgr::VarNames() const {
  absl::MutexLock l(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, var] : vars_) out.push_back(key);
  return out;
}

absl::Status ResourceMgr::CheckVariablesIntact() const {
  // Each variable's lock is taken without the manager's: a variable's
  // first value takes the manager's lock under the variable's.
  std::vector<std::shared_ptr<Var>> vars;
  {
    absl::MutexLock l(&mu_);
    for (const auto& [key, var] : vars_) vars.push_back(var);
  }
  for (const std::shared_ptr<Var>& var : vars) {
    absl::ReaderMutexLock vl(var->mu());
    if (!var->is_initialized()) continue;
    if (absl::Status s = var->value().CheckIntact(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("variable ", var->name(), ": ", s.message()));
    }
  }
  return absl::OkStatus();
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

Tensor MakeVarHandle(absl::string_view container, absl::string_view name, DataType dtype,
                     const PartialShape& shape) {
  Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle());
  ResourceHandle& h = t.data<ResourceHandle>()[0];
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container(ContainerOrDefault(container));
  h.set_name(std::string(name));
  h.set_maybe_type_name("N10tensorflow3VarE");  // TensorFlow's, as its errors print it
  ResourceHandleProto::DtypeAndShape* ds = h.add_dtypes_and_shapes();
  ds->set_dtype(dtype);
  shape.AsProto(ds->mutable_shape());
  return t;
}

absl::Status VarNotFoundError(const ResourceHandle& handle) {
  return absl::FailedPreconditionError(absl::StrCat(
      "Could not find variable ", handle.name(),
      ". This could mean that the variable has been deleted. In TF1, it can also mean the "
      "variable is uninitialized. Debug info: container=",
      handle.container(), ", status error message=Resource ", handle.container(), "/",
      handle.name(), "/N10tensorflow3VarE does not exist."));
}

absl::StatusOr<Var*> LookupVar(ResourceMgr* rm, const ResourceHandle& handle) {
  Var* v = rm->FindVar(handle.container(), handle.name());
  if (v == nullptr) return VarNotFoundError(handle);
  return v;
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
