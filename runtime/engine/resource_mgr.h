// The state of a session that outlives steps: variables, by container and
// name. Owned by the session's state; sessions on one `local://` target
// share one.
//
//   MG_ASSIGN_OR_RETURN(Var* v, rm->LookupOrCreateVar("", "w", DT_FLOAT));
//
// Safe for concurrent use.

#ifndef MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_
#define MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"
#include "core/types.h"
#include "runtime/engine/variable.h"

namespace minigraph {

// State other than a variable that a graph shares by (container, name): a
// lookup table. Kernels subclass it and find it again by dynamic cast.
class Resource {
 public:
  virtual ~Resource() = default;
  // TensorFlow's type name as its errors print it (e.g. a table's).
  virtual std::string TypeName() const = 0;
};

class ResourceMgr {
 public:
  // TensorFlow's default container for an empty `container` attr.
  static constexpr char kDefaultContainer[] = "localhost";

  ResourceMgr() = default;
  ~ResourceMgr();
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  // Returns the variable, creating it (uninitialized) on first use. Returns
  // InvalidArgument when it exists with another dtype. The pointer stays
  // valid until the container is cleared.
  absl::StatusOr<Var*> LookupOrCreateVar(absl::string_view container,
                                         absl::string_view name, DataType dtype,
                                         const PartialShape& declared_shape = PartialShape());
  // nullptr when absent.
  Var* FindVar(absl::string_view container, absl::string_view name) const;
  // Drops every variable of `container`.
  void Cleanup(absl::string_view container);
  // Forgets one variable (DestroyResourceOp): later lookups do not find it.
  // Returns false when there is none. Its value is freed at once; the Var
  // itself stays until the manager goes, so a step that still holds the
  // pointer sees an uninitialized variable, never freed memory.
  bool DeleteVar(absl::string_view container, absl::string_view name);
  // The resource named (container, name), made by `create` on first use
  // (`create` runs with the manager's lock held). The caller checks its type
  // (dynamic_pointer_cast): another kind of resource may have the name.
  absl::StatusOr<std::shared_ptr<Resource>> LookupOrCreateResource(
      absl::string_view container, absl::string_view name,
      const std::function<std::unique_ptr<Resource>()>& create);
  // nullptr when absent.
  std::shared_ptr<Resource> FindResource(absl::string_view container, absl::string_view name) const;

  // (container, name) of every variable, sorted.
  std::vector<std::pair<std::string, std::string>> VarNames() const;

  // OK unless a variable's value may have changed behind the program's back
  // (Tensor::CheckIntact: restored in place from a checkpoint whose mapping
  // lost its lease): DataLoss naming the variable and where its value came
  // from. Takes each variable's lock in turn.
  absl::Status CheckVariablesIntact() const;

  // Counts the changes after which a readiness check (ready_op) may answer
  // differently: a variable getting its first value, a container cleared.
  // Updating an initialized variable (training, restoring) is not one.
  uint64_t version() const;
  // Calls `fn` once, when version() moves past `seen` (at once, before
  // returning, if it already has), so a waiter sleeps until the model may be
  // ready instead of polling. `fn` runs with the manager's lock held: it
  // must be quick and must not call the manager. Returns an id for Unwatch.
  // `fn` gets the new version.
  int64_t Watch(uint64_t seen, std::function<void(uint64_t)> fn);
  // After Unwatch returns, the watch's `fn` is not running and never will.
  // No effect for an id already called or unwatched.
  void Unwatch(int64_t id);

 private:
  void ChangedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Changed() ABSL_LOCKS_EXCLUDED(mu_);

  mutable absl::Mutex mu_;
  uint64_t version_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_watch_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, std::function<void(uint64_t)>> watches_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Var>> vars_
      ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Var>> deleted_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Resource>> resources_
      ABSL_GUARDED_BY(mu_);
};

// A resource variable's handle, as VarHandleOp outputs it: a scalar
// DT_RESOURCE naming the variable (container "" is kDefaultContainer).
Tensor MakeVarHandle(absl::string_view container, absl::string_view name, DataType dtype,
                     const PartialShape& shape);

// The variable a handle names in `rm`, or FailedPrecondition with
// TensorFlow's text ("Could not find variable NAME. ... Resource
// localhost/NAME/N10tensorflow3VarE does not exist.") when there is none or
// it has no value yet, which ReportUninitializedVariables' users recognize.
absl::StatusOr<Var*> LookupVar(ResourceMgr* rm, const ResourceHandle& handle);
// The same error, for a handle whose variable exists but has no value.
absl::Status VarNotFoundError(const ResourceHandle& handle);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_
