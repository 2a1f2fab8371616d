#include "checkpoint/checkpoint_directory.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/bundle_writer.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "core/env.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A directory /logs with complete checkpoints model.ckpt-<step>, written in
// step order, on an in-memory Env whose clock advances between them.
class CheckpointDirectoryTest : public ::testing::Test {
 protected:
  CheckpointDirectoryTest() : env_(&clock_) { EXPECT_OK(env_.CreateDir("/logs")); }

  void Write(int step) {
    clock_.AdvanceMicros(1000000);
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env_, Path(step)));
    ASSERT_OK(w->Add("v", Tensor::Scalar<float>(step)));
    ASSERT_OK(w->Finish());
  }
  // Writes the state file as a Saver does: `newest` and `all`.
  void Record(int newest, const std::vector<int>& all) {
    std::vector<std::string> paths;
    for (int s : all) paths.push_back(Path(s));
    ASSERT_OK(UpdateCheckpointState(&env_, "/logs", Path(newest), paths));
  }
  static std::string Path(int step) { return "/logs/model.ckpt-" + std::to_string(step); }
  CheckpointDirectory Dir(bool recover, bool strict) {
    return CheckpointDirectory("/logs", {.env = &env_, .recover_state = recover, .strict = strict});
  }
  // ChooseRestore after ReadState, as a reader that does not wait.
  absl::StatusOr<std::optional<CheckpointDirectory::Restore>> Choose(bool recover, bool strict) {
    CheckpointDirectory dir = Dir(recover, strict);
    absl::StatusOr<std::optional<CheckpointState>> state = dir.ReadState();
    if (!state.ok()) return state.status();
    return dir.ChooseRestore(*state);
  }

  FakeClockEnv clock_{Env::Default()};
  MemEnv env_;
};

TEST_F(CheckpointDirectoryTest, AnEmptyDirectoryIsAFreshStartEvenWhenStrict) {
  for (bool recover : {false, true}) {
    ASSERT_OK_AND_ASSIGN(auto chosen, Choose(recover, /*strict=*/true));
    EXPECT_FALSE(chosen.has_value());
  }
}

TEST_F(CheckpointDirectoryTest, TheStateFilesNewestAsItIs) {
  Write(1);
  Write(2);
  Record(2, {1, 2});
  for (bool recover : {false, true}) {
    ASSERT_OK_AND_ASSIGN(auto chosen, Choose(recover, /*strict=*/true));
    ASSERT_TRUE(chosen.has_value());
    EXPECT_FALSE(chosen->rebuilt);
    EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(2));
    EXPECT_THAT(Dir(recover, true).Restored(*chosen, Path(2)), ElementsAre(Path(1), Path(2)));
  }
}

TEST_F(CheckpointDirectoryTest, AMissingStateFileIsRecoveredAndRewrittenOnceRestored) {
  Write(1);
  Write(2);
  Write(3);
  // TensorFlow's rule: no state, no restore; strict refuses to overwrite.
  absl::StatusOr<std::optional<CheckpointDirectory::Restore>> strict = Choose(false, true);
  EXPECT_EQ(strict.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(strict.status().message()),
              HasSubstr("/logs holds 6 checkpoint file(s)"));
  ASSERT_OK_AND_ASSIGN(auto lenient, Choose(false, false));
  EXPECT_FALSE(lenient.has_value());

  ASSERT_OK_AND_ASSIGN(auto chosen, Choose(true, true));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_TRUE(chosen->rebuilt);
  EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(3));
  EXPECT_THAT(CheckpointDirectory::RestoreCandidates(chosen->state, /*fallback=*/true),
              ElementsAre(Path(3), Path(2), Path(1)));
  EXPECT_THAT(CheckpointDirectory::RestoreCandidates(chosen->state, /*fallback=*/false),
              ElementsAre(Path(3)));
  // Step 3 would not restore; step 2 did: the state file names it, and
  // what is older.
  EXPECT_THAT(Dir(true, true).Restored(*chosen, Path(2)), ElementsAre(Path(1), Path(2)));
  ASSERT_OK_AND_ASSIGN(std::optional<CheckpointState> now, GetCheckpointState(&env_, "/logs"));
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->model_checkpoint_path(), Path(2));
}

