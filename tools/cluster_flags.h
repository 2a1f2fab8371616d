// The flags a process of a cluster takes (tools/server, tools/train), in one
// place: --cluster or --cluster_file, --job_name, --task_index, --bind, and
// TLS and token (--tls_cert, --tls_key, --tls_ca, --auth_token_file).

#ifndef MINIGRAPH_TOOLS_CLUSTER_FLAGS_H_
#define MINIGRAPH_TOOLS_CLUSTER_FLAGS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "session/distributed/server.h"

namespace minigraph {

// True when --cluster or --cluster_file is given, or else the TF_CONFIG
// environment variable names a cluster (or does not parse).
bool ClusterFlagsGiven();

// The server options the flags (or TF_CONFIG: its cluster, and its task
// unless --job_name is given) describe; also makes the TLS and token
// settings this process's grpc:// client settings. Returns InvalidArgument
// naming the flag at fault (both --cluster and --cluster_file, a cluster
// without --job_name, a negative --task_index, a task the cluster does not
// have), InvalidArgument starting "TF_CONFIG: " for a TF_CONFIG that does not
// parse or names a task its cluster does not have, and the Env's error for a
// file that cannot be read.
absl::StatusOr<ServerOptions> ServerOptionsFromFlags();

// With --retain_freed_memory (train's default), RetainFreedMemory
// (core/allocator.h): tensors that cross the network, and the copies a step
// makes of variables an asynchronous save still reads, come and go every
// step, and fresh pages cost a page fault each (about a third of
// RecvTensor's time on a 64 MiB tensor). Without it, freed large tensors
// go back to the kernel (SetDefaultAllocatorCacheBytes(0)): a server whose
// clients' steps once needed gigabytes does not keep them.
// ServerOptionsFromFlags calls it; `train` calls it in every mode.
void ApplyMemoryFlags();

// Makes --retain_freed_memory off unless the command line gives it: the
// server's default. Call before parsing the flags.
void DefaultToReturningFreedMemory();

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_CLUSTER_FLAGS_H_
