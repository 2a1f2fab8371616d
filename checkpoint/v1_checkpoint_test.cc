// V1 checkpoints (TensorFlow's format before 2016) through BundleReader:
// whole and partitioned tensors, sharded files named by a pattern, and every
// kind of damage as an error naming the file and tensor.
#include "checkpoint/v1_checkpoint.h"

#include "checkpoint/bundle_merge.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/proto/saved_tensor_slice.pb.h"
#include "checkpoint/table.h"
#include "checkpoint/v1_writer.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TensorSlice Slice(absl::string_view spec) { return *TensorSlice::Parse(spec); }

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(V1CheckpointTest, WholeTensorsOfEveryStoredDtype) {
  MemEnv env;
  Tensor words(DT_STRING, TensorShape({3}));
  words.data<std::string>()[0] = "";
  words.data<std::string>()[1] = "tensor";
  words.data<std::string>()[2] = std::string(300, '\0');
  Tensor flags(DT_BOOL, TensorShape({2}));
  flags.data<bool>()[0] = true;
  flags.data<bool>()[1] = false;
  Tensor small(DT_INT8, TensorShape({2}));
  small.data<int8_t>()[0] = -128;
  small.data<int8_t>()[1] = 127;
  Tensor halves(DT_HALF, TensorShape({2}));
  halves.data<half>()[0] = half(1.5f);
  halves.data<half>()[1] = half(-2.0f);
  Tensor c(DT_COMPLEX64, TensorShape({1}));
  c.data<complex64>()[0] = complex64(1, -1);
  const Tensor w = Iota<float>(TensorShape({2, 3}));
  ASSERT_OK(
      WriteV1Checkpoint(&env, "/old/model.ckpt-100",
                        {{"w", w.shape(), TensorSlice::Full(2), w},
                         {"global_step", {}, TensorSlice::Full(0), Tensor::Scalar<int64_t>(100)},
                         {"words", words.shape(), TensorSlice::Full(1), words},
                         {"flags", flags.shape(), TensorSlice::Full(1), flags},
                         {"small", small.shape(), TensorSlice::Full(1), small},
                         {"halves", halves.shape(), TensorSlice::Full(1), halves},
                         {"c", c.shape(), TensorSlice::Full(1), c}}));
  EXPECT_TRUE(CheckpointExists(&env, "/old/model.ckpt-100"));
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/old/model.ckpt-100"));
  EXPECT_EQ(r->format_version(), 1);
  // Tensor names only: the slice records stay inside.
  EXPECT_THAT(r->keys(), ElementsAre("c", "flags", "global_step", "halves", "small", "w", "words"));
  ASSERT_OK_AND_ASSIGN(Tensor got_w, r->Lookup("w"));
  EXPECT_EQ(got_w.shape(), TensorShape({2, 3}));
  EXPECT_THAT(Values(got_w), ElementsAre(0, 1, 2, 3, 4, 5));
  ASSERT_OK_AND_ASSIGN(Tensor step, r->Lookup("global_step"));
  EXPECT_EQ(step.scalar<int64_t>()(), 100);
  ASSERT_OK_AND_ASSIGN(Tensor got_words, r->Lookup("words"));
  EXPECT_EQ(got_words.data<std::string>()[1], "tensor");
  EXPECT_EQ(got_words.data<std::string>()[2], std::string(300, '\0'));
  ASSERT_OK_AND_ASSIGN(Tensor got_flags, r->Lookup("flags"));
  EXPECT_TRUE(got_flags.data<bool>()[0]);
  EXPECT_FALSE(got_flags.data<bool>()[1]);
  ASSERT_OK_AND_ASSIGN(Tensor got_small, r->Lookup("small"));
  EXPECT_EQ(got_small.data<int8_t>()[0], -128);
  ASSERT_OK_AND_ASSIGN(Tensor got_halves, r->Lookup("halves"));
  EXPECT_EQ(static_cast<float>(got_halves.data<half>()[1]), -2.0f);
  ASSERT_OK_AND_ASSIGN(Tensor got_c, r->Lookup("c"));
  EXPECT_EQ(got_c.data<complex64>()[0], complex64(1, -1));
  // Straight into an existing buffer, and a part of a whole tensor.
  Tensor into(DT_FLOAT, TensorShape({2, 3}));
  ASSERT_OK(r->ReadInto("w", &into));
  EXPECT_THAT(Values(into), ElementsAre(0, 1, 2, 3, 4, 5));
  ASSERT_OK_AND_ASSIGN(Tensor row, r->LookupSlice("w", Slice("1,1:-")));
  EXPECT_THAT(Values(row), ElementsAre(3, 4, 5));
  EXPECT_THAT(r->Lookup("v"), StatusIs(absl::StatusCode::kNotFound, HasSubstr("Key v not found")));
}

