// Stubs for the WorkerService of every task in a cluster, one channel per
// address, made on first use and kept. Internal to session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_CACHE_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_CACHE_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/proto/cluster.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "session/distributed/security.h"
#include "session/distributed/state_service.grpc.pb.h"
#include "session/distributed/worker_service.grpc.pb.h"

namespace minigraph {
namespace distributed_internal {

class WorkerCache {
 public:
  WorkerCache(tensorflow::ClusterDef cluster, TransportSecurity security)
      : cluster_(std::move(cluster)), security_(std::move(security)) {}
  // Waits for the calls started with Async to finish: their stubs and
  // channels must outlive them.
  ~WorkerCache();

  struct Worker {
    std::string address;  // HOST:PORT
    std::string task;     // "/job:ps/replica:0/task:0"
    std::unique_ptr<tensorflow::WorkerService::Stub> stub;
    // The same channel, for calls with raw bytes (RecvTensor).
    std::unique_ptr<grpc::GenericStub> generic;
    // The same channel, for StateService (our extension).
    std::unique_ptr<distributed::StateService::Stub> state;
  };
  // The worker of the task a device belongs to ("/job:ps/replica:0/task:0/
  // device:CPU:0", or the task's name). Returns InvalidArgument for a device
  // string that does not parse and NotFound for a task not in the cluster.
  absl::StatusOr<Worker*> ForDevice(const std::string& device);

  const tensorflow::ClusterDef& cluster() const { return cluster_; }
  // Where task `task` ("/job:localhost/replica:0/task:0") really listens
  // when the cluster says port 0 (a server that picked a free port).
  // Before the task's worker is first used.
  void SetAddress(const std::string& task, const std::string& address);
  // TLS and token for calls to other tasks.
  const TransportSecurity& security() const { return security_; }
  // A context for a call to a worker: the token, and a deadline `ms` from
  // now (none for ms <= 0).
  std::unique_ptr<grpc::ClientContext> NewContext(int64_t ms) const;

  // Starts a call whose answer nobody waits for (CleanupGraph,
  // DeregisterGraph): `start` issues it and must arrange for `done` to run
  // when it completes. Bounded by the deadline `start` sets.
  void Async(const std::function<void(std::function<void()> done)>& start);

 private:
  const tensorflow::ClusterDef cluster_;
  const TransportSecurity security_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Worker>> workers_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::string> addresses_ ABSL_GUARDED_BY(mu_);
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_CACHE_H_
