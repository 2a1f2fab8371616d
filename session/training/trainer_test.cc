#include "session/training/trainer.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "checkpoint/checkpoint_state.h"
#include "core/env.h"
#include "core/fault_injection_env.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "session/distributed/cluster.h"
#include "session/distributed/server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A small run of the linear model in `env`'s /run, its lines kept.
struct SmallRun {
  explicit SmallRun(Env* env) {
    options.env = env;
    options.logdir = "/run";
    options.model = "linear";
    options.batch = 4;
    options.steps = 6;
    options.save_every = 3;
    options.summary_every = 0;
    options.log_every = 0;
    options.log = [this](absl::string_view line) { lines.emplace_back(line); };
  }
  absl::StatusOr<TrainResult> Go() { return Train(options); }
  std::string Lines() const { return absl::StrJoin(lines, "\n"); }

  TrainOptions options;
  std::vector<std::string> lines;
};

// The step the state file of /run names as its newest checkpoint, or -1.
int64_t NewestStep(Env* env) {
  absl::StatusOr<std::optional<std::string>> newest = LatestCheckpoint(env, "/run");
  if (!newest.ok() || !newest->has_value()) return -1;
  const std::string& path = **newest;
  return std::stoll(path.substr(path.rfind('-') + 1));
}

TEST(Train, TrainsSavesAndResumesFromTheNewestCheckpoint) {
  MemEnv env;
  SmallRun first(&env);
  absl::StatusOr<TrainResult> r = first.Go();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->chief);
  EXPECT_EQ(r->step, 6);
  EXPECT_EQ(r->steps_run, 6);
  EXPECT_FALSE(r->stopped);
  EXPECT_EQ(r->checkpoint, "/run/model.ckpt-6");
  EXPECT_EQ(NewestStep(&env), 6);
  EXPECT_THAT(first.lines, Contains("initialized from scratch"));
  EXPECT_THAT(first.lines, Contains("saved checkpoint at step 3"));
  // The lock holds this process's pid while it trains, and is free after.
  EXPECT_TRUE(env.FileExists("/run/train.lock").ok());
  EXPECT_TRUE(env.TryLockFile("/run/train.lock").ok());

  SmallRun second(&env);
  second.options.steps = 9;
  r = second.Go();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->step, 9);
  EXPECT_EQ(r->steps_run, 3);
  EXPECT_THAT(second.Lines(), HasSubstr("restored step 6 from /run/model.ckpt-6"));
  EXPECT_EQ(NewestStep(&env), 9);

  // At its last step already: nothing to train, nothing new saved.
  SmallRun third(&env);
  third.options.steps = 9;
  r = third.Go();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->step, 9);
  EXPECT_EQ(r->steps_run, 0);
}

TEST(Train, StopsAfterTheStepItIsInAndSaves) {
  MemEnv env;
  SmallRun run(&env);
  run.options.steps = 1000;
  std::atomic<bool> stop{false};
  run.options.stop = &stop;
  bool told = false;
  run.options.on_training = [&] {
    told = true;
    stop.store(true);  // as a signal arriving while the first step runs
  };
  absl::StatusOr<TrainResult> r = run.Go();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(told);
  EXPECT_TRUE(r->stopped);
  EXPECT_EQ(r->step, 1);
  EXPECT_EQ(NewestStep(&env), 1);
}

TEST(Train, OneChiefPerLogDirectory) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("/run").ok());
  ASSERT_TRUE(WriteStringToFile(&env, "/run/train.lock", "4242\n").ok());
  absl::StatusOr<std::unique_ptr<FileLock>> held = env.TryLockFile("/run/train.lock");
  ASSERT_TRUE(held.ok()) << held.status();
  SmallRun run(&env);
  absl::StatusOr<TrainResult> r = run.Go();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(r.status().message()),
              AllOf(HasSubstr("log directory /run in use by pid 4242"),
                    HasSubstr("/run/train.lock")));
  EXPECT_EQ(NewestStep(&env), -1);  // nothing written
}

