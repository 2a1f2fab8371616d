#include "checkpoint/checkpoint_files.h"

#include <string>
#include <vector>

#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "checkpoint/temp_files.h"
#include "core/env.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

TEST(CheckpointNamesTest, StepNameAndBase) {
  EXPECT_EQ(CheckpointStep("/logs/model.ckpt-300"), 300);
  EXPECT_EQ(CheckpointStep("model-00000007"), 7);
  EXPECT_EQ(CheckpointStep("model.ckpt"), -1);
  EXPECT_EQ(CheckpointStep("model-"), -1);
  EXPECT_EQ(CheckpointStep("model-1e3"), -1);

  EXPECT_EQ(CheckpointNameOfFile("model-5.index"), "model-5");
  EXPECT_EQ(CheckpointNameOfFile("model-5.data-00000-of-00001"), "model-5");
  EXPECT_EQ(CheckpointNameOfFile("model-5.meta"), "model-5");
  EXPECT_EQ(CheckpointNameOfFile("model-5.lease"), "model-5");
  EXPECT_EQ(CheckpointNameOfFile("model-5.unrecorded"), "model-5");
  EXPECT_EQ(CheckpointNameOfFile("model-5.data-1-of-2"), "");
  EXPECT_EQ(CheckpointNameOfFile("model-5.index.tempstate12"), "");
  EXPECT_EQ(CheckpointNameOfFile("checkpoint"), "");
  EXPECT_EQ(CheckpointNameOfFile("events.out.tfevents.1"), "");

  EXPECT_TRUE(IsCheckpointOf("model.ckpt", "model.ckpt"));
  EXPECT_TRUE(IsCheckpointOf("model.ckpt", "model.ckpt-300"));
  EXPECT_TRUE(IsCheckpointOf("", "best-3"));
  EXPECT_FALSE(IsCheckpointOf("model", "model.ckpt-300"));
  EXPECT_FALSE(IsCheckpointOf("model.ckpt", "model.ckpt-300x"));
  EXPECT_FALSE(IsCheckpointOf("model.ckpt", "model.ckpt-"));
  EXPECT_FALSE(IsCheckpointOf("model", "model2-3"));
  EXPECT_FALSE(IsCheckpointOf("", ""));
}

// What saves killed part-way leave goes; a live writer's file (locked), other
// checkpoints' temporary files and everything else stays.
TEST(TempFilesTest, SweepDeletesOnlyDeadWritersFilesOfThatName) {
  FakeClockEnv clock(Env::Default());
  MemEnv env(&clock);
  ASSERT_OK(env.CreateDir("/ckpt"));
  const std::vector<std::string> dead = {
      "/ckpt/model-5.index.tempstate123", "/ckpt/model-5.data-00000-of-00001.tempstate9",
      "/ckpt/model.index.tempstate4", "/ckpt/model-6.meta.tmp42", "/ckpt/checkpoint.tmp8812735",
      "/ckpt/model-8.tempstate77"};  // a V1 Save's one file
  for (const std::string& p : dead) ASSERT_OK(WriteStringToFile(&env, p, "xyz"));
  const std::vector<std::string> kept = {
      "/ckpt/model-4.index",       "/ckpt/model-4.data-00000-of-00001",
      "/ckpt/checkpoint",          "/ckpt/events.out",
      "/ckpt/data.tmp5",           "/ckpt/checkpoint.tmpfile",
      "/ckpt/best-2.index.tempstate1",  // another name's
      "/ckpt/model2-3.index.tempstate1", "/ckpt/best-8.tempstate2"};
  for (const std::string& p : kept) ASSERT_OK(WriteStringToFile(&env, p, "x"));
  // A save in progress now, however old its file.
  ASSERT_OK_AND_ASSIGN(LockedTempFile live,
                       CreateLockedTempFile(&env, "/ckpt/model-7.index", kTempStateSuffix));
  clock.AdvanceMicros(int64_t{48} * 3600'000'000);

  ASSERT_OK_AND_ASSIGN(SweptFiles swept,
                       DeleteLeftoverTempFiles(&env, "/ckpt", "model", "checkpoint",
                                               absl::Hours(1)));
  EXPECT_THAT(swept.paths,
              UnorderedElementsAre(dead[0], dead[1], dead[2], dead[3], dead[4], dead[5]));
  EXPECT_EQ(swept.bytes, 18u);
  for (const std::string& p : kept) EXPECT_OK(env.FileExists(p)) << p;
  EXPECT_OK(env.FileExists(live.path));

  // Once its writer is gone (killed: the lock goes with the process), so is it.
  live.lock.reset();
  ASSERT_OK_AND_ASSIGN(swept, DeleteLeftoverTempFiles(&env, "/ckpt", "model", "checkpoint",
                                                      absl::Hours(1)));
  EXPECT_THAT(swept.paths, ElementsAre(live.path));
  EXPECT_THAT(DeleteLeftoverTempFiles(&env, "/nowhere", "model", "checkpoint", absl::Hours(1)),
              StatusIs(absl::StatusCode::kNotFound));
}