TEST(V1CheckpointTest, PartitionedTensorAcrossShardFiles) {
  MemEnv env;
  // A [4,2] variable in two partitions, one per shard file, as a sharded
  // V1 Saver wrote it; the state file records the pattern.
  ASSERT_OK(WriteV1Checkpoint(&env, "/old/m-00000-of-00002",
                              {{"emb", TensorShape({4, 2}), Slice("0,2:-"), Iota({2, 2}, 0.f)},
                               {"bias", TensorShape({2}), TensorSlice::Full(1), Iota({2}, 10.f)}}));
  ASSERT_OK(WriteV1Checkpoint(&env, "/old/m-00001-of-00002",
                              {{"emb", TensorShape({4, 2}), Slice("2,2:-"), Iota({2, 2}, 4.f)}}));
  const std::string pattern = "/old/m-????\?-of-00002";
  EXPECT_TRUE(CheckpointExists(&env, pattern));
  EXPECT_FALSE(CheckpointExists(&env, "/old/n-????\?-of-00002"));
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, pattern));
  EXPECT_EQ(r->num_shards(), 2);
  EXPECT_THAT(r->keys(), ElementsAre("bias", "emb"));
  ASSERT_OK_AND_ASSIGN(Tensor emb, r->Lookup("emb"));
  EXPECT_THAT(Values(emb), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  // A slice across both partitions (what a differently partitioned
  // variable restores).
  ASSERT_OK_AND_ASSIGN(Tensor middle, r->LookupSlice("emb", Slice("1,2:1,1")));
  EXPECT_THAT(Values(middle), ElementsAre(3, 5));
  // One shard alone lacks half of "emb".
  ASSERT_OK_AND_ASSIGN(auto first, BundleReader::Open(&env, "/old/m-00000-of-00002"));
  EXPECT_THAT(first->Lookup("emb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Does not have sufficient slices for partitioned tensor emb")));
  ASSERT_OK_AND_ASSIGN(Tensor top, first->LookupSlice("emb", Slice("0,2:-")));
  EXPECT_THAT(Values(top), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(BundleReader::Open(&env, "/old/n-????\?-of-00002"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/old/n-????\?-of-00002")));
}

// Rewrites the record under `key` of the V1 file `path`; a record the edit
// clears is dropped.
void EditRecord(MemEnv* env, const std::string& path, const std::string& key,
                const std::function<void(SavedTensorSlices*)>& edit) {
  std::vector<std::pair<std::string, std::string>> records;
  ASSERT_OK(table::ReadTable(env, path, [&](absl::string_view k, absl::string_view v) {
    records.emplace_back(std::string(k), std::string(v));
    return absl::OkStatus();
  }));
  ASSERT_OK_AND_ASSIGN(auto file, env->NewWritableFile(path));
  auto table = table::TableWriter::Create(file.get(), path);
  for (auto& [k, v] : records) {
    if (k == key) {
      SavedTensorSlices sts;
      ASSERT_TRUE(sts.ParseFromString(v));
      edit(&sts);
      if (sts.ByteSizeLong() == 0) continue;
      v = sts.SerializeAsString();
    }
    ASSERT_OK(table->Add(k, v));
  }
  ASSERT_OK(table->Finish());
  ASSERT_OK(file->Close());
}

class V1DamageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(WriteV1Checkpoint(&env_, kPath,
                                {{"emb", TensorShape({4, 2}), Slice("0,2:-"), Iota<float>({2, 2})},
                                 {"emb", TensorShape({4, 2}), Slice("2,2:-"), Iota({2, 2}, 4.f)}}));
  }
  absl::Status Open() { return BundleReader::Open(&env_, kPath).status(); }
  // Records are read when their tensor is.
  absl::Status OpenAndRead() {
    MG_ASSIGN_OR_RETURN(auto r, BundleReader::Open(&env_, kPath));
    return r->Lookup("emb").status();
  }

  static constexpr char kPath[] = "/old/model.ckpt";
  MemEnv env_;
};

