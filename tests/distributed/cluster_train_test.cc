// //tools:train as a cluster of processes on 127.0.0.1 (ports picked here):
// one ps, a chief and a worker, TensorFlow's between-graph replication. The
// failures the distributed runtime must survive, with real processes:
// a worker started before its ps and chief, the chief killed and restarted,
// the ps killed and restarted under a running chief (which waits for it and
// restores), a worker training on after the chief ends, the cluster and task
// from TF_CONFIG.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

std::string* train_binary = nullptr;
constexpr absl::Duration kTimeout = absl::Seconds(120);

struct ClusterSpec {
  std::string spec;
  std::string ps_address;
};

ClusterSpec NewCluster() {
  std::vector<int> ports;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<int> p = PickUnusedPort();
    EXPECT_OK(p.status());
    ports.push_back(p.value_or(0));
  }
  ClusterSpec c;
  c.ps_address = absl::StrCat("127.0.0.1:", ports[0]);
  c.spec =
      absl::StrCat("ps=", c.ps_address, ";worker=127.0.0.1:", ports[1], ",127.0.0.1:", ports[2]);
  return c;
}

std::unique_ptr<Subprocess> StartTask(const ClusterSpec& c, const std::string& job, int task,
                                      const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {*train_binary, "--cluster=" + c.spec, "--job_name=" + job,
                                   absl::StrCat("--task_index=", task)};
  if (job == "worker") {
    for (const char* f : {"--model=linear", "--recovery_wait_secs=0.2", "--save_every=50"}) {
      argv.push_back(f);
    }
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto p = Subprocess::Start(argv, /*with_stdout=*/true);
  EXPECT_OK(p.status());
  return *std::move(p);
}

std::string NewLogdir(const std::string& name) {
  std::string dir = TestTempPath(name);
  mkdir(dir.c_str(), 0755);
  return dir;
}

void ExpectExit(Subprocess* p, int code) {
  absl::StatusOr<int> status = p->Wait(kTimeout);
  ASSERT_OK(status.status());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == code)
      << "wait status " << *status << "; output:\n"
      << p->output();
}

TEST(ClusterTrainTest, WorkerAndChiefStartedBeforeThePsWaitThenTrainTogether) {
  ClusterSpec c = NewCluster();
  const std::string logdir = NewLogdir("together");
  // The worker comes up before anything else, then the chief, which waits
  // for the ps; the ps comes last.
  auto worker = StartTask(c, "worker", 1, {"--steps=400"});
  ASSERT_OK(worker->WaitForLine("waiting for the chief", kTimeout));
  // It says why it waits, once: nothing serves the cluster yet.
  ASSERT_OK(worker->WaitForLine("waiting for the model: not ready (server): server unreachable",
                                kTimeout));
  auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=400"});
  ASSERT_OK(chief->WaitForLine("chief waiting for the cluster", kTimeout));
  auto ps = StartTask(c, "ps", 0);
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  ExpectExit(chief.get(), 0);
  ExpectExit(worker.get(), 0);
  EXPECT_THAT(chief->output(), HasSubstr("initialized from scratch"));
  EXPECT_THAT(chief->output(), HasSubstr("done: step 4"));  // 400 or a step past it
  EXPECT_THAT(worker->output(), HasSubstr("worker 1 done: ran "));
  // Both trained: neither ran all the steps.
  EXPECT_THAT(worker->output(), ::testing::Not(HasSubstr("worker 1 done: ran 0 steps")));
  EXPECT_THAT(chief->output(), ::testing::Not(HasSubstr("this process ran 400 steps")));
  struct stat st;
  EXPECT_EQ(stat(absl::StrCat(logdir, "/checkpoint").c_str(), &st), 0) << chief->output();
  ps->Signal(SIGTERM);
  ExpectExit(ps.get(), 0);
}

