// minigraph's CPU kernels (Eigen). Linking this target (alwayslink)
// registers them all into GlobalKernelRegistry() at start-up: its one static
// registrar, in standard_kernels.cc, is how a binary says "I run graphs on
// the CPU". It is one of minigraph's three static initializers; the others
// register the session kinds (local_session.cc,
// session/distributed/grpc_session.cc). Each kernel family is a package of
// its own (nn/, math/, image/, ...: see BUILD), whose registration functions
// are internal (internal/kernel_families.h).
//
//   deps = ["//runtime/engine/kernels:standard_kernels", ...]
//
// A binary that only builds graphs or reads checkpoints does not link them.
//
// Thread safety: RegisterStandardKernels, as KernelRegistry::Register, may
// run while other threads use the registry.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_

#include "runtime/engine/kernel_registry.h"

namespace minigraph {

// Registers every kernel minigraph defines into `r` (in the build for
// ThreadSanitizer, all but the families BUILD names UNTHREADED_FAMILIES).
void RegisterStandardKernels(KernelRegistry* r);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_STANDARD_KERNELS_H_
