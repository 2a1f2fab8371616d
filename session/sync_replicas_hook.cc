#include "session/sync_replicas_hook.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "session/queue_runner.h"

namespace minigraph {

absl::Status SyncReplicasHook::AfterCreateSession(Session* session, Coordinator* coord) {
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(session->Run({}, {ops_.ready_for_local_init_op}, {}, &out));
  if (out[0].NumElements() > 0) {
    std::vector<std::string> names;
    if (out[0].dtype() == DT_STRING) {
      names.assign(out[0].data<std::string>(), out[0].data<std::string>() + out[0].NumElements());
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "Init operations did not make model ready for SyncReplicasOptimizer local_init. Init "
        "op: ",
        ops_.local_init_op, ", error: Variables not initialized: ", absl::StrJoin(names, ", ")));
  }
  MG_RETURN_IF_ERROR(session->Run({}, {}, {ops_.local_init_op}, nullptr));
  if (!ops_.init_tokens_op.empty()) {
    MG_RETURN_IF_ERROR(session->Run({}, {}, {ops_.init_tokens_op}, nullptr));
  }
  for (const QueueRunnerDef& def : ops_.queue_runners) {
    MG_RETURN_IF_ERROR(StartQueueRunner(def, session, coord));
  }
  return absl::OkStatus();
}

}  // namespace minigraph
