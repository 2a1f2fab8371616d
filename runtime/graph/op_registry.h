// The ops minigraph knows, by name.
//
//   const OpRegistry* ops = GlobalOpRegistry();   // runtime/graph/ops/standard_ops.h
//   MG_ASSIGN_OR_RETURN(const OpRegistrationData* op, ops->LookUp("MatMul"));
//
// Ops register explicitly into a registry object, not through static
// initializers, so nothing depends on link order. Safe for concurrent
// lookups once registration is done.

#ifndef MINIGRAPH_RUNTIME_GRAPH_OP_REGISTRY_H_
#define MINIGRAPH_RUNTIME_GRAPH_OP_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/graph/op_def_builder.h"

namespace minigraph {

// Safe for concurrent use; a registered op's data never moves.
class OpRegistry {
 public:
  OpRegistry() = default;
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // Adds an op. Returns AlreadyExists for a second op of one name, or the
  // builder's error.
  absl::Status Register(const OpDefBuilder& builder);
  // Adds an op whose definition is already an OpDef (as the TensorFlow
  // catalogue's are). Returns AlreadyExists for a second op of one name.
  absl::Status Register(OpRegistrationData data);

  // Returns NotFound naming the op when it is not registered.
  absl::StatusOr<const OpRegistrationData*> LookUp(absl::string_view op_name) const;
  std::vector<std::string> OpNames() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<OpRegistrationData>> ops_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OP_REGISTRY_H_