TEST(ClusterTrainTest, ARestartedChiefRestoresTheLastCheckpoint) {
  ClusterSpec c = NewCluster();
  const std::string logdir = NewLogdir("chief_restart");
  auto ps = StartTask(c, "ps", 0);
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  {
    auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=100000"});
    // Killed once it has saved its first checkpoint (a step line alone
    // can come before it: at 44 steps/s under ASan, the first was step 44).
    ASSERT_OK(chief->WaitForLine("saved checkpoint at step ", kTimeout));
    chief->Signal(SIGKILL);
    ASSERT_OK(chief->Wait(kTimeout).status());
  }
  auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=200"});
  ExpectExit(chief.get(), 0);
  EXPECT_THAT(chief->output(), HasSubstr("restored step "));
  ps->Signal(SIGTERM);
  ExpectExit(ps.get(), 0);
}

// A worker that trains past the chief's last step moves the global step
// while the chief ends: its last save (TensorFlow's CheckpointSaverHook.end)
// reads the step again, and the last line names that checkpoint, which is
// on disk.
TEST(ClusterTrainTest, TheChiefsLastLineNamesItsLastCheckpointWhileAWorkerTrainsOn) {
  ClusterSpec c = NewCluster();
  const std::string logdir = NewLogdir("worker_trains_on");
  auto ps = StartTask(c, "ps", 0);
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  auto worker = StartTask(c, "worker", 1, {"--steps=100000000"});
  auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=200"});
  ExpectExit(chief.get(), 0);
  const std::string out = chief->output();
  const size_t done = out.find("done: step ");
  ASSERT_NE(done, std::string::npos) << out;
  const long long last = std::atoll(out.c_str() + done + 11);
  EXPECT_GE(last, 200) << out;
  struct stat st;
  EXPECT_EQ(stat(absl::StrCat(logdir, "/model.ckpt-", last, ".index").c_str(), &st), 0) << out;
  EXPECT_THAT(out, HasSubstr(absl::StrCat("saved ", logdir, "/model.ckpt-", last, "\n")));
  worker->Signal(SIGTERM);
  ExpectExit(worker.get(), 0);
  EXPECT_THAT(worker->output(), HasSubstr("worker stopped on signal after "));
  ps->Signal(SIGTERM);
  ExpectExit(ps.get(), 0);
}

// TensorFlow's MonitoredTrainingSession: a step that fails because the ps
// went away makes a new session; the chief waits for the ps (saying which
// task it waits for), restores the newest checkpoint once the ps is back,
// and trains on; the worker waits for the chief's model and trains on too.
// Both end at the last step, as without the restart: the steps since the
// checkpoint are lost with the ps and run again.
TEST(ClusterTrainTest, APsRestartedUnderAChiefAndAWorkerCostsOnlyTheStepsSinceTheCheckpoint) {
  ClusterSpec c = NewCluster();
  const std::string logdir = NewLogdir("ps_restart");
  auto ps = StartTask(c, "ps", 0);
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=3000"});
  auto worker = StartTask(c, "worker", 1, {"--steps=3000"});
  // A second into training (a progress line), with checkpoints saved.
  ASSERT_OK(chief->WaitForLine(" loss ", kTimeout));
  ps->Signal(SIGKILL);
  ASSERT_OK(ps->Wait(kTimeout).status());
  ASSERT_OK(chief->WaitForLine("chief waiting for the cluster", kTimeout));
  EXPECT_THAT(chief->output(), HasSubstr(c.ps_address));

  auto ps2 = StartTask(c, "ps", 0);
  ASSERT_OK(ps2->WaitForLine("serving at", kTimeout));
  ExpectExit(chief.get(), 0);
  ExpectExit(worker.get(), 0);
  // The chief restored a checkpoint it had saved.
  const std::string out = chief->output();
  EXPECT_THAT(out, HasSubstr("restored step "));
  EXPECT_THAT(worker->output(), HasSubstr("worker 1 done: ran "));
  // The global step ends at 3000, or past it by the steps the two
  // processes had in flight then; the chief saved it.
  const size_t done = out.find("done: step ");
  ASSERT_NE(done, std::string::npos) << out;
  const long long last = std::atoll(out.c_str() + done + 11);
  EXPECT_GE(last, 3000) << out;
  EXPECT_LE(last, 3002) << out;
  struct stat st;
  EXPECT_EQ(stat(absl::StrCat(logdir, "/model.ckpt-", last, ".index").c_str(), &st), 0) << out;
  ps2->Signal(SIGTERM);
  ExpectExit(ps2.get(), 0);
}