// A sharded save's parts are complete files no lock protects: their
// directory goes only once nothing in it changed for the given age.
TEST(TempFilesTest, PartsDirectoriesGoWhenOldEnough) {
  FakeClockEnv clock(Env::Default());
  MemEnv env(&clock);
  ASSERT_OK(WriteStringToFile(&env, "/ckpt/model-5_temp_1a2b/part-00000-of-00002.index", "ab"));
  ASSERT_OK(WriteStringToFile(
      &env, "/ckpt/model-5_temp_1a2b/part-00001-of-00002.data-00000-of-00001.tempstate7", "c"));
  ASSERT_OK(WriteStringToFile(&env, "/ckpt/notes_temp_dir/todo.txt", "x"));
  ASSERT_OK(WriteStringToFile(&env, "/ckpt/model-6_temp_ff/notes.txt", "x"));
  ASSERT_OK_AND_ASSIGN(SweptFiles swept, DeleteLeftoverTempFiles(&env, "/ckpt", "model",
                                                                 "checkpoint", absl::Hours(1)));
  EXPECT_THAT(swept.paths, IsEmpty());  // too young
  clock.AdvanceMicros(3600'000'000);
  ASSERT_OK_AND_ASSIGN(swept, DeleteLeftoverTempFiles(&env, "/ckpt", "model", "checkpoint",
                                                      absl::Hours(1)));
  EXPECT_THAT(swept.paths, ElementsAre("/ckpt/model-5_temp_1a2b"));
  EXPECT_EQ(swept.bytes, 3u);
  EXPECT_THAT(env.GetChildren("/ckpt"),
              IsOkAndHolds(UnorderedElementsAre("notes_temp_dir", "model-6_temp_ff")));
  // Infinite: kept.
  ASSERT_OK(WriteStringToFile(&env, "/ckpt/model-7_temp_1/part-00000-of-00001.index", "x"));
  clock.AdvanceMicros(int64_t{1000} * 3600'000'000);
  EXPECT_THAT(DeleteLeftoverTempFiles(&env, "/ckpt", "model", "checkpoint",
                                      absl::InfiniteDuration()),
              IsOkAndHolds(::testing::Field(&SweptFiles::paths, IsEmpty())));
}

// A file swept between its creation and its lock is given up for another.
TEST(TempFilesTest, CreateTriesAnotherNameWhenSweptBeforeItsLock) {
  class SweepOnLockEnv : public EnvWrapper {
   public:
    explicit SweepOnLockEnv(Env* base) : EnvWrapper(base) {}
    absl::StatusOr<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override {
      if (sweeps_left_ > 0) {
        --sweeps_left_;
        target()->DeleteFile(path).IgnoreError();
      }
      return EnvWrapper::TryLockFile(path);
    }
    int sweeps_left_ = 2;
  };
  MemEnv mem;
  SweepOnLockEnv env(&mem);
  ASSERT_OK_AND_ASSIGN(LockedTempFile tmp,
                       CreateLockedTempFile(&env, "/d/checkpoint", ".tmp"));
  EXPECT_OK(mem.FileExists(tmp.path));
  EXPECT_THAT(mem.GetChildren("/d"), IsOkAndHolds(ElementsAre(Basename(tmp.path))));
  EXPECT_THAT(mem.TryLockFile(tmp.path), StatusIs(absl::StatusCode::kFailedPrecondition));
}

