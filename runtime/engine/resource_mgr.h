// The state of a session that outlives steps: variables, by container and
// name. Owned by the session's state; sessions on one `local://` target
// share one.
//
//   MG_ASSIGN_OR_RETURN(Var* v, rm->LookupOrCreateVar("", "w", DT_FLOAT));
//
// Safe for concurrent use.

#ifndef MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_
#define MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/variable.h"

namespace minigraph {

class ResourceMgr {
 public:
  // TensorFlow's default container for an empty `container` attr.
  static constexpr char kDefaultContainer[] = "localhost";

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
  // (container, name) of every variable, sorted.
  std::vector<std::pair<std::string, std::string>> VarNames() const;

 private:
  mutable absl::Mutex mu_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Var>> vars_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_RESOURCE_MGR_H_
