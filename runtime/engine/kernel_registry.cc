#include "runtime/engine/kernel_registry.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace minigraph {

namespace {

// InvalidArgument (TensorFlow's "No OpKernel was registered to support Op")
// when a dtype attr of `node` holds a dtype that minigraph's kernel for its op
// does not take (OpRegistrationData::kernel_types).
absl::Status CheckKernelTypes(const Node& node) {
  for (const auto& [attr, types] : node.op().kernel_types) {
    auto it = node.def().attr().find(attr);
    if (it == node.def().attr().end()) continue;
    std::vector<DataType> values;
    if (it->second.value_case() == AttrValue::kType) {
      values.push_back(it->second.type());
    } else if (it->second.value_case() == AttrValue::kList) {
      for (int t : it->second.list().type()) values.push_back(static_cast<DataType>(t));
    }
    for (DataType t : values) {
      if (std::find(types.begin(), types.end(), t) != types.end()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "no CPU kernel of minigraph's runs op ", node.type_string(), " with ", attr, "=",
          DataTypeString(t), " (node '", node.name(), "'); it takes ", attr, " in {",
          absl::StrJoin(types, ", ",
                        [](std::string* out, DataType d) { out->append(DataTypeString(d)); }),
          "}"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void KernelRegistry::Register(const std::string& op, KernelFactory factory) {
  absl::MutexLock l(&mu_);
  factories_[op] = std::move(factory);
}

bool KernelRegistry::HasKernel(const std::string& op) const {
  absl::MutexLock l(&mu_);
  return factories_.contains(op);
}

std::vector<std::string> KernelRegistry::Ops() const {
  std::vector<std::string> ops;
  {
    absl::ReaderMutexLock l(&mu_);
    for (const auto& [op, factory] : factories_) ops.push_back(op);
  }
  std::sort(ops.begin(), ops.end());
  return ops;
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
  MG_RETURN_IF_ERROR(CheckKernelTypes(node));
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
