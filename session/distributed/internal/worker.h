// The worker service of one task: its device, its resource containers, and
// the graph partitions masters register and run on it (RegisterGraph,
// RunGraph), whose _Send/_Recv pairs meet in one rendezvous per step, across
// tasks through RecvTensor. Internal to session/distributed; Server owns it.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "session/distributed/internal/master.h"
#include "session/distributed/worker_service.grpc.pb.h"

namespace minigraph {
namespace distributed_internal {

// RecvTensor is a raw callback method: it answers when the value is sent,
// without holding a thread, with the tensor's buffer as the response's bytes
// (recv_tensor_coding.h).
class Worker final : public tensorflow::WorkerService::WithRawCallbackMethod_RecvTensor<
                         tensorflow::WorkerService::Service>,
                     public LocalWorker {
 public:
  explicit Worker(TaskContext task);
  ~Worker() override;

  // Fails every step in progress and every step that starts later (at
  // shutdown, before the server stops: no RecvTensor is left waiting).
  void AbortAll();

  absl::Status RunGraphLocally(const tensorflow::RunGraphRequest& req,
                               tensorflow::RunGraphResponse* resp, int64_t timeout_ms,
                               std::function<bool()> cancelled) override;
  void EndStep(int64_t step_id) override;

  grpc::Status GetStatus(grpc::ServerContext* ctx, const tensorflow::GetStatusRequest* req,
                         tensorflow::GetStatusResponse* resp) override;
  grpc::Status CreateWorkerSession(grpc::ServerContext* ctx,
                                   const tensorflow::CreateWorkerSessionRequest* req,
                                   tensorflow::CreateWorkerSessionResponse* resp) override;
  grpc::Status DeleteWorkerSession(grpc::ServerContext* ctx,
                                   const tensorflow::DeleteWorkerSessionRequest* req,
                                   tensorflow::DeleteWorkerSessionResponse* resp) override;
  grpc::Status RegisterGraph(grpc::ServerContext* ctx, const tensorflow::RegisterGraphRequest* req,
                             tensorflow::RegisterGraphResponse* resp) override;
  grpc::Status DeregisterGraph(grpc::ServerContext* ctx,
                               const tensorflow::DeregisterGraphRequest* req,
                               tensorflow::DeregisterGraphResponse* resp) override;
  grpc::Status RunGraph(grpc::ServerContext* ctx, const tensorflow::RunGraphRequest* req,
                        tensorflow::RunGraphResponse* resp) override;
  grpc::Status CleanupGraph(grpc::ServerContext* ctx, const tensorflow::CleanupGraphRequest* req,
                            tensorflow::CleanupGraphResponse* resp) override;
  grpc::ServerUnaryReactor* RecvTensor(grpc::CallbackServerContext* ctx,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::Status CleanupAll(grpc::ServerContext* ctx, const tensorflow::CleanupAllRequest* req,
                          tensorflow::CleanupAllResponse* resp) override;

 private:
  struct Registered;
  class StepRendezvous;
  std::shared_ptr<StepRendezvous> Step(int64_t step_id);

  const TaskContext task_;
  const std::string task_name_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Registered>> graphs_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, std::shared_ptr<StepRendezvous>> steps_ ABSL_GUARDED_BY(mu_);
  // Steps already cleaned up, and why, newest last: a RunGraph or RecvTensor
  // that arrives after its step ended (it raced with the abort) fails at
  // once instead of waiting for values no one will send.
  absl::flat_hash_map<int64_t, absl::Status> ended_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> ended_order_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
