#include "runtime/engine/kernels/internal/resource_handles.h"

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "runtime/engine/resource_mgr.h"

namespace minigraph {
namespace kernels_internal {
namespace {

std::string ContainerOrDefault(absl::string_view container) {
  return container.empty() ? ResourceMgr::kDefaultContainer : std::string(container);
}

}  // namespace

Tensor ResourceHandleTensor(absl::string_view container, absl::string_view name,
                            absl::string_view type_name) {
  Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle());
  ResourceHandle& h = t.data<ResourceHandle>()[0];
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container(ContainerOrDefault(container));
  h.set_name(std::string(name));
  h.set_maybe_type_name(std::string(type_name));
  return t;
}

std::unique_ptr<Var> RefHandle(absl::string_view container, absl::string_view name,
                               absl::string_view node) {
  auto v = std::make_unique<Var>(DT_STRING, std::string(node));
  absl::MutexLock l(v->mu());
  v->set_value(Tensor::Vector<std::string>({ContainerOrDefault(container), std::string(name)}));
  return v;
}

absl::StatusOr<ResourceName> HandleInput(const OpKernelContext* ctx, int i) {
  if (Var* ref = ctx->input_ref(i); ref != nullptr) {
    MG_ASSIGN_OR_RETURN(Tensor t, ref->Read());
    if (t.dtype() != DT_STRING || t.shape() != TensorShape({2})) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Resource handle must have 2 elements, but had shape: ", t.shape().DebugString()));
    }
    return ResourceName{t.data<std::string>()[0], t.data<std::string>()[1]};
  }
  const Tensor& t = ctx->input(i);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("input ", i,
                                                   " must be a scalar resource handle, got ",
                                                   DataTypeString(t.dtype()), " ",
                                                   t.shape().DebugString()));
  }
  const ResourceHandle& h = t.data<ResourceHandle>()[0];
  return ResourceName{h.container(), h.name()};
}

absl::Status NotFoundResource(const ResourceName& name, absl::string_view type_name) {
  return absl::NotFoundError(absl::StrCat("Resource ", name.container, "/", name.name, "/",
                                          type_name, " does not exist."));
}

void SetHandleOutput(OpKernelContext* ctx, Var* ref_handle, absl::string_view container,
                     absl::string_view name, absl::string_view type_name) {
  if (ref_handle != nullptr) {
    ctx->set_output_ref(0, ref_handle);
  } else {
    ctx->set_output(0, ResourceHandleTensor(container, name, type_name));
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
