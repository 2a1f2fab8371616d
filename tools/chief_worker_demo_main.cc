// Chief and workers on one model, in one process: the chief prepares the
// model (restoring the latest checkpoint of --logdir, or initializing), the
// workers wait for it (WaitForSession through the Scaffold's worker session
// creator) on the same local:// target and then train the shared
// variables; the chief saves at the end.
//
//   chief_worker_demo --logdir=/tmp/cw --workers=4 --steps=100
//
// With --processes the same job runs as separate processes on 127.0.0.1,
// TensorFlow's between-graph replication: this program starts itself as one
// ps task (which holds w and global_step), the chief (worker 0) and
// --workers more workers, each with its own server, and stops the ps at the
// end. The workers wait for the chief through grpc:// sessions.
//
//   chief_worker_demo --processes --workers=2 --steps=100
//
// The model minimizes 0.5 * |w - target|^2 with plain gradient descent, so
// the gradient is w - target, and counts steps in global_step.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "core/env.h"
#include "core/logging.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/distributed/cluster.h"
#include "session/distributed/server.h"
#include "session/saver.h"
#include "session/scaffold.h"
#include "session/targets.h"
#include "tools/cluster_flags.h"
#include "tools/flag_checks.h"

extern char** environ;

ABSL_FLAG(std::string, logdir, "/tmp/chief_worker_demo", "Checkpoint directory");
ABSL_FLAG(int, workers, 4, "Worker threads");
ABSL_FLAG(int, steps, 100, "Training steps per worker");
ABSL_FLAG(bool, processes, false,
          "Run as separate processes on 127.0.0.1: one ps, the chief and --workers workers");

namespace minigraph {
namespace {

absl::Mutex print_mu;

void Say(const std::string& who, const std::string& what) {
  absl::MutexLock l(&print_mu);
  std::printf("%-9s %s\n", who.c_str(), what.c_str());
  std::fflush(stdout);
}

// w (4 floats) learns `target` by gradient descent; "train" also counts
// global_step. `root` may carry a device function.
void BuildModel(const Scope& root) {
  Variable w = Variable::Create(root, "w", Tensor::Vector<float>({0, 0, 0, 0}));
  Variable step =
      Variable::Create(root, "global_step", Tensor::Scalar<int64_t>(0), {.trainable = false});
  Output target_value = ops::Const<float>(root.WithOpName("target"), {1, -2, 3, 0.5f});
  Output grad = ops::Sub(root.WithOpName("gradient"), w.value(), target_value);
  Output update =
      ops::ApplyGradientDescent(root.WithOpName("update"), w.ref(), ops::Const(root, 0.01f), grad);
  ops::AssignAdd(root.WithOpName("train").WithControlDependencies({update.op()}), step.ref(),
                 ops::Const<int64_t>(root, 1), /*use_locking=*/true);
}

pid_t Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  MG_CHECK(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, args.data(), environ) == 0);
  return pid;
}

