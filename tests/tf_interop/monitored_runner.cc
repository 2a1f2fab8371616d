// Runs a MonitoredTrainingSession (session/monitored_session.h) on a small
// model, for summary_interop_test.py: w starts at 1 and grows by 0.5 a
// step, loss = 2w, with the summaries "loss" and "learning_rate" (0.01).
//
//   monitored_runner --logdir=D --last_step=10 --save_checkpoint_steps=4 \
//     --save_summaries_steps=3 --log_step_count_steps=2
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "session/basic_session_run_hooks.h"
#include "session/monitored_session.h"

ABSL_FLAG(std::string, logdir, "", "Checkpoints and event files");
ABSL_FLAG(int64_t, last_step, 10, "StopAtStepHook's last step");
ABSL_FLAG(int64_t, save_checkpoint_steps, 4, "");
ABSL_FLAG(int64_t, save_summaries_steps, 3, "");
ABSL_FLAG(int64_t, log_step_count_steps, 2, "");

namespace minigraph {
namespace {

absl::Status Run() {
  Scope root = Scope::NewRootScope();
  Variable step = GetOrCreateGlobalStep(root);
  Variable w = Variable::Create(root, "w", Tensor::Scalar<float>(1.0f));
  Output loss = ops::Mul(root.WithOpName("loss"), w.value(), ops::Const(root, 2.0f));
  summary::Scalar(root, "loss", loss);
  summary::Scalar(root, "learning_rate", ops::Const(root, 0.01f));
  Output update = ops::AssignAdd(root.WithControlDependencies({loss.op()}), w.ref(),
                                 ops::Const(root, 0.5f));
  Output inc = ops::AssignAdd(root.WithControlDependencies({update.op()}), step.ref(),
                              ops::Const<int64_t>(root, 1));
  ops::Group(root.WithOpName("train"), {inc.op()});
  MG_ASSIGN_OR_RETURN(Scaffold scaffold, Scaffold::Finalize(root));
  MG_ASSIGN_OR_RETURN(auto stop,
                      StopAtStepHook::Create({.last_step = absl::GetFlag(FLAGS_last_step)}));
  MonitoredTrainingSessionOptions o;
  o.scaffold = &scaffold;
  o.checkpoint_dir = absl::GetFlag(FLAGS_logdir);
  o.save_checkpoint_steps = absl::GetFlag(FLAGS_save_checkpoint_steps);
  o.save_summaries_steps = absl::GetFlag(FLAGS_save_summaries_steps);
  o.log_step_count_steps = absl::GetFlag(FLAGS_log_step_count_steps);
  o.hooks = {stop};
  o.config.inter_op_threads = 1;  // the hooks' reads of the step come first
  MG_ASSIGN_OR_RETURN(auto session, MonitoredTrainingSession(o));
  int runs = 0;
  while (!session->ShouldStop()) {
    MG_RETURN_IF_ERROR(session->Run({}, {}, {"train"}, nullptr));
    ++runs;
  }
  MG_RETURN_IF_ERROR(session->Close());
  std::printf("runs %d\n", runs);
  return absl::OkStatus();
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  minigraph::SetMinLogLevel(minigraph::LogLevel::kWarning);
  absl::Status s = minigraph::Run();
  if (!s.ok()) {
    std::fprintf(stderr, "monitored_runner: %s\n", std::string(s.ToString()).c_str());
    return 1;
  }
  return 0;
}
