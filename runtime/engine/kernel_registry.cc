#include "runtime/engine/kernel_registry.h"

#include "absl/strings/str_cat.h"

namespace minigraph {

void KernelRegistry::Register(const std::string& op, KernelFactory factory) {
  absl::MutexLock l(&mu_);
  factories_[op] = std::move(factory);
}

bool KernelRegistry::HasKernel(const std::string& op) const {
  absl::MutexLock l(&mu_);
  return factories_.contains(op);
}

absl::StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(const Node& node) const {
  KernelFactory factory;
  {
    absl::ReaderMutexLock l(&mu_);
    auto it = factories_.find(node.type_string());
    if (it == factories_.end()) {
      return absl::NotFoundError(absl::StrCat(
          "no kernel registered for op ", node.type_string(), " (node '", node.name(),
          "'); the standard CPU kernels come with //runtime/engine/kernels:standard_kernels, "
          "your own with RegisterKernel"));
    }
    factory = it->second;
  }
  OpKernelConstruction c(&node);
  auto k = factory(&c);
  if (!k.ok()) {
    return AddContext(k.status(), absl::StrCat("node '", node.name(), "'"));
  }
  return k;
}

KernelRegistry* GlobalKernelRegistry() {
  static KernelRegistry* const registry = new KernelRegistry;
  return registry;
}

void RegisterKernel(const std::string& op, KernelFactory factory) {
  GlobalKernelRegistry()->Register(op, std::move(factory));
}

absl::Status NoKernelForType(const OpKernelConstruction* c, DataType dt) {
  return absl::UnimplementedError(absl::StrCat("no CPU kernel for op ", c->def().op(),
                                               " with dtype ", DataTypeString(dt)));
}

}  // namespace minigraph
