// The master service of one task: clients' sessions (MasterSession), on
// the task's own state, so every session on the server sees the same
// variables for as long as the server runs, and steps that reach other tasks
// run there through their workers. Internal to session/distributed; Server
// owns it.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/device_attributes.pb.h"
#include "core/proto/master.pb.h"
#include "session/distributed/internal/master_session.h"
#include "session/distributed/internal/task_context.h"
#include "session/distributed/master_service.grpc.pb.h"

namespace minigraph {
namespace distributed_internal {

class Master final : public tensorflow::MasterService::Service {
 public:
  explicit Master(TaskContext task);
  ~Master() override;

  // Refuses new calls that change or run anything (Unavailable), then waits
  // up to `timeout` for those in flight to finish. Returns how many still
  // run. The server drains before it stops listening.
  int Drain(absl::Duration timeout);
  // Closes every session (at shutdown); later CreateSession calls fail.
  void CloseAll();
  // MasterSession::StateDevices of session `handle`; Aborted (TensorFlow's
  // "not found" text) for an unknown handle.
  absl::StatusOr<std::vector<std::string>> StateDevices(const std::string& handle);

  grpc::Status CreateSession(grpc::ServerContext* ctx, const tensorflow::CreateSessionRequest* req,
                             tensorflow::CreateSessionResponse* resp) override;
  grpc::Status ExtendSession(grpc::ServerContext* ctx, const tensorflow::ExtendSessionRequest* req,
                             tensorflow::ExtendSessionResponse* resp) override;
  grpc::Status PartialRunSetup(grpc::ServerContext* ctx,
                               const tensorflow::PartialRunSetupRequest* req,
                               tensorflow::PartialRunSetupResponse* resp) override;
  grpc::Status RunStep(grpc::ServerContext* ctx, const tensorflow::RunStepRequest* req,
                       tensorflow::RunStepResponse* resp) override;
  grpc::Status CloseSession(grpc::ServerContext* ctx, const tensorflow::CloseSessionRequest* req,
                            tensorflow::CloseSessionResponse* resp) override;
  grpc::Status ListDevices(grpc::ServerContext* ctx, const tensorflow::ListDevicesRequest* req,
                           tensorflow::ListDevicesResponse* resp) override;
  grpc::Status Reset(grpc::ServerContext* ctx, const tensorflow::ResetRequest* req,
                     tensorflow::ResetResponse* resp) override;
  grpc::Status MakeCallable(grpc::ServerContext* ctx, const tensorflow::MakeCallableRequest* req,
                            tensorflow::MakeCallableResponse* resp) override;
  grpc::Status RunCallable(grpc::ServerContext* ctx, const tensorflow::RunCallableRequest* req,
                           tensorflow::RunCallableResponse* resp) override;
  grpc::Status ReleaseCallable(grpc::ServerContext* ctx,
                               const tensorflow::ReleaseCallableRequest* req,
                               tensorflow::ReleaseCallableResponse* resp) override;

 private:
  // Counts a call in flight while it lives; !entered() once draining.
  class CallScope;

  // TensorFlow's Aborted "Session ... is not found. Possibly, this master
  // has restarted."
  static absl::Status NotFound(const std::string& handle);
  absl::StatusOr<std::shared_ptr<MasterSession>> Find(const std::string& handle);

  const TaskContext task_;
  const std::string task_name_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<MasterSession>> sessions_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_H_
