#include "checkpoint/checkpoint_manager.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/checkpoint_directory.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "core/env.h"
#include "core/fault_injection_env.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using ::testing::UnorderedElementsAreArray;

std::string Path(int step) { return "/logs/model-" + std::to_string(step); }

CheckpointManager::Save SaveOf(int step) {
  return {.save_path = "/logs/model", .checkpoint = Path(step)};
}

// The save ops' part: a checkpoint holding "step".
absl::Status WriteBundle(Env* env, int step) {
  MG_ASSIGN_OR_RETURN(auto w, BundleWriter::Create(env, Path(step)));
  MG_RETURN_IF_ERROR(w->Add("step", Tensor::Scalar<int64_t>(step)));
  return w->Finish();
}

// A Saver's save through `manager`, the clock a second on.
absl::Status SaveStep(CheckpointManager* manager, Env* env, FakeClockEnv* clock, int step) {
  clock->AdvanceMicros(1'000'000);
  const CheckpointManager::Save save = SaveOf(step);
  MG_RETURN_IF_ERROR(manager->BeginSave(save));
  if (absl::Status s = WriteBundle(env, step); !s.ok()) {
    manager->AbortSave(save);
    return s;
  }
  return manager->CommitSave(save);
}

std::vector<std::string> Files(Env* env) {
  return env->GetChildren("/logs").value_or(std::vector<std::string>());
}

std::vector<std::string> FilesOf(const std::vector<int>& steps) {
  std::vector<std::string> out = {"checkpoint"};
  for (int s : steps) {
    out.push_back(absl::StrCat("model-", s, ".index"));
    out.push_back(absl::StrCat("model-", s, ".data-00000-of-00001"));
  }
  return out;
}

class CheckpointManagerTest : public ::testing::Test {
 protected:
  CheckpointManagerTest() : mem_(&clock_) { EXPECT_OK(mem_.CreateDir("/logs")); }

  absl::Status Save(CheckpointManager* m, int step) { return SaveStep(m, &mem_, &clock_, step); }

  FakeClockEnv clock_{Env::Default()};
  MemEnv mem_;
};

TEST_F(CheckpointManagerTest, RecordsEachSaveAndKeepsTheNewestMaxToKeep) {
  CheckpointManager m({.env = &mem_, .max_to_keep = 2});
  for (int step = 1; step <= 4; ++step) ASSERT_OK(Save(&m, step));
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(3), Path(4)));
  EXPECT_THAT(Files(&mem_), UnorderedElementsAreArray(FilesOf({3, 4})));
  ASSERT_OK_AND_ASSIGN(std::optional<CheckpointState> state, GetCheckpointState(&mem_, "/logs"));
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->model_checkpoint_path(), Path(4));
  EXPECT_THAT(state->all_model_checkpoint_paths(), ElementsAre(Path(3), Path(4)));
}

TEST_F(CheckpointManagerTest, AMarkStandsFromTheSaveUntilTheStateFileNamesIt) {
  CheckpointManager m({.env = &mem_});
  ASSERT_OK(m.BeginSave(SaveOf(1)));
  EXPECT_OK(mem_.FileExists(UnrecordedMarkerFilename(Path(1))));
  ASSERT_OK(WriteBundle(&mem_, 1));
  ASSERT_OK(m.CommitSave(SaveOf(1)));
  EXPECT_THAT(Files(&mem_), UnorderedElementsAre("checkpoint", "model-1.index",
                                                 "model-1.data-00000-of-00001"));
  // A failed save leaves neither its mark nor a record.
  ASSERT_OK(m.BeginSave(SaveOf(2)));
  m.AbortSave(SaveOf(2));
  EXPECT_THAT(mem_.FileExists(UnrecordedMarkerFilename(Path(2))),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(1)));
}

TEST_F(CheckpointManagerTest, WithoutWriteStateNothingIsMarkedRecordedOrEvicted) {
  CheckpointManager m({.env = &mem_, .max_to_keep = 1});
  CheckpointManager::Save save = SaveOf(1);
  save.write_state = false;
  ASSERT_OK(m.BeginSave(save));
  ASSERT_OK(WriteBundle(&mem_, 1));
  ASSERT_OK(m.CommitSave(save));
  EXPECT_THAT(Files(&mem_), UnorderedElementsAre("model-1.index", "model-1.data-00000-of-00001"));
  EXPECT_TRUE(m.Tracked().empty());
}