TEST_F(V1DamageTest, EveryFlippedByteIsAnErrorOrTheSameData) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(&env_, kPath));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x41;
    ASSERT_OK(WriteStringToFile(&env_, kPath, bad));
    absl::StatusOr<std::unique_ptr<BundleReader>> r = BundleReader::Open(&env_, kPath);
    absl::StatusOr<Tensor> emb = r.ok() ? (*r)->Lookup("emb") : absl::StatusOr<Tensor>(r.status());
    if (!emb.ok()) {
      EXPECT_THAT(emb.status().message(), HasSubstr(kPath)) << "byte " << i;
      continue;
    }
    // The block checksums cover every record; a flip the table format
    // does not see (the footer's padding) must leave the data as it was.
    EXPECT_THAT(Values(*emb), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7)) << "byte " << i;
  }
  for (size_t n = 0; n < bytes.size(); n += 7) {
    ASSERT_OK(WriteStringToFile(&env_, kPath, bytes.substr(0, n)));
    EXPECT_THAT(OpenAndRead(), StatusIs(absl::StatusCode::kDataLoss, HasSubstr(kPath))) << n;
  }
}

TEST_F(V1DamageTest, MissingSliceRecord) {
  EditRecord(&env_, kPath, EncodeTensorNameSlice("emb", Slice("2,2:-")),
             [](SavedTensorSlices* sts) { sts->Clear(); });
  ASSERT_OK(Open());
  EXPECT_THAT(OpenAndRead(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/old/model.ckpt: tensor \"emb\" lists slice \"2,2:-\", which is "
                                 "missing")));
}

TEST_F(V1DamageTest, SliceUnderAnotherName) {
  EditRecord(&env_, kPath, EncodeTensorNameSlice("emb", Slice("2,2:-")),
             [](SavedTensorSlices* sts) { sts->mutable_data()->set_name("other"); });
  EXPECT_THAT(OpenAndRead(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("stored under the name \"other\"")));
}

TEST_F(V1DamageTest, OverlappingSlices) {
  EditRecord(&env_, kPath, "", [](SavedTensorSlices* sts) {
    *sts->mutable_meta()->mutable_tensor(0)->mutable_slice(1) = sts->meta().tensor(0).slice(0);
  });
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kDataLoss,
                               HasSubstr("tensor \"emb\" has overlapping slices \"0,2:-\"")));
}

TEST_F(V1DamageTest, WrongNumberOfValues) {
  EditRecord(&env_, kPath, EncodeTensorNameSlice("emb", Slice("2,2:-")),
             [](SavedTensorSlices* sts) { sts->mutable_data()->mutable_data()->add_float_val(9); });
  EXPECT_THAT(OpenAndRead(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("tensor \"emb\" has slice \"2,2:-\" of 4 elements stored "
                                 "with 5 values")));
}

TEST_F(V1DamageTest, SliceOutsideTheShape) {
  EditRecord(&env_, kPath, "", [](SavedTensorSlices* sts) {
    sts->mutable_meta()->mutable_tensor(0)->mutable_shape()->mutable_dim(0)->set_size(3);
  });
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kDataLoss, HasSubstr("tensor \"emb\"")));
}

TEST_F(V1DamageTest, TensorWithoutSlices) {
  EditRecord(&env_, kPath, "",
             [](SavedTensorSlices* sts) { sts->mutable_meta()->mutable_tensor(0)->clear_slice(); });
  EXPECT_THAT(Open(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("tensor \"emb\" lists no slices")));
}

TEST_F(V1DamageTest, DtypeV1NeverStored) {
  EditRecord(&env_, kPath, "", [](SavedTensorSlices* sts) {
    sts->mutable_meta()->mutable_tensor(0)->set_type(DT_UINT64);
  });
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kUnimplemented,
                               HasSubstr("tensor \"emb\" has dtype uint64")));
}

TEST_F(V1DamageTest, NewerFormatVersion) {
  EditRecord(&env_, kPath, "", [](SavedTensorSlices* sts) {
    sts->mutable_meta()->mutable_versions()->set_min_consumer(7);
  });
  EXPECT_THAT(Open(), StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("min_consumer=7")));
}

TEST(V1CheckpointTest, ShardsThatDisagree) {
  MemEnv env;
  ASSERT_OK(WriteV1Checkpoint(&env, "/old/m-00000-of-00002",
                              {{"emb", TensorShape({4, 2}), Slice("0,2:-"), Iota<float>({2, 2})}}));
  ASSERT_OK(WriteV1Checkpoint(&env, "/old/m-00001-of-00002",
                              {{"emb", TensorShape({4, 3}), Slice("2,2:-"), Iota<float>({2, 3})}}));
  EXPECT_THAT(BundleReader::Open(&env, "/old/m-????\?-of-00002"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/old/m-00001-of-00002: tensor \"emb\" is float [4,3], but "
                                 "/old/m-00000-of-00002 has it as float [4,2]")));
}

