// Chief and workers on one model, in one process: the chief prepares the
// model (restoring the latest checkpoint of --logdir, or initializing), the
// workers wait for it (WaitForSession through the Scaffold's worker session
// creator) on the same local:// target and then train the shared
// variables; the chief saves at the end.
//
//   chief_worker_demo --logdir=/tmp/cw --workers=4 --steps=100
//
// The model minimizes 0.5 * |w - target|^2 with plain gradient descent, so
// the gradient is w - target, and counts steps in global_step.
#include <cstdio>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "core/logging.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/scaffold.h"
#include "session/targets.h"

ABSL_FLAG(std::string, logdir, "/tmp/chief_worker_demo", "Checkpoint directory");
ABSL_FLAG(int, workers, 4, "Worker threads");
ABSL_FLAG(int, steps, 100, "Training steps per worker");

namespace minigraph {
namespace {

absl::Mutex print_mu;

void Say(const std::string& who, const std::string& what) {
  absl::MutexLock l(&print_mu);
  std::printf("%-9s %s\n", who.c_str(), what.c_str());
  std::fflush(stdout);
}

int Run() {
  SetMinLogLevel(LogLevel::kWarning);
  const std::string logdir = absl::GetFlag(FLAGS_logdir);
  MG_CHECK(Env::Default()->CreateDir(logdir).ok());
  auto server = LocalServer::Create("chief_worker_demo");
  MG_CHECK(server.ok());
  const std::string target = (*server)->target();

  Scope root = Scope::NewRootScope();
  Variable w = Variable::Create(root, "w", Tensor::Vector<float>({0, 0, 0, 0}));
  Variable step =
      Variable::Create(root, "global_step", Tensor::Scalar<int64_t>(0), {.trainable = false});
  Output target_value = ops::Const<float>(root.WithOpName("target"), {1, -2, 3, 0.5f});
  Output grad = ops::Sub(root.WithOpName("gradient"), w.value(), target_value);
  Output update =
      ops::ApplyGradientDescent(root.WithOpName("update"), w.ref(), ops::Const(root, 0.01f), grad);
  ops::AssignAdd(root.WithOpName("train").WithControlDependencies({update.op()}), step.ref(),
                 ops::Const<int64_t>(root, 1), /*use_locking=*/true);
  // init_op, ready ops, local_init_op and a Saver: TensorFlow's defaults.
  auto scaffold = Scaffold::Finalize(root);
  MG_CHECK(scaffold.ok()) << scaffold.status();
  Saver* saver = scaffold->saver();
  const absl::Duration recovery_wait = absl::Milliseconds(5);

  const int n = absl::GetFlag(FLAGS_workers);
  std::vector<std::thread> workers;
  for (int i = 0; i < n; ++i) {
    workers.emplace_back([&, i] {
      const std::string me = "worker" + std::to_string(i);
      Say(me, "waiting for the chief (WaitForSession on " + target + ")");
      auto sess = CreateWorkerSession(*scaffold, target, {}, absl::Seconds(60), recovery_wait);
      MG_CHECK(sess.ok()) << sess.status();
      std::vector<Tensor> out;
      for (int s = 0; s < absl::GetFlag(FLAGS_steps); ++s) {
        MG_CHECK((*sess)->Run({}, {}, {"train"}, &out).ok());
      }
      MG_CHECK((*sess)->Run({}, {"global_step/read"}, {}, &out).ok());
      Say(me, "ran " + std::to_string(absl::GetFlag(FLAGS_steps)) + " steps; global_step is now " +
                  out[0].SummarizeValue(1));
    });
  }

  auto chief = CreateChiefSession(*scaffold, target, logdir, {}, recovery_wait);
  MG_CHECK(chief.ok()) << chief.status();
  std::vector<Tensor> out;
  MG_CHECK((*chief)->Run({}, {"global_step/read", "w/read"}, {}, &out).ok());
  Say("chief", "model ready at global_step " + out[0].SummarizeValue(1) +
                   ", w = " + out[1].SummarizeValue(4));
  for (auto& t : workers) t.join();
  MG_CHECK((*chief)->Run({}, {"global_step/read", "w/read"}, {}, &out).ok());
  const int64_t gs = *out[0].data<int64_t>();
  auto path = saver->Save(chief->get(), logdir + "/model", {.global_step = gs});
  MG_CHECK(path.ok()) << path.status();
  Say("chief", "after the workers: global_step " + std::to_string(gs) +
                   ", w = " + out[1].SummarizeValue(4) + "; saved " + *path);
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "One chief and N workers sharing a model through SessionManager on a local:// target.\n"
      "  chief_worker_demo [--logdir=D] [--workers=4] [--steps=100]");
  absl::ParseCommandLine(argc, argv);
  return minigraph::Run();
}
