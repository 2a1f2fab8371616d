// The worker service of one task: its device, its resource containers, and
// the graph partitions masters register and run on it (RegisterGraph,
// RunGraph), whose _Send/_Recv pairs meet in one rendezvous per step, across
// tasks through RecvTensor. Internal to session/distributed; Server owns it.
//
// What a master that dies leaves behind is cleaned up, as TensorFlow's
// SessionMgr does and beyond: a master's partitions belong to the worker
// session it created (CreateWorkerSession), deleted with it; a master task
// that comes back with a new incarnation has its old sessions deleted; and
// a sweep, every second, deletes the sessions of a master task that stopped
// answering (probed with GetStatus once a session has been idle for
// kProbeMasterAfter) and ends the steps nothing ran on this task for
// kAbandonStepAfter (a RecvTensor from a peer for a step whose RunGraph
// never came), so that their waiters fail instead of waiting forever. Time
// is the task's Env's.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
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
  // Idle time after which a worker session's master is probed, and a step
  // that no RunGraph ran on this task is ended.
  static constexpr int64_t kProbeMasterAfterMicros = 60'000'000;
  static constexpr int64_t kAbandonStepAfterMicros = 60'000'000;

  explicit Worker(TaskContext task);
  ~Worker() override;

  // The cleanup the sweeper thread runs every second (tests call it after
  // advancing their Env's clock): ends abandoned steps; probes the master
  // of each idle session and deletes the sessions of one that is gone or
  // came back as a new incarnation. Sweeps run one at a time: a call made
  // while the sweeper thread's is probing returns after that one is done.
  void Sweep() ABSL_LOCKS_EXCLUDED(sweep_mu_);

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

  // How many worker sessions and registered graphs there are (for tests).
  std::pair<size_t, size_t> SessionsAndGraphs();

 private:
  struct Registered;
  struct Deleted;
  class StepRendezvous;
  // A master's worker session: the graphs it registered, and when it last
  // registered or ran one (Env micros).
  struct WorkerSession {
    std::string master_task;
    int64_t master_incarnation = 0;
    std::set<std::string> graphs;
    int64_t last_used = 0;
    int64_t last_probe = 0;
  };
  std::shared_ptr<StepRendezvous> Step(int64_t step_id);
  // Aborted naming `handle` when a request says it follows CreateWorkerSession
  // of a session this worker does not have; marks the session used.
  absl::Status UseSession(const std::string& handle, bool create_worker_session_called)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the session and its graphs; the steps it ran here are the
  // caller's to end.
  Deleted DeleteSessionLocked(const std::string& handle) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends a step with `why` (CleanupGraph's or the sweep's).
  void EndStep(int64_t step_id, const absl::Status& why);
  int64_t NowMicros() const;
  void SweepLoop();

  const TaskContext task_;
  const std::string task_name_;

  // Held for a whole sweep, probes included; taken before mu_.
  absl::Mutex sweep_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Registered>> graphs_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, WorkerSession> sessions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, std::shared_ptr<StepRendezvous>> steps_ ABSL_GUARDED_BY(mu_);
  // Steps already cleaned up, and why, newest last: a RunGraph or RecvTensor
  // that arrives after its step ended (it raced with the abort) fails at
  // once instead of waiting for values no one will send.
  absl::flat_hash_map<int64_t, absl::Status> ended_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> ended_order_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::Notification stop_sweeping_;
  std::thread sweeper_;
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_WORKER_H_
