// Which kernel computes which op. One factory per op type; the factory reads
// the node's attrs (usually "T") and builds the kernel for that dtype, or
// returns Unimplemented naming the op and dtype.
//
//   registry->Register("Neg", [](OpKernelConstruction* c) { ... });
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> k,
//                       GlobalKernelRegistry()->CreateKernel(node));
//
// Sessions take kernels from GlobalKernelRegistry(), which holds only what
// was linked in: the standard CPU kernels come from the one target
// //runtime/engine/kernels:standard_kernels, whose single static
// registrar fills it at start-up (see runtime/engine/kernels/standard_kernels.h),
// and RegisterKernel adds your own. Safe for concurrent use.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNEL_REGISTRY_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {

using KernelFactory =
    std::function<absl::StatusOr<std::unique_ptr<OpKernel>>(OpKernelConstruction*)>;

// Safe for concurrent use.
class KernelRegistry {
 public:
  // Replaces any earlier factory for `op`.
  void Register(const std::string& op, KernelFactory factory);

  // Returns NotFound naming the node and op when no kernel is registered,
  // or the factory's error with the node name.
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node) const;
  // Whether a kernel is registered for `op` (for some dtypes at least).
  bool HasKernel(const std::string& op) const;
  // The ops with a kernel, sorted.
  std::vector<std::string> Ops() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, KernelFactory> factories_ ABSL_GUARDED_BY(mu_);
};

// The registry sessions use. Never destroyed.
KernelRegistry* GlobalKernelRegistry();

// Adds (or replaces) the kernel sessions use for `op` (TensorFlow's
// REGISTER_KERNEL_BUILDER), for ops of your own (RegisterOp). Thread-safe;
// sessions created afterwards use it.
void RegisterKernel(const std::string& op, KernelFactory factory);

// Unimplemented: "no CPU kernel for op <op> with dtype <dtype>".
absl::Status NoKernelForType(const OpKernelConstruction* c, DataType dt);

// A factory for kernel class K, which may define
// `absl::Status Init(OpKernelConstruction*)` to read and check attrs.
template <typename K>
KernelFactory MakeFactory();

// A factory that builds K<T> for the T among Ts that the node's `attr`
// (default "T") names, or returns Unimplemented.
template <template <typename> class K, typename... Ts>
KernelFactory TypedFactory(std::string attr = "T");

// A factory for K (one class) when the node's `attr` is `dtype`, else
// Unimplemented: for kernels TensorFlow registers for one dtype of an op
// with a type attr.
template <typename K>
KernelFactory OneTypeFactory(DataType dtype, std::string attr = "T");

// Implementation details follow. Clients should ignore.

namespace kernel_registry_internal {
template <typename K, typename = void>
struct HasInit : std::false_type {};
template <typename K>
struct HasInit<K, std::void_t<decltype(std::declval<K&>().Init(
                      std::declval<OpKernelConstruction*>()))>> : std::true_type {};

template <typename K>
absl::StatusOr<std::unique_ptr<OpKernel>> Build(OpKernelConstruction* c) {
  auto k = std::make_unique<K>(c);
  if constexpr (HasInit<K>::value) MG_RETURN_IF_ERROR(k->Init(c));
  return std::unique_ptr<OpKernel>(std::move(k));
}
}  // namespace kernel_registry_internal

template <typename K>
KernelFactory MakeFactory() {
  return [](OpKernelConstruction* c) { return kernel_registry_internal::Build<K>(c); };
}

template <template <typename> class K, typename... Ts>
KernelFactory TypedFactory(std::string attr) {
  return [attr](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr(attr, &dt));
    absl::StatusOr<std::unique_ptr<OpKernel>> k = NoKernelForType(c, dt);
    ((dt == DataTypeToEnum<Ts>::value ? (k = kernel_registry_internal::Build<K<Ts>>(c), true)
                                      : false) ||
     ...);
    return k;
  };
}

template <typename K>
KernelFactory OneTypeFactory(DataType dtype, std::string attr) {
  return [dtype, attr](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType dt;
    MG_RETURN_IF_ERROR(c->GetAttr(attr, &dt));
    if (dt != dtype) return NoKernelForType(c, dt);
    return kernel_registry_internal::Build<K>(c);
  };
}

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNEL_REGISTRY_H_