TEST_F(CheckpointManagerTest, AStateFileThatCannotBeWrittenNamesTheCheckpointWritten) {
  FaultInjectionEnv env(&mem_);
  CheckpointManager m({.env = &env});
  ASSERT_OK(m.BeginSave(SaveOf(1)));
  ASSERT_OK(WriteBundle(&env, 1));
  env.FailOnce(FaultInjectionEnv::Op::kRename, 0);  // the state file's
  absl::Status s = m.CommitSave(SaveOf(1));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("checkpoint /logs/model-1 was written, but the state file "
                                     "/logs/checkpoint could not be updated"));
  // Still marked: the next writer adopts and deletes it in turn.
  EXPECT_OK(mem_.FileExists(UnrecordedMarkerFilename(Path(1))));
}

TEST_F(CheckpointManagerTest, KeepsOneCheckpointEveryNHoursForGood) {
  CheckpointManager m({.env = &mem_, .max_to_keep = 1, .keep_checkpoint_every_n_hours = 1});
  ASSERT_OK(Save(&m, 1));
  clock_.AdvanceMicros(3601'000'000);  // step 1 is now older than the hour mark
  ASSERT_OK(Save(&m, 2));
  ASSERT_OK(Save(&m, 3));  // evicts 2, which is past the mark: kept, untracked
  ASSERT_OK(Save(&m, 4));  // evicts 3: deleted
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(4)));
  EXPECT_OK(mem_.FileExists(MetaFilename(Path(2))));
  EXPECT_THAT(mem_.FileExists(MetaFilename(Path(3))), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(mem_.FileExists(MetaFilename(Path(1))), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(CheckpointManagerTest, AdoptTakesOverMarkedCheckpointsAndLeavesUnmarkedOnes) {
  {
    CheckpointManager m({.env = &mem_, .max_to_keep = 5});
    for (int step = 1; step <= 3; ++step) ASSERT_OK(Save(&m, step));
  }
  // Step 4 complete but killed before the state file (marked); step 9 copied
  // in (unmarked); a mark of step 7 alone (killed before any file).
  clock_.AdvanceMicros(1'000'000);
  ASSERT_OK(WriteStringToFile(&mem_, UnrecordedMarkerFilename(Path(4)), ""));
  ASSERT_OK(WriteBundle(&mem_, 4));
  ASSERT_OK(WriteBundle(&mem_, 9));
  ASSERT_OK(WriteStringToFile(&mem_, UnrecordedMarkerFilename(Path(7)), ""));

  CheckpointManager m({.env = &mem_, .max_to_keep = 2});
  m.Adopt({Path(1), Path(2), Path(3)});
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(1), Path(2), Path(3), Path(4)));
  EXPECT_THAT(mem_.FileExists(UnrecordedMarkerFilename(Path(7))),
              StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(Save(&m, 5));
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(4), Path(5)));
  ASSERT_OK(Save(&m, 6));
  EXPECT_THAT(Files(&mem_), UnorderedElementsAreArray(FilesOf({5, 6, 9})));
}

TEST_F(CheckpointManagerTest, SweepsWhatKilledSavesLeftButNeverALiveWritersFiles) {
  // A killed first save: marked data without an index, and an unlocked temp file.
  ASSERT_OK(WriteStringToFile(&mem_, UnrecordedMarkerFilename(Path(1)), ""));
  ASSERT_OK(WriteStringToFile(&mem_, DataFilename(Path(1), 0, 1), "partial"));
  ASSERT_OK(WriteStringToFile(&mem_, "/logs/model-1.index.tempstate123", "partial"));
  // Another writer's file, locked while it writes.
  ASSERT_OK_AND_ASSIGN(auto live, mem_.NewWritableFile("/logs/model-2.index.tempstate456"));
  ASSERT_OK_AND_ASSIGN(auto lock, mem_.TryLockFile("/logs/model-2.index.tempstate456"));
  CheckpointManager m({.env = &mem_});
  m.SweepBeforeRestore(Path(0));
  EXPECT_THAT(Files(&mem_), UnorderedElementsAre("model-2.index.tempstate456"));
}

