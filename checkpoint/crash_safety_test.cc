// A save (bundle, then the `checkpoint` state file) interrupted at every
// mutating file operation: after the crash, the newest restorable checkpoint
// is the complete new one or the previous one, and the state file names
// only complete checkpoints.
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/checkpoint_state.h"
#include "core/fault_injection_env.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

constexpr char kDir[] = "/logs";

Tensor Values(int64_t step) {
  Tensor t(DT_FLOAT, TensorShape({1000}));
  for (int i = 0; i < 1000; ++i) t.data<float>()[i] = static_cast<float>(step * 1000 + i);
  return t;
}

std::string Prefix(int64_t step) { return absl::StrCat(kDir, "/model-", step); }

// What a Saver does: write the bundle, then record it in the state file.
absl::Status Save(Env* env, int64_t step, const std::vector<std::string>& older) {
  MG_ASSIGN_OR_RETURN(auto w, BundleWriter::Create(env, Prefix(step)));
  MG_RETURN_IF_ERROR(w->Add("step", Tensor::Scalar<int64_t>(step)));
  MG_RETURN_IF_ERROR(w->Add("weights", Values(step)));
  MG_RETURN_IF_ERROR(w->Add("names", Tensor::Vector<std::string>({"a", "bc"})));
  MG_RETURN_IF_ERROR(w->Finish());
  std::vector<std::string> all = older;
  all.push_back(Prefix(step));
  return UpdateCheckpointState(env, kDir, Prefix(step), all);
}

// Reads a checkpoint fully and returns its step, or an error.
absl::StatusOr<int64_t> Restore(Env* env, const std::string& prefix) {
  MG_ASSIGN_OR_RETURN(auto r, BundleReader::Open(env, prefix));
  MG_ASSIGN_OR_RETURN(Tensor step, r->Lookup("step"));
  MG_ASSIGN_OR_RETURN(Tensor weights, r->Lookup("weights"));
  MG_ASSIGN_OR_RETURN(Tensor names, r->Lookup("names"));
  const int64_t s = *step.data<int64_t>();
  if (weights.tensor_data() != Values(s).tensor_data()) {
    return absl::InternalError("weights do not match the step");
  }
  return s;
}

TEST(CrashSafetyTest, EveryCrashPointLeavesTheOldOrTheNewCheckpoint) {
  SetMinLogLevel(LogLevel::kError);
  // Count the operations of one save.
  int64_t ops_per_save;
  {
    MemEnv mem;
    FaultInjectionEnv env(&mem);
    ASSERT_OK(Save(&env, 1, {}));
    const int64_t before = env.mutating_ops();
    ASSERT_OK(Save(&env, 2, {Prefix(1)}));
    ops_per_save = env.mutating_ops() - before;
  }
  ASSERT_GT(ops_per_save, 10);
  int saw_old = 0, saw_new = 0;
  for (int64_t k = 0; k <= ops_per_save; ++k) {
    SCOPED_TRACE(testing::Message() << "crash after " << k << " of " << ops_per_save << " ops");
    MemEnv mem;
    FaultInjectionEnv env(&mem);
    ASSERT_OK(Save(&env, 1, {}));
    env.FailAfter(k);
    absl::Status s = Save(&env, 2, {Prefix(1)});
    EXPECT_EQ(s.ok(), k == ops_per_save);
    env.SimulateCrash();
    env.ClearFaults();

    ASSERT_OK_AND_ASSIGN(std::optional<std::string> latest, LatestCheckpoint(&env, kDir));
    ASSERT_TRUE(latest.has_value());
    ASSERT_OK_AND_ASSIGN(int64_t step, Restore(&env, *latest));
    EXPECT_TRUE(step == 1 || step == 2);
    (step == 1 ? saw_old : saw_new)++;
    // Every checkpoint the state file names is complete.
    ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&env, kDir));
    for (const std::string& p : state->all_model_checkpoint_paths()) {
      EXPECT_OK(Restore(&env, p).status()) << p;
    }
    // And a new save after the crash works.
    ASSERT_OK(Save(&env, 3, {Prefix(1)}));
    ASSERT_OK_AND_ASSIGN(latest, LatestCheckpoint(&env, kDir));
    EXPECT_THAT(Restore(&env, *latest), IsOkAndHolds(3));
  }
  EXPECT_GT(saw_old, 0);
  EXPECT_GT(saw_new, 0);
}

TEST(CrashSafetyTest, ASingleFailedSyncFailsTheSaveAndKeepsThePreviousCheckpoint) {
  SetMinLogLevel(LogLevel::kError);
  for (auto op : {FaultInjectionEnv::Op::kSync, FaultInjectionEnv::Op::kRename,
                  FaultInjectionEnv::Op::kAppend, FaultInjectionEnv::Op::kSyncDir}) {
    MemEnv mem;
    FaultInjectionEnv env(&mem);
    ASSERT_OK(Save(&env, 1, {}));
    env.FailOnce(op, 0);
    EXPECT_THAT(Save(&env, 2, {Prefix(1)}), StatusIs(absl::StatusCode::kUnavailable));
    env.ClearFaults();
    ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(&env, kDir));
    ASSERT_TRUE(latest.has_value());
    EXPECT_OK(Restore(&env, *latest).status());
  }
}

}  // namespace
}  // namespace minigraph