TEST_F(CheckpointDirectoryTest, AStateNamingAMissingCheckpointGivesWayToTheNewestComplete) {
  Write(1);
  Write(2);
  Record(2, {1, 2});
  ASSERT_OK(env_.DeleteFile(Path(2) + ".index"));
  ASSERT_OK_AND_ASSIGN(auto chosen, Choose(true, true));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_TRUE(chosen->rebuilt);
  EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(1));
  // Without recovery, the state file is followed (and the restore fails).
  ASSERT_OK_AND_ASSIGN(chosen, Choose(false, true));
  EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(2));
}

TEST_F(CheckpointDirectoryTest, AnotherRunsCheckpointIsNotFollowed) {
  ASSERT_OK(env_.CreateDir("/other"));
  ASSERT_OK(UpdateCheckpointState(&env_, "/logs", "/other/model.ckpt-9", {}));
  absl::StatusOr<std::optional<CheckpointDirectory::Restore>> chosen = Choose(true, true);
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(chosen.status().message()),
              HasSubstr("names /other/model.ckpt-9, outside /logs"));
  // With a checkpoint of its own, the directory's is restored.
  Write(4);
  ASSERT_OK_AND_ASSIGN(auto own, Choose(true, true));
  ASSERT_TRUE(own.has_value());
  EXPECT_EQ(own->state.model_checkpoint_path(), Path(4));
}

TEST_F(CheckpointDirectoryTest, AStateNamingNothingIsAnErrorUnlessRecovering) {
  Write(1);
  ASSERT_OK(WriteStringToFile(&env_, "/logs/checkpoint", "all_model_checkpoint_paths: \"x\"\n"));
  EXPECT_EQ(Dir(false, false).ReadState().status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto chosen, Choose(true, false));
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(1));
}

TEST_F(CheckpointDirectoryTest, TheLeaseReadsTheStateAgain) {
  Write(1);
  Record(1, {1});
  ASSERT_OK_AND_ASSIGN(auto chosen, Choose(false, false));
  // No lease file: no lease, the choice stands.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<FileLock> none, Dir(false, false).LeaseForRestore(&*chosen));
  EXPECT_EQ(none, nullptr);
  // A leasing writer saved step 2 since.
  ASSERT_OK(WriteStringToFile(&env_, DirectoryLeaseFilename("/logs"), ""));
  Write(2);
  Record(2, {1, 2});
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<FileLock> lease,
                       Dir(false, false).LeaseForRestore(&*chosen));
  EXPECT_NE(lease, nullptr);
  EXPECT_EQ(chosen->state.model_checkpoint_path(), Path(2));
  // While it is held, the writer cannot take the directory's lease for itself.
  EXPECT_FALSE(env_.TryLockFile(DirectoryLeaseFilename("/logs")).ok());
}

TEST_F(CheckpointDirectoryTest, StrictIgnoresTemporaryFilesAndMarkedFirstSaves) {
  ASSERT_OK(WriteStringToFile(&env_, "/logs/model.ckpt-1.index.tempstate7", "x"));
  ASSERT_OK(WriteStringToFile(&env_, "/logs/model.ckpt-1.data-00000-of-00001", "x"));
  ASSERT_OK(WriteStringToFile(&env_, UnrecordedMarkerFilename(Path(1)), ""));
  EXPECT_OK(Dir(false, true).CheckNothingToRestore());
  ASSERT_OK(env_.DeleteFile(UnrecordedMarkerFilename(Path(1))));
  EXPECT_THAT(std::string(Dir(false, true).CheckNothingToRestore().message()),
              HasSubstr("model.ckpt-1.data-00000-of-00001"));
}

}  // namespace
}  // namespace minigraph
