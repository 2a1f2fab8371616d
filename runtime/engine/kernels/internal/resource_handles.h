// The two forms of a handle to a shared resource (a queue, a reader), as
// its op outputs it and as the ops on it take it: TensorFlow's V2 ops pass a
// DT_RESOURCE scalar naming (container, name); the V1 ops of graphs from
// before TensorFlow 1.2 pass a reference to a string vector
// [container, name], which the op that made the resource owns.
//
//   ctx->set_output(0, ResourceHandleTensor("localhost", "q", kQueueTypeName));
//   MG_ASSIGN_OR_RETURN(ResourceName name, HandleInput(ctx, 0));   // either form
//
// Thread safety: functions of their arguments; the Var a V1 op owns is
// read under its lock.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RESOURCE_HANDLES_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RESOURCE_HANDLES_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "runtime/engine/op_kernel.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/engine/variable.h"

namespace minigraph {
namespace kernels_internal {

struct ResourceName {
  std::string container;
  std::string name;
};

// A V2 handle: `container` "" is ResourceMgr::kDefaultContainer;
// `type_name` is TensorFlow's mangled class name, which its errors print.
Tensor ResourceHandleTensor(absl::string_view container, absl::string_view name,
                            absl::string_view type_name);

// A V1 handle for the node `node` to output by reference (set_output_ref):
// [container, name], `container` "" as above.
std::unique_ptr<Var> RefHandle(absl::string_view container, absl::string_view name,
                               absl::string_view node);

// The resource input `i` names, in either form. InvalidArgument for a V2
// input that is not a scalar resource, or a V1 one that is not two strings
// (TensorFlow's "Resource handle must have 2 elements").
absl::StatusOr<ResourceName> HandleInput(const OpKernelContext* ctx, int i);

absl::Status NotFoundResource(const ResourceName& name, absl::string_view type_name);

// The resource of type R (a Resource subclass) input `i` names in the
// session's ResourceMgr, kept alive by `hold`; NotFound in TensorFlow's
// words ("Resource localhost/q/<type_name> does not exist.") when there is
// none of that type.
template <typename R>
absl::StatusOr<R*> ResourceFromInput(const OpKernelContext* ctx, int i,
                                     absl::string_view type_name,
                                     std::shared_ptr<Resource>* hold) {
  absl::StatusOr<ResourceName> handle = HandleInput(ctx, i);
  if (!handle.ok()) return handle.status();
  *hold = ctx->resource_manager()->FindResource(handle->container, handle->name);
  auto* r = dynamic_cast<R*>(hold->get());
  if (r == nullptr) return NotFoundResource(*handle, type_name);
  return r;
}

// Outputs a resource op's handle: by reference to `ref_handle` (a V1 op's,
// from RefHandle) when there is one, else as a V2 handle.
void SetHandleOutput(OpKernelContext* ctx, Var* ref_handle, absl::string_view container,
                     absl::string_view name, absl::string_view type_name);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_RESOURCE_HANDLES_H_
