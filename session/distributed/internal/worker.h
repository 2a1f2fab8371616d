// The worker service of one task: its devices and its resource containers.
// Graph partitions (RegisterGraph, RunGraph, RecvTensor) answer
// Unimplemented with a message saying so. Internal to session/distributed;
// Server owns it.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_

#include "session/distributed/internal/master.h"
#include "session/distributed/worker_service.grpc.pb.h"

namespace minigraph {
namespace distributed_internal {

class Worker final : public tensorflow::WorkerService::Service {
 public:
  explicit Worker(TaskContext task) : task_(std::move(task)) {}

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
  grpc::Status RunGraph(grpc::ServerContext* ctx, const tensorflow::RunGraphRequest* req,
                        tensorflow::RunGraphResponse* resp) override;
  grpc::Status RecvTensor(grpc::ServerContext* ctx, const tensorflow::RecvTensorRequest* req,
                          tensorflow::RecvTensorResponse* resp) override;
  grpc::Status CleanupAll(grpc::ServerContext* ctx, const tensorflow::CleanupAllRequest* req,
                          tensorflow::CleanupAllResponse* resp) override;

 private:
  const TaskContext task_;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
