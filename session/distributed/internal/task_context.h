// What the master and worker services of one task share. Internal to
// session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_TASK_CONTEXT_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_TASK_CONTEXT_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/env.h"
#include "core/proto/device_attributes.pb.h"
#include "core/proto/worker.pb.h"
#include "google/protobuf/repeated_field.h"
#include "session/distributed/internal/worker_cache.h"
#include "session/session_state.h"

namespace minigraph {
namespace distributed_internal {

// What a master asks of its own task's worker without gRPC, as TensorFlow's
// master calls its local worker in process.
class LocalWorker {
 public:
  virtual ~LocalWorker() = default;
  // RunGraph's work; `timeout_ms` <= 0 is none; `cancelled` (may be empty)
  // as RunOptions::cancelled.
  virtual absl::Status RunGraphLocally(const tensorflow::RunGraphRequest& req,
                                       tensorflow::RunGraphResponse* resp, int64_t timeout_ms,
                                       std::function<bool()> cancelled) = 0;
  // CleanupGraph's work: the step's rendezvous ends.
  virtual void EndStep(int64_t step_id) = 0;
};

struct TaskContext {
  std::string job_name = {};
  int task_index = 0;
  tensorflow::DeviceAttributes device = {};
  // The task's variables; shared by every session that does not ask for
  // isolate_session_state.
  std::shared_ptr<SessionState> state = nullptr;
  // Every task's worker, this one's included.
  std::shared_ptr<WorkerCache> workers = nullptr;
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // SessionOptions::max_step_bytes of the task's sessions.
  int64_t max_step_bytes = 0;
  Env* env = nullptr;
  // This task's worker, for its master; not owned (the server owns both).
  LocalWorker* local_worker = nullptr;
};

// Releases the resources in `containers` (none = the default container), as
// TensorFlow's Reset and CleanupAll do.
void ClearContainers(SessionState* state,
                     const google::protobuf::RepeatedPtrField<std::string>& containers);

// A new random 64-bit handle in hex (sessions, graphs).
std::string NewHandle();

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_TASK_CONTEXT_H_