TEST_F(CheckpointManagerTest, RetentionLeavesACheckpointAReaderHoldsUntilALaterSave) {
  CheckpointManager m({.env = &mem_, .max_to_keep = 1, .lease_checkpoints = true});
  ASSERT_OK(Save(&m, 1));
  EXPECT_OK(mem_.FileExists(LeaseFilename(Path(1))));
  EXPECT_OK(mem_.FileExists(DirectoryLeaseFilename("/logs")));
  {
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&mem_, Path(1)));
    ASSERT_OK(Save(&m, 2));  // evicts 1, which the reader holds
    EXPECT_OK(mem_.FileExists(MetaFilename(Path(1))));
  }
  ASSERT_OK(Save(&m, 3));
  EXPECT_THAT(mem_.FileExists(MetaFilename(Path(1))), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(mem_.FileExists(MetaFilename(Path(2))), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(m.Tracked(), ElementsAre(Path(3)));
}

// The protocol against power loss: a writer with max_to_keep = 2 saves
// steps 1..5 and dies at its k-th file operation, for every k until it
// finishes; the restart does what a Saver's owner does (CheckpointDirectory
// chooses, with recovery and strict; the manager adopts) and saves 6 and 7.
// Whatever k: the restored checkpoint is whole and no older than the
// newest the state file had made durable, and after two more saves the
// directory holds exactly the state file and the kept checkpoints.
TEST(CheckpointManagerCrashTest, APowerLossAtAnyFileOperationLeavesOnlyTheKeptCheckpoints) {
  bool reached_the_end = false;
  int crashes = 0;
  for (int k = 0; !reached_the_end; ++k) {
    ASSERT_LT(k, 1000) << "the saves never completed";
    SCOPED_TRACE(absl::StrCat("power lost at file operation ", k));
    FakeClockEnv clock(Env::Default());
    MemEnv mem(&clock);
    FaultInjectionEnv env(&mem);
    ASSERT_OK(mem.CreateDir("/logs"));
    int durable_newest = 0;  // the newest step a synced state file named
    {
      CheckpointManager m({.env = &env, .max_to_keep = 2});
      env.FailAfter(k);
      reached_the_end = true;
      for (int step = 1; step <= 5; ++step) {
        if (!SaveStep(&m, &env, &clock, step).ok()) {
          reached_the_end = false;
          break;
        }
        durable_newest = step;  // the state file is written atomically and synced
      }
    }
    if (!reached_the_end) ++crashes;
    env.SimulateCrash();
    env.ClearFaults();

    CheckpointDirectory dir("/logs", {.env = &env, .recover_state = true, .strict = true});
    ASSERT_OK_AND_ASSIGN(std::optional<CheckpointState> state, dir.ReadState());
    ASSERT_OK_AND_ASSIGN(std::optional<CheckpointDirectory::Restore> chosen,
                         dir.ChooseRestore(state));
    CheckpointManager m({.env = &env, .max_to_keep = 2});
    int restored = 0;
    if (chosen.has_value()) {
      const std::string newest = chosen->state.model_checkpoint_path();
      m.SweepBeforeRestore(newest);
      ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&env, newest));
      ASSERT_OK_AND_ASSIGN(Tensor step, reader->Lookup("step"));
      restored = static_cast<int>(step.data<int64_t>()[0]);
      m.Adopt(dir.Restored(*chosen, newest));
    }
    EXPECT_GE(restored, durable_newest);
    for (int step = 6; step <= 7; ++step) ASSERT_OK(SaveStep(&m, &env, &clock, step));
    EXPECT_THAT(Files(&env), UnorderedElementsAreArray(FilesOf({6, 7})));
  }
  EXPECT_GT(crashes, 50);
  std::printf("power lost at each of %d file operations of five saves in turn\n", crashes);
}

}  // namespace
}  // namespace minigraph