// --processes: start the ps, the workers and the chief as processes.
int RunProcesses() {
  const int n = absl::GetFlag(FLAGS_workers);
  // One ps, the chief and n workers.
  absl::StatusOr<std::vector<int>> ports = FreeLoopbackPorts(n + 2);
  MG_CHECK(ports.ok()) << ports.status();
  std::string cluster = absl::StrCat("ps=127.0.0.1:", (*ports)[0], ";worker=");
  for (int i = 0; i <= n; ++i) {
    absl::StrAppend(&cluster, i > 0 ? "," : "", "127.0.0.1:", (*ports)[i + 1]);
  }
  Say("launcher", "cluster " + cluster);
  auto task = [&](const std::string& job, int index) {
    return std::vector<std::string>{"chief_worker_demo",
                                    "--cluster=" + cluster,
                                    "--job_name=" + job,
                                    absl::StrCat("--task_index=", index),
                                    "--logdir=" + absl::GetFlag(FLAGS_logdir),
                                    absl::StrCat("--workers=", n),
                                    absl::StrCat("--steps=", absl::GetFlag(FLAGS_steps))};
  };
  const pid_t ps = Spawn(task("ps", 0));
  std::vector<pid_t> workers;
  for (int i = 0; i <= n; ++i) workers.push_back(Spawn(task("worker", i)));
  // A task that fails ends the job: the others would wait for it.
  int failed = 0;
  for (size_t done = 0; done < workers.size(); ++done) {
    int status = 0;
    const pid_t p = waitpid(-1, &status, 0);
    if (p == ps || WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    ++failed;
    for (pid_t w : workers) kill(w, SIGKILL);
  }
  kill(ps, SIGTERM);
  int status = 0;
  waitpid(ps, &status, 0);
  Say("launcher", failed == 0 ? "all processes finished; ps stopped" : "a process failed");
  return failed == 0 ? 0 : 1;
}

// The global step the chief's session starts from: the latest checkpoint's
// in `logdir` (which CreateChiefSession restores), else 0 (init_op). Read
// from the checkpoint, not from the session: the workers train from the
// moment the model is ready, before the chief's first Run.
int64_t StartingStep(const std::string& logdir) {
  absl::StatusOr<std::optional<std::string>> latest = LatestCheckpoint(Env::Default(), logdir);
  MG_CHECK(latest.ok()) << latest.status();
  if (!latest->has_value()) return 0;
  auto reader = BundleReader::Open(Env::Default(), **latest);
  MG_CHECK(reader.ok()) << reader.status();
  absl::StatusOr<Tensor> step = (*reader)->Lookup("global_step");
  MG_CHECK(step.ok()) << step.status();
  return *step->data<int64_t>();
}

int CannotCreate(const absl::Status& s) {
  std::fprintf(stderr, "chief_worker_demo: cannot create --logdir: %s\n",
               std::string(s.message()).c_str());
  return 1;
}

// One task of --processes.
int RunTask() {
  SetMinLogLevel(LogLevel::kWarning);
  auto options = ServerOptionsFromFlags();
  MG_CHECK(options.ok()) << options.status();
  const std::string me = options->job_name == "ps"  ? "ps"
                         : options->task_index == 0 ? "chief"
                                                    : absl::StrCat("worker", options->task_index);
  if (options->job_name == "ps") {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    auto server = Server::Create(*options);
    MG_CHECK(server.ok()) << server.status();
    Say(me, "serving the variables at " + (*server)->target());
    int sig = 0;
    sigwait(&stop, &sig);
    return 0;
  }
  auto server = Server::Create(*options);
  MG_CHECK(server.ok()) << server.status();
  const std::string target = (*server)->target();
  Scope root = Scope::NewRootScope();
  const int task = options->task_index;
  BuildModel(
      root.WithDeviceFunction(ReplicaDeviceSetter(1, absl::StrCat("/job:worker/task:", task))));
  auto scaffold = Scaffold::Finalize(root);
  MG_CHECK(scaffold.ok()) << scaffold.status();
  const absl::Duration recovery_wait = absl::Milliseconds(50);
  const int steps = absl::GetFlag(FLAGS_steps);
  const int64_t total = int64_t{absl::GetFlag(FLAGS_workers)} * steps;
  std::vector<Tensor> out;
  if (task == 0) {
    const std::string logdir = absl::GetFlag(FLAGS_logdir);
    if (absl::Status s = Env::Default()->CreateDir(logdir); !s.ok()) return CannotCreate(s);
    // The ps may not be up yet: an unreachable task is retried for a minute.
    auto chief = CreateChiefSession(*scaffold, target, logdir, {}, recovery_wait);
    for (int i = 0; i < 600 && absl::IsUnavailable(chief.status()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      chief = CreateChiefSession(*scaffold, target, logdir, {}, recovery_wait);
    }
    MG_CHECK(chief.ok()) << chief.status();
    const int64_t start = StartingStep(logdir);
    Say(me, "model ready on the ps at global_step " + std::to_string(start));
    // The workers train; the chief saves once they have done their steps.
    while (true) {
      MG_CHECK((*chief)->Run({}, {"global_step/read", "w/read"}, {}, &out).ok());
      if (*out[0].data<int64_t>() >= start + total) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const int64_t gs = *out[0].data<int64_t>();
    auto path = scaffold->saver()->Save(chief->get(), logdir + "/model", {.global_step = gs});
    MG_CHECK(path.ok()) << path.status();
    Say(me, "after the workers: global_step " + std::to_string(gs) +
                ", w = " + out[1].SummarizeValue(4) + "; saved " + *path);
    return 0;
  }
  Say(me, "waiting for the chief (WaitForSession on " + target + ")");
  auto sess = CreateWorkerSession(*scaffold, target, {}, absl::Seconds(60), recovery_wait);
  MG_CHECK(sess.ok()) << sess.status();
  for (int s = 0; s < steps; ++s) MG_CHECK((*sess)->Run({}, {}, {"train"}, &out).ok());
  MG_CHECK((*sess)->Run({}, {"global_step/read"}, {}, &out).ok());
  Say(me,
      "ran " + std::to_string(steps) + " steps; global_step is now " + out[0].SummarizeValue(1));
  return 0;
}

int Run() {
  if (absl::GetFlag(FLAGS_processes)) return RunProcesses();
  if (ClusterFlagsGiven()) return RunTask();
  SetMinLogLevel(LogLevel::kWarning);
  const std::string logdir = absl::GetFlag(FLAGS_logdir);
  if (absl::Status s = Env::Default()->CreateDir(logdir); !s.ok()) return CannotCreate(s);
  auto server = LocalServer::Create("chief_worker_demo");
  MG_CHECK(server.ok());
  const std::string target = (*server)->target();

  Scope root = Scope::NewRootScope();
  BuildModel(root);
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
      "  chief_worker_demo [--logdir=D] [--workers=4] [--steps=100] [--processes]");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  absl::Status s = minigraph::NoPositionalArguments(rest);
  if (s.ok()) s = minigraph::FlagInRange("workers", absl::GetFlag(FLAGS_workers), 1, 256);
  if (s.ok()) s = minigraph::FlagInRange("steps", absl::GetFlag(FLAGS_steps), 0, 1 << 30);
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("chief_worker_demo", s);
  return minigraph::Run();
}
