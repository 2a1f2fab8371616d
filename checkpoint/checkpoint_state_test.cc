#include "checkpoint/checkpoint_state.h"

#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "core/env.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

void Save(Env* env, const std::string& prefix) {
  auto w = BundleWriter::Create(env, prefix);
  ASSERT_OK(w.status());
  ASSERT_OK((*w)->Add("v", Tensor::Scalar<float>(1)));
  ASSERT_OK((*w)->Finish());
}

TEST(CheckpointStateTest, AbsolutePathsWrittenAsTensorFlowDoes) {
  MemEnv env;
  ASSERT_OK(env.CreateDir("/data/train"));
  ASSERT_OK(UpdateCheckpointState(&env, "/data/train", "/data/train/model.ckpt-300",
                                  {"/data/train/model.ckpt-100", "/data/train/model.ckpt-200",
                                   "/data/train/model.ckpt-300"}));
  EXPECT_THAT(
      ReadFileToString(&env, "/data/train/checkpoint"),
      IsOkAndHolds(std::string("model_checkpoint_path: \"/data/train/model.ckpt-300\"\n"
                               "all_model_checkpoint_paths: \"/data/train/model.ckpt-100\"\n"
                               "all_model_checkpoint_paths: \"/data/train/model.ckpt-200\"\n"
                               "all_model_checkpoint_paths: \"/data/train/model.ckpt-300\"\n")));
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&env, "/data/train"));
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->model_checkpoint_path(), "/data/train/model.ckpt-300");
  EXPECT_EQ(state->all_model_checkpoint_paths_size(), 3);
  // No temporary file is left behind.
  EXPECT_THAT(env.GetChildren("/data/train"), IsOkAndHolds(ElementsAre("checkpoint")));
}

TEST(CheckpointStateTest, RelativePathsAndTimestamps) {
  MemEnv env;
  ASSERT_OK(UpdateCheckpointState(&env, "/d", "/d/ckpt-3", {"/d/ckpt-2"}, {10.5, 20.25}, 5.5,
                                  kDefaultLatestFilename, /*save_relative_paths=*/true));
  EXPECT_THAT(ReadFileToString(&env, "/d/checkpoint"),
              IsOkAndHolds(std::string("model_checkpoint_path: \"ckpt-3\"\n"
                                       "all_model_checkpoint_paths: \"ckpt-2\"\n"
                                       "all_model_checkpoint_paths: \"ckpt-3\"\n"
                                       "all_model_checkpoint_timestamps: 10.5\n"
                                       "all_model_checkpoint_timestamps: 20.25\n"
                                       "last_preserved_timestamp: 5.5\n")));
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(&env, "/d"));
  EXPECT_EQ(state->model_checkpoint_path(), "/d/ckpt-3");
  EXPECT_THAT(state->all_model_checkpoint_paths(), ElementsAre("/d/ckpt-2", "/d/ckpt-3"));
  EXPECT_THAT(UpdateCheckpointState(&env, "/d", "/d/ckpt-4", {"/d/ckpt-3"}, {1.0}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("timestamps")));
  EXPECT_THAT(UpdateCheckpointState(&env, "/d", "/d/checkpoint"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("conflicts with path used for checkpoint state")));
}

TEST(CheckpointStateTest, MissingUnparsableAndEmptyStates) {
  MemEnv env;
  EXPECT_THAT(GetCheckpointState(&env, "/none"), IsOkAndHolds(::testing::Eq(std::nullopt)));
  ASSERT_OK(WriteStringToFile(&env, "/bad/checkpoint", "this is { not a proto"));
  EXPECT_THAT(GetCheckpointState(&env, "/bad"), IsOkAndHolds(::testing::Eq(std::nullopt)));
  ASSERT_OK(WriteStringToFile(&env, "/empty/checkpoint", "all_model_checkpoint_paths: \"x\"\n"));
  EXPECT_THAT(GetCheckpointState(&env, "/empty"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid checkpoint state loaded from /empty")));
}

TEST(CheckpointStateTest, LatestCheckpointChecksIndexThenV1File) {
  MemEnv env;
  ASSERT_OK(UpdateCheckpointState(&env, "/d", "/d/model-1"));
  EXPECT_THAT(LatestCheckpoint(&env, "/d"), IsOkAndHolds(std::nullopt));  // no files
  Save(&env, "/d/model-1");
  EXPECT_THAT(LatestCheckpoint(&env, "/d"), IsOkAndHolds(Optional(std::string("/d/model-1"))));
  ASSERT_OK(WriteStringToFile(&env, "/v1/model-2", "v1 table"));
  ASSERT_OK(UpdateCheckpointState(&env, "/v1", "/v1/model-2"));
  EXPECT_THAT(LatestCheckpoint(&env, "/v1"), IsOkAndHolds(Optional(std::string("/v1/model-2"))));
}

TEST(CheckpointStateTest, MetaGraphFilenameAndRemoveCheckpoint) {
  EXPECT_EQ(MetaGraphFilename("/d/model.ckpt-300"), "/d/model.ckpt-300.meta");
  EXPECT_EQ(MetaGraphFilename("/d/model-?????-of-00002"), "/d/model.meta");
  // TensorFlow's "-[\d\?]+-of-\d+$", case by case.
  EXPECT_EQ(MetaGraphFilename("model-00000-of-00001"), "model.meta");
  EXPECT_EQ(MetaGraphFilename("m-12-of-3", "txt"), "m.txt");
  EXPECT_EQ(MetaGraphFilename("m-1?2-of-3"), "m.meta");
  EXPECT_EQ(MetaGraphFilename("m-of-3"), "m-of-3.meta");
  EXPECT_EQ(MetaGraphFilename("m-1-of-"), "m-1-of-.meta");
  EXPECT_EQ(MetaGraphFilename("m1-of-3"), "m1-of-3.meta");
  EXPECT_EQ(MetaGraphFilename("-1-of-3"), ".meta");
  EXPECT_EQ(MetaGraphFilename("m-1-of-3x"), "m-1-of-3x.meta");
  MemEnv env;
  Save(&env, "/d/model-1");
  Save(&env, "/d/model-10");
  ASSERT_OK(WriteStringToFile(&env, "/d/model-1.meta", "meta"));
  RemoveCheckpoint(&env, "/d/model-1");
  EXPECT_THAT(env.GetChildren("/d"),
              IsOkAndHolds(::testing::UnorderedElementsAre("model-10.index",
                                                           "model-10.data-00000-of-00001")));
}

TEST(CheckpointStateTest, ReadsTensorFlowStateFiles) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string gan = JoinPath(dir, "tf_checkpoints/dpbigler__mnist_GAN/training_checkpoints");
  ASSERT_OK_AND_ASSIGN(auto state, GetCheckpointState(Env::Default(), gan));
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->model_checkpoint_path(), JoinPath(gan, "ckpt-3149"));
  EXPECT_EQ(state->all_model_checkpoint_paths_size(),
            state->all_model_checkpoint_timestamps_size());
  EXPECT_GT(state->last_preserved_timestamp(), 1.5e9);
  EXPECT_THAT(LatestCheckpoint(Env::Default(), gan),
              IsOkAndHolds(Optional(JoinPath(gan, "ckpt-3149"))));
  const std::string td =
      JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints");
  ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(Env::Default(), td));
  ASSERT_TRUE(latest.has_value());
  EXPECT_TRUE(CheckpointExists(Env::Default(), *latest));
}

}  // namespace
}  // namespace minigraph