TEST(V1CheckpointTest, OnlyV2CheckpointsMerge) {
  MemEnv env;
  ASSERT_OK(WriteV1Checkpoint(&env, "/old/model.ckpt",
                              {{"w", {}, TensorSlice::Full(0), Tensor::Scalar<int64_t>(1)}}));
  EXPECT_THAT(MergeBundles(&env, {"/old/model.ckpt"}, "/new/model", /*delete_old_dirs=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("/old/model.ckpt is in TensorFlow's V1 format")));
  EXPECT_THAT(env.FileExists("/old/model.ckpt"), IsOk());
}

TEST(V1CheckpointTest, NotATable) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, "/old/model.ckpt", "not a checkpoint"));
  EXPECT_THAT(BundleReader::Open(&env, "/old/model.ckpt"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("/old/model.ckpt")));
}

// The writer refuses what TensorFlow's refuses, with its codes, and what
// TensorFlow writes but cannot restore (overlapping slices); a refused save
// leaves nothing behind, not even its temporary file.
TEST(V1WriterTest, RefusesWhatCannotBeRestored) {
  MemEnv env;
  const Tensor w = Iota<float>({2, 2});
  const TensorShape full({4, 2});
  struct Refused {
    std::vector<V1Slice> slices;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Refused> refused = {
      {{{"u", {2}, TensorSlice::Full(1), Tensor(DT_UINT32, TensorShape({2}))}},
       absl::StatusCode::kInvalidArgument,
       "tensor \"u\": TensorFlow's V1 format cannot hold uint32"},
      {{{"b", {2}, TensorSlice::Full(1), Tensor(DT_BFLOAT16, TensorShape({2}))}},
       absl::StatusCode::kUnimplemented, "tensor \"b\": saving data type bfloat16"},
      {{{"emb", full, Slice("0,3:-"), w}},
       absl::StatusCode::kInvalidArgument,
       "tensor \"emb\": slice \"4 2 0,3:-\" has shape [3,2] but the data's is [2,2]"},
      {{{"emb", full, Slice("3,2:-"), w}}, absl::StatusCode::kInternal, "tensor \"emb\""},
      {{{"emb", full, Slice("0,2:-"), w}, {"emb", full, Slice("1,2:-"), w}},
       absl::StatusCode::kInvalidArgument,
       "tensor \"emb\" has overlapping slices \"0,2:-\" and \"1,2:-\""},
      {{{"emb", full, Slice("0,2:-"), w}, {"emb", TensorShape({5, 2}), Slice("2,2:-"), w}},
       absl::StatusCode::kInternal, "saved with shape [4,2] and again with shape [5,2]"},
      {{{"emb", full, Slice("0,2:-"), w},
        {"emb", full, Slice("2,2:-"), Tensor(DT_INT32, TensorShape({2, 2}))}},
       absl::StatusCode::kInternal, "tensor \"emb\" saved as float and again as int32"},
  };
  for (const Refused& r : refused) {
    EXPECT_THAT(WriteV1Checkpoint(&env, "/new/model.ckpt", r.slices),
                StatusIs(r.code, AllOf(HasSubstr("/new/model.ckpt"), HasSubstr(r.message))));
  }
  ASSERT_OK(env.CreateDir("/new"));
  EXPECT_THAT(env.GetChildren("/new"), IsOkAndHolds(ElementsAre()));
}

TEST(V1WriterTest, WritesInPlaceThroughATemporaryFile) {
  MemEnv env;
  ASSERT_OK(env.CreateDir("/new"));
  ASSERT_OK(WriteStringToFile(&env, "/new/model.ckpt", "an older save"));
  ASSERT_OK(WriteV1Checkpoint(&env, "/new/model.ckpt",
                              {{"emb", TensorShape({4, 2}), Slice("2,2:-"), Iota({2, 2}, 4.f)},
                               {"emb", TensorShape({4, 2}), Slice("0,2:-"), Iota<float>({2, 2})}}));
  EXPECT_THAT(env.GetChildren("/new"), IsOkAndHolds(ElementsAre("model.ckpt")));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(&env, "/new/model.ckpt"));
  ASSERT_OK_AND_ASSIGN(Tensor emb, reader->Lookup("emb"));
  EXPECT_THAT(Values(emb), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace
}  // namespace minigraph