TEST(Train, BadOptionsAreErrorsNamingTheOption) {
  MemEnv env;
  struct Case {
    void (*set)(TrainOptions*);
    const char* message;
  };
  const Case cases[] = {
      {[](TrainOptions* o) { o->batch = 0; }, "--batch=0 is out of range"},
      {[](TrainOptions* o) { o->steps = -1; }, "--steps=-1 is out of range"},
      {[](TrainOptions* o) { o->threads = 0; }, "--threads=0 is out of range"},
      {[](TrainOptions* o) { o->learning_rate = 0; }, "--learning_rate=0 is out of range"},
      {[](TrainOptions* o) { o->recovery_wait = absl::ZeroDuration(); },
       "--recovery_wait_secs=0 is out of range"},
      {[](TrainOptions* o) { o->train_op = "train"; }, "--train_op=train needs --graph"},
      {[](TrainOptions* o) { o->warm_start_map = {{"a", "b"}}; },
       "--warm_start_map needs --warm_start_from"},
      {[](TrainOptions* o) { o->model = "resnet"; }, "--model must be mlp, linear or cnn"},
      {[](TrainOptions* o) { o->optimizer = "lbfgs"; }, "--optimizer must be sgd"},
      {[](TrainOptions* o) { o->logdir = ""; }, "--logdir is required"},
      {[](TrainOptions* o) { o->workers = 2; }, "--workers needs --target=local://NAME"},
      {[](TrainOptions* o) { o->graph = "/none.meta"; }, "--graph=/none.meta"},
      {[](TrainOptions* o) {
         o->cluster.emplace();
         o->cluster->job_name = "ps";
       },
       "must be worker or chief to train in a cluster"},
  };
  for (const Case& c : cases) {
    SmallRun run(&env);
    c.set(&run.options);
    absl::StatusOr<TrainResult> r = run.Go();
    EXPECT_FALSE(r.ok()) << c.message;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(c.message));
  }
  EXPECT_EQ(NewestStep(&env), -1);
}

TEST(Train, ADivergedModelIsNeverSaved) {
  MemEnv env;
  SmallRun run(&env);
  run.options.learning_rate = 1e38;
  run.options.steps = 100;
  run.options.save_every = 1;
  absl::StatusOr<TrainResult> r = run.Go();
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(r.status().message()),
              AllOf(StartsWith("loss is "), HasSubstr("stopped without saving")));
  // It saved every step until then, and not the step whose loss was not
  // finite.
  const std::string message(r.status().message());
  const size_t at = message.find(" at step ");
  ASSERT_NE(at, std::string::npos);
  const int64_t diverged = std::stoll(message.substr(at + 9));
  EXPECT_GT(diverged, 1);
  EXPECT_EQ(NewestStep(&env), diverged - 1);
}