void WriteCheckpoint(Env* env, const std::string& prefix) {
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(env, prefix));
  ASSERT_OK(w->Add("v", Tensor::Scalar<float>(1.0f)));
  ASSERT_OK(w->Finish());
}

TEST(CheckpointFilesTest, ListsEachCheckpointWithItsFilesOldestFirst) {
  FakeClockEnv clock(Env::Default());
  MemEnv env(&clock);
  WriteCheckpoint(&env, "/logs/model-20");
  clock.AdvanceMicros(1000);
  WriteCheckpoint(&env, "/logs/model-10");  // written later: newer
  clock.AdvanceMicros(1000);
  ASSERT_OK(WriteStringToFile(&env, "/logs/model-30.data-00000-of-00001", "x"));
  ASSERT_OK(WriteStringToFile(&env, "/logs/model-30.unrecorded", ""));
  WriteCheckpoint(&env, "/logs/best-3");
  ASSERT_OK(WriteStringToFile(&env, "/logs/model-40.index.tempstate5", "x"));
  ASSERT_OK_AND_ASSIGN(std::vector<CheckpointOnDisk> found,
                       ListCheckpoints(&env, "/logs", "model"));
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].prefix, "/logs/model-20");
  EXPECT_EQ(found[0].step, 20);
  EXPECT_TRUE(found[0].has_index);
  EXPECT_FALSE(found[0].has_marker);
  EXPECT_THAT(found[0].files,
              ElementsAre("/logs/model-20.data-00000-of-00001", "/logs/model-20.index"));
  EXPECT_EQ(found[1].prefix, "/logs/model-10");
  EXPECT_EQ(found[2].prefix, "/logs/model-30");
  EXPECT_FALSE(found[2].has_index);
  EXPECT_TRUE(found[2].has_marker);
  ASSERT_OK_AND_ASSIGN(found, ListCheckpoints(&env, "/logs", ""));
  EXPECT_EQ(found.size(), 4u);
}

TEST(CheckpointFilesTest, RebuildsTheStateFromCompleteCheckpointsOfTheNewestName) {
  FakeClockEnv clock(Env::Default());
  MemEnv env(&clock);
  EXPECT_THAT(RebuildCheckpointState(&env, "/logs"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(env.CreateDir("/logs"));
  EXPECT_THAT(RebuildCheckpointState(&env, "/logs"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no complete checkpoint in /logs")));
  WriteCheckpoint(&env, "/logs/other-900");
  for (int step : {100, 200, 300}) {
    clock.AdvanceMicros(1000);
    WriteCheckpoint(&env, "/logs/model.ckpt-" + std::to_string(step));
  }
  WriteCheckpoint(&env, "/logs/model.ckpt-400");
  ASSERT_OK(env.DeleteFile("/logs/model.ckpt-400.data-00000-of-00001"));  // killed mid-delete
  ASSERT_OK(WriteStringToFile(&env, "/logs/model.ckpt-500.data-00000-of-00001", "x"));
  std::vector<std::string> skipped;
  ASSERT_OK_AND_ASSIGN(CheckpointState state, RebuildCheckpointState(&env, "/logs", &skipped));
  // other-900 has the highest step: its name wins, alone.
  EXPECT_EQ(state.model_checkpoint_path(), "/logs/other-900");
  EXPECT_THAT(state.all_model_checkpoint_paths(), ElementsAre("/logs/other-900"));
  EXPECT_THAT(skipped, ElementsAre(HasSubstr("/logs/model.ckpt-400: ")));
  ASSERT_OK(env.DeleteFile("/logs/other-900.index"));
  ASSERT_OK_AND_ASSIGN(state, RebuildCheckpointState(&env, "/logs"));
  EXPECT_EQ(state.model_checkpoint_path(), "/logs/model.ckpt-300");
  EXPECT_THAT(state.all_model_checkpoint_paths(),
              ElementsAre("/logs/model.ckpt-100", "/logs/model.ckpt-200", "/logs/model.ckpt-300"));
  ASSERT_EQ(state.all_model_checkpoint_timestamps_size(), 3);
  EXPECT_LT(state.all_model_checkpoint_timestamps(0), state.all_model_checkpoint_timestamps(2));
}

}  // namespace
}  // namespace minigraph
