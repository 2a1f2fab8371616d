// StateService (state_service.proto): the long poll a waiting worker sleeps
// on until its chief's model may be ready. As a worker it watches its own
// task's state (ResourceMgr::version); as a master it fans a watch out to
// the tasks that hold a session's variables. Calls wait without holding a
// thread (gRPC's callback API). Internal to session/distributed; Server
// owns it.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_STATE_SERVICE_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_STATE_SERVICE_H_

#include "session/distributed/internal/master.h"
#include "session/distributed/internal/task_context.h"
#include "session/distributed/state_service.grpc.pb.h"

namespace minigraph {
namespace distributed_internal {

class StateService final : public distributed::StateService::CallbackService {
 public:
  // `master` (not owned) must outlive this service.
  StateService(TaskContext task, Master* master) : task_(std::move(task)), master_(master) {}

  grpc::ServerUnaryReactor* GetSessionState(grpc::CallbackServerContext* ctx,
                                            const distributed::GetSessionStateRequest* req,
                                            distributed::StateToken* resp) override;
  grpc::ServerUnaryReactor* WatchSessionState(
      grpc::CallbackServerContext* ctx, const distributed::WatchSessionStateRequest* req,
      distributed::WatchSessionStateResponse* resp) override;
  grpc::ServerUnaryReactor* WatchTask(grpc::CallbackServerContext* ctx,
                                      const distributed::WatchTaskRequest* req,
                                      distributed::TaskState* resp) override;

 private:
  distributed::TaskState Current() const;

  const TaskContext task_;
  Master* const master_;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_STATE_SERVICE_H_
