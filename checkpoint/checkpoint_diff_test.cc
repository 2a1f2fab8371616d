#include "checkpoint/checkpoint_diff.h"

#include "checkpoint/bundle_writer.h"
#include "checkpoint/saved_slices.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CheckpointDiffTest, MissingUnusedMismatchedAndRenameHints) {
  MemEnv env;
  {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/c/m"));
    ASSERT_OK(w->Add("model/dense/kernel", Tensor(DT_FLOAT, TensorShape({3, 2}))));
    ASSERT_OK(w->Add("other/kernel", Tensor(DT_FLOAT, TensorShape({3, 2}))));
    ASSERT_OK(w->Add("bias", Tensor(DT_FLOAT, TensorShape({2}))));
    ASSERT_OK(w->Add("global_step", Tensor::Scalar<int64_t>(7)));
    ASSERT_OK(w->Add("optimizer/beta", Tensor::Scalar<float>(0.9f)));
    ASSERT_OK(w->Finish());
  }
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&env, "/c/m"));
  // What restoring every tensor exactly would need: nothing to report.
  CheckpointDiff same = DiffCheckpoint(
      *reader, {{"bias", DT_FLOAT, TensorShape({2})}, {"global_step", DT_INT64, TensorShape()}});
  EXPECT_TRUE(same.compatible());
  std::vector<std::string> unused;
  for (const CheckpointDiff::Unused& u : same.unused) unused.push_back(u.key);
  EXPECT_THAT(unused, ElementsAre("model/dense/kernel", "optimizer/beta", "other/kernel"));

  CheckpointDiff d =
      DiffCheckpoint(*reader, {{"dense/kernel", DT_FLOAT, TensorShape({3, 2})},  // moved scope
                               {"bias", DT_FLOAT, TensorShape({4})},             // another shape
                               {"global_step", DT_INT32, std::nullopt},          // another dtype
                               {"lr", DT_FLOAT, TensorShape()}});                // nowhere
  EXPECT_FALSE(d.compatible());
  ASSERT_EQ(d.missing.size(), 2u);
  EXPECT_EQ(d.missing[0].expected.key, "dense/kernel");
  // Both unused float [3,2] keys fit; the one sharing more of the name wins.
  EXPECT_EQ(d.missing[0].renamed_from, "model/dense/kernel");
  EXPECT_EQ(d.missing[1].renamed_from, "");  // "optimizer/beta" is a float scalar, but no name
  ASSERT_EQ(d.mismatched.size(), 2u);
  EXPECT_EQ(d.mismatched[0].expected.key, "bias");
  EXPECT_EQ(d.mismatched[1].dtype, DT_INT64);
  const std::string text = d.ToString();
  EXPECT_THAT(text, HasSubstr("missing\tdense/kernel\tfloat [3,2]\tmaybe renamed from "
                              "\"model/dense/kernel\" (same dtype and shape)\n"));
  EXPECT_THAT(text, HasSubstr("mismatch\tbias\tmodel float [4], checkpoint float [2]\n"));
  EXPECT_THAT(text,
              HasSubstr("mismatch\tglobal_step\tmodel int32 (any shape), checkpoint int64 []\n"));
  EXPECT_THAT(text, HasSubstr("unused\tother/kernel\tfloat [3,2]\n"));
  EXPECT_THAT(text, HasSubstr("4 tensors expected, 5 in the checkpoint: 2 missing, 2 mismatched, "
                              "3 unused; a restore would fail"));
}

// A partitioned tensor counts once, by its name: its slice entries are
// neither tensors of the checkpoint nor unused.
TEST(CheckpointDiffTest, PartitionedTensorsCountOnce) {
  MemEnv env;
  {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/c/m"));
    ASSERT_OK(w->AddSlice("emb", TensorShape({4, 2}), *TensorSlice::Parse("0,2:-"),
                          Tensor(DT_FLOAT, TensorShape({2, 2}))));
    ASSERT_OK(w->AddSlice("emb", TensorShape({4, 2}), *TensorSlice::Parse("2,2:-"),
                          Tensor(DT_FLOAT, TensorShape({2, 2}))));
    ASSERT_OK(w->Finish());
  }
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&env, "/c/m"));
  CheckpointDiff d = DiffCheckpoint(*reader, {{"emb", DT_FLOAT, TensorShape({4, 2})}});
  EXPECT_TRUE(d.compatible());
  EXPECT_THAT(d.unused, ::testing::IsEmpty());
  EXPECT_THAT(d.ToString(), HasSubstr("1 tensors expected, 1 in the checkpoint: 0 missing"));
}

}  // namespace
}  // namespace minigraph