// --sync_replicas: a ps and two workers, in this process; each update is
// the mean of a step of each worker, so together they run about two steps
// per update, and the worker ends when the chief does.
TEST(Train, SyncReplicasTrainsAClusterInStep) {
  absl::StatusOr<std::vector<int>> ports = FreeLoopbackPorts(3);
  ASSERT_TRUE(ports.ok()) << ports.status();
  ServerOptions ps;
  absl::StatusOr<tensorflow::ClusterDef> cluster = ParseClusterSpec(
      absl::StrCat("ps=127.0.0.1:", (*ports)[0], ";worker=127.0.0.1:", (*ports)[1],
                   ",127.0.0.1:", (*ports)[2]));
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  ps.cluster = *cluster;
  ps.job_name = "ps";
  absl::StatusOr<std::unique_ptr<Server>> ps_server = Server::Create(ps);
  ASSERT_TRUE(ps_server.ok()) << ps_server.status();
  constexpr int64_t kSteps = 40;
  auto options = [&](int task) {
    TrainOptions o;
    o.model = "linear";
    o.batch = 4;
    o.steps = kSteps;
    o.save_every = 20;
    o.summary_every = 0;
    o.log_every = 0;
    o.sync_replicas = true;
    o.recovery_wait = absl::Milliseconds(50);
    o.cluster = ps;
    o.cluster->job_name = "worker";
    o.cluster->task_index = task;
    if (task == 0) o.logdir = JoinPath(::testing::TempDir(), "sync_replicas_run");
    o.log = [](absl::string_view) {};
    return o;
  };
  absl::StatusOr<TrainResult> worker;
  std::thread worker_thread([&] { worker = Train(options(1)); });
  absl::StatusOr<TrainResult> chief = Train(options(0));
  worker_thread.join();
  ASSERT_TRUE(chief.ok()) << chief.status();
  ASSERT_TRUE(worker.ok()) << worker.status();
  EXPECT_EQ(chief->step, kSteps);
  // Each step waits for a token: 2 at the start and 2 per update.
  const int64_t steps = chief->steps_run + worker->steps_run;
  EXPECT_GE(steps, 2 * kSteps - 2);
  EXPECT_LE(steps, 2 * kSteps + 2);
  EXPECT_GT(worker->steps_run, 0);

  TrainOptions alone = options(0);
  alone.cluster.reset();
  absl::StatusOr<TrainResult> refused = Train(alone);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("--sync_replicas synchronizes the workers"));
}

TEST(Train, ParseAssignmentMap) {
  absl::StatusOr<std::map<std::string, std::string>> map =
      ParseAssignmentMap("old/=layer1/,w=v");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->size(), 2);
  EXPECT_EQ(map->at("old/"), "layer1/");
  EXPECT_TRUE(ParseAssignmentMap("")->empty());
  EXPECT_THAT(std::string(ParseAssignmentMap("a=b,c").status().message()),
              HasSubstr("got 'c'"));
}

// A crash (power loss) at each of a run's file operations in turn: the
// restart restores the newest checkpoint that was durable, or starts from
// scratch when there was none, and trains to the end; what it says it
// restored is a checkpoint the crashed run saved. (The injected faults are
// Unavailable, which the MonitoredSession takes for a restarting ps and
// retries for ten minutes: of a fake clock here.)
TEST(Train, ACrashAtAnyFileOperationLeavesADirectoryARestartTrainsFrom) {
  SetMinLogLevel(LogLevel::kWarning);
  int64_t ops = 0;
  {
    MemEnv mem;
    FaultInjectionEnv faults(&mem);
    FakeClockEnv env(&faults);
    SmallRun run(&env);
    ASSERT_TRUE(run.Go().ok());
    ops = faults.mutating_ops();
  }
  ASSERT_GT(ops, 10);
  std::printf("a crash at each of the run's %lld file operations\n", static_cast<long long>(ops));
  for (int64_t k = 0; k < ops; ++k) {
    SCOPED_TRACE(k);
    MemEnv mem;
    FaultInjectionEnv faults(&mem);
    FakeClockEnv env(&faults);
    faults.FailAfter(k);
    SmallRun crashed(&env);
    EXPECT_FALSE(crashed.Go().ok());
    faults.SimulateCrash();
    faults.ClearFaults();
    SmallRun restart(&env);
    absl::StatusOr<TrainResult> r = restart.Go();
    ASSERT_TRUE(r.ok()) << r.status() << "\n" << restart.Lines();
    EXPECT_EQ(r->step, 6);
    const std::string said = restart.Lines();
    EXPECT_TRUE(absl::StrContains(said, "initialized from scratch") ||
                absl::StrContains(said, "restored step 0 from") ||
                absl::StrContains(said, "restored step 3 from") ||
                absl::StrContains(said, "restored step 6 from"))
        << said;
    EXPECT_EQ(NewestStep(&env), 6);
  }
}

}  // namespace
}  // namespace minigraph