// Starts `train` with TF_CONFIG (and no cluster flags) set to `tf_config`.
std::unique_ptr<Subprocess> StartWithTfConfig(const std::string& tf_config,
                                              const std::vector<std::string>& flags) {
  setenv("TF_CONFIG", tf_config.c_str(), 1);
  std::vector<std::string> argv = {*train_binary};
  argv.insert(argv.end(), flags.begin(), flags.end());
  auto p = Subprocess::Start(argv, /*with_stdout=*/true);
  unsetenv("TF_CONFIG");
  EXPECT_OK(p.status());
  return *std::move(p);
}

TEST(ClusterTrainTest, TfConfigGivesTheClusterAndTheTaskWithAChiefJob) {
  absl::StatusOr<int> ps_port = PickUnusedPort();
  absl::StatusOr<int> chief_port = PickUnusedPort();
  ASSERT_OK(ps_port.status());
  ASSERT_OK(chief_port.status());
  const std::string cluster = absl::StrCat(R"("cluster": {"ps": ["127.0.0.1:)", *ps_port,
                                           R"("], "chief": ["127.0.0.1:)", *chief_port, R"("]})");
  auto tf_config = [&](const std::string& type) {
    return absl::StrCat("{", cluster, R"(, "task": {"type": ")", type, R"(", "index": 0}})");
  };
  auto ps = StartWithTfConfig(tf_config("ps"), {});
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  const std::string logdir = NewLogdir("tf_config");
  auto chief = StartWithTfConfig(tf_config("chief"), {"--logdir=" + logdir, "--model=linear",
                                                      "--steps=60", "--save_every=20"});
  ExpectExit(chief.get(), 0);
  EXPECT_THAT(chief->output(), HasSubstr("initialized from scratch"));
  EXPECT_THAT(chief->output(), HasSubstr("done: step 60"));
  ps->Signal(SIGTERM);
  ExpectExit(ps.get(), 0);

  // A TF_CONFIG that does not parse, or names a job train has no role for,
  // stops it with the reason.
  auto bad = StartWithTfConfig("{\"cluster\": ", {"--logdir=" + logdir});
  ExpectExit(bad.get(), 1);
  EXPECT_THAT(bad->output(), HasSubstr("TF_CONFIG: not a JSON object"));
  auto evaluator = StartWithTfConfig(
      absl::StrCat(R"({"cluster": {"evaluator": ["127.0.0.1:)", *chief_port,
                   R"("]}, "task": {"type": "evaluator"}})"),
      {"--logdir=" + logdir});
  ExpectExit(evaluator.get(), 1);
  EXPECT_THAT(evaluator->output(), HasSubstr("must be ps, worker or chief in a cluster, got "
                                             "'evaluator'"));
}

TEST(ClusterTrainTest, AWorkerKilledMidStepLeavesTheModelConsistent) {
  ClusterSpec c = NewCluster();
  const std::string logdir = NewLogdir("worker_killed");
  auto ps = StartTask(c, "ps", 0);
  ASSERT_OK(ps->WaitForLine("serving at", kTimeout));
  auto chief = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=1500"});
  auto worker = StartTask(c, "worker", 1, {"--steps=1500"});
  ASSERT_OK(worker->WaitForLine("step ", kTimeout));  // training, mid-step or close
  worker->Signal(SIGKILL);
  ASSERT_OK(worker->Wait(kTimeout).status());
  // The chief goes on alone and saves; its checkpoint restores.
  ExpectExit(chief.get(), 0);
  EXPECT_THAT(chief->output(), HasSubstr("done: step 150"));
  auto again = StartTask(c, "worker", 0, {"--logdir=" + logdir, "--steps=1550"});
  ExpectExit(again.get(), 0);
  EXPECT_THAT(again->output(), HasSubstr("restored step 150"));
  ps->Signal(SIGTERM);
  ExpectExit(ps.get(), 0);
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: cluster_train_test PATH_TO_tools/train\n");
    return 2;
  }
  std::string binary = argv[1];
  minigraph::train_binary = &binary;
  return RUN_ALL_TESTS();
}
