// BundleWriter/BundleReader round trips, argument errors, and corruption:
// every flipped byte and every truncation ends in an error or correct data.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/bundle_merge.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/table.h"
#include "core/allocator.h"
#include "core/bus_errors.h"
#include "core/coding.h"
#include "core/crc32c.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

Tensor RandomTensor(DataType dt, const TensorShape& shape, std::mt19937* rng) {
  Tensor t(dt, shape);
  if (dt == DT_STRING) {
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<std::string>()[i] = std::string((*rng)() % 300, static_cast<char>((*rng)()));
    }
    return t;
  }
  auto* p = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i) p[i] = static_cast<unsigned char>((*rng)());
  if (dt == DT_BOOL) {
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] &= 1;
  }
  return t;
}

bool SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.data<std::string>()[i] != b.data<std::string>()[i]) return false;
    }
    return true;
  }
  return a.tensor_data() == b.tensor_data();
}

TEST(BundleTest, RoundTripsEveryDtypeAndShape) {
  const std::vector<DataType> dtypes = {
      DT_FLOAT, DT_DOUBLE, DT_INT32,    DT_UINT8,  DT_INT16,      DT_INT8, DT_STRING, DT_COMPLEX64,
      DT_INT64, DT_BOOL,   DT_BFLOAT16, DT_UINT16, DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64};
  const std::vector<TensorShape> shapes = {TensorShape(), TensorShape({0}), TensorShape({5}),
                                           TensorShape({3, 0, 2}), TensorShape({17, 3})};
  std::mt19937 rng(11);
  MemEnv env;
  std::map<std::string, Tensor> saved;
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/ckpt/dir/model"));
  int n = 0;
  for (DataType dt : dtypes) {
    for (const TensorShape& shape : shapes) {
      // Keys in random order; data order follows Add order.
      std::string key = absl::StrCat("v", rng() % 1000, "/", DataTypeString(dt), "_", n++);
      saved[key] = RandomTensor(dt, shape, &rng);
      ASSERT_OK(w->Add(key, saved[key]));
    }
  }
  ASSERT_OK(w->Finish());
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/ckpt/dir/model"));
  ASSERT_EQ(r->keys().size(), saved.size());
  for (const auto& [key, want] : saved) {
    ASSERT_OK_AND_ASSIGN(Tensor got, r->Lookup(key));
    EXPECT_TRUE(SameTensor(got, want)) << key;
    Tensor into(want.dtype(), want.shape());
    ASSERT_OK(r->ReadInto(key, &into));
    EXPECT_TRUE(SameTensor(into, want)) << key;
  }
  // No temporary files are left behind.
  ASSERT_OK_AND_ASSIGN(auto files, env.GetChildren("/ckpt/dir"));
  EXPECT_THAT(files, ::testing::UnorderedElementsAre("model.index", "model.data-00000-of-00001"));
}

// An Env whose file `path`, once Shrink() is called, reads as if it ended
// at `size` (a file truncated after a reader opened it).
class ShortReadEnv : public EnvWrapper {
 public:
  ShortReadEnv(Env* base, std::string path, uint64_t size)
      : EnvWrapper(base), path_(std::move(path)), size_(size) {}
  void Shrink() { shrunk_ = true; }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    MG_ASSIGN_OR_RETURN(auto f, target()->NewRandomAccessFile(path));
    if (path != path_) return f;
    return std::unique_ptr<RandomAccessFile>(new File(std::move(f), this));
  }

 private:
  class File : public RandomAccessFile {
   public:
    File(std::unique_ptr<RandomAccessFile> f, const ShortReadEnv* env)
        : f_(std::move(f)), env_(env) {}
    absl::StatusOr<absl::string_view> Read(uint64_t offset, size_t n,
                                           char* scratch) const override {
      if (env_->shrunk_)
        n = offset >= env_->size_ ? 0 : std::min<uint64_t>(n, env_->size_ - offset);
      return f_->Read(offset, n, scratch);
    }

   private:
    std::unique_ptr<RandomAccessFile> f_;
    const ShortReadEnv* env_;
  };
  const std::string path_;
  const uint64_t size_;
  std::atomic<bool> shrunk_{false};
};

// ReadRunInto: tensors stored back to back come in one read and each is
// still checked on its own (its crc, its destination); anything else (out of
// order, a string between them) is read one by one with the same results.
TEST(BundleTest, ReadRunIntoReadsNeighboursTogetherAndChecksEach) {
  MemEnv env;
  std::mt19937 rng(3);
  std::vector<std::string> keys;
  std::vector<Tensor> saved;
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/r/m"));
  for (int i = 0; i < 5; ++i) {
    keys.push_back(absl::StrCat("a", i));
    saved.push_back(RandomTensor(i == 4 ? DT_BOOL : DT_FLOAT, TensorShape({i + 1, 3}), &rng));
    ASSERT_OK(w->Add(keys.back(), saved.back()));
  }
  keys.push_back("s");
  saved.push_back(Tensor::Vector<std::string>({"x", "yz"}));
  ASSERT_OK(w->Add("s", saved.back()));
  ASSERT_OK(w->Finish());

  auto read = [&](const std::vector<int>& which, std::vector<Tensor>* out) {
    auto r = BundleReader::Open(&env, "/r/m");
    EXPECT_OK(r.status());
    std::vector<absl::string_view> ks;
    std::vector<Tensor*> dsts;
    out->clear();
    for (int i : which) out->emplace_back(saved[i].dtype(), saved[i].shape());
    for (size_t k = 0; k < which.size(); ++k) {
      ks.push_back(keys[which[k]]);
      dsts.push_back(&(*out)[k]);
    }
    std::vector<absl::Status> status(which.size());
    if (r.ok()) (*r)->ReadRunInto(ks, dsts, absl::MakeSpan(status));
    return status;
  };
  std::vector<Tensor> got;
  for (const std::vector<int>& which :
       {std::vector<int>{0, 1, 2, 3, 4}, {1, 0}, {3, 4, 5}, {2}, {4, 5, 0}}) {
    std::vector<absl::Status> status = read(which, &got);
    for (size_t k = 0; k < which.size(); ++k) {
      ASSERT_OK(status[k]);
      EXPECT_TRUE(SameTensor(got[k], saved[which[k]])) << keys[which[k]];
    }
  }

  // A flipped byte in a2: DataLoss for a2 alone.
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/r/m"));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e2, r->GetEntry("a2"));
  const std::string data_file = DataFilename("/r/m", 0, 1);
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(&env, data_file));
  std::string bad = data;
  bad[e2->offset() + 5] ^= 0x40;
  ASSERT_OK(WriteStringToFile(&env, data_file, bad));
  std::vector<absl::Status> status = read({0, 1, 2, 3, 4}, &got);
  for (int k : {0, 1, 3, 4}) EXPECT_OK(status[k]);
  EXPECT_THAT(status[2], StatusIs(absl::StatusCode::kDataLoss,
                                  HasSubstr("Checksum does not match for tensor \"a2\"")));

  ASSERT_OK(WriteStringToFile(&env, data_file, data));

  // The data file cut inside a4 after the reader checked it (another
  // process truncating it): every tensor of the run is DataLoss.
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e4, r->GetEntry("a4"));
  ShortReadEnv shrinking(&env, data_file, e4->offset() + 2);
  ASSERT_OK_AND_ASSIGN(auto r3, BundleReader::Open(&shrinking, "/r/m"));
  shrinking.Shrink();
  std::vector<Tensor> all;
  std::vector<Tensor*> all_dsts;
  for (int i = 0; i < 5; ++i) all.emplace_back(saved[i].dtype(), saved[i].shape());
  for (Tensor& t : all) all_dsts.push_back(&t);
  status.assign(5, absl::OkStatus());
  r3->ReadRunInto({"a0", "a1", "a2", "a3", "a4"}, all_dsts, absl::MakeSpan(status));
  for (const absl::Status& s : status) {
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kDataLoss,
                            HasSubstr("tensors \"a0\" to \"a4\" are truncated")));
  }

  // A destination of the wrong shape: InvalidArgument for that one.
  auto r2 = *BundleReader::Open(&env, "/r/m");
  std::vector<Tensor> dst = {Tensor(DT_FLOAT, TensorShape({1, 3})),
                             Tensor(DT_FLOAT, TensorShape({3, 2}))};
  status.assign(2, absl::OkStatus());
  r2->ReadRunInto({"a0", "a1"}, {&dst[0], &dst[1]}, absl::MakeSpan(status));
  EXPECT_OK(status[0]);
  EXPECT_THAT(status[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("but the destination is float [3,2]")));
}

// A tensor large enough that the writer computes its crc on a second thread
// while writing it: the stored crc is the bytes', and a flipped byte is
// caught.
TEST(BundleTest, LargeTensorCrcComputedWhileWriting) {
  MemEnv env;
  std::mt19937 rng(8);
  Tensor big = RandomTensor(DT_FLOAT, TensorShape({5 << 18}), &rng);  // 5 MiB
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/big/m"));
  ASSERT_OK(w->Add("small", Tensor::Scalar<int32_t>(1)));
  ASSERT_OK(w->Add("big", big));
  ASSERT_OK(w->Finish());
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/big/m"));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, r->GetEntry("big"));
  const absl::string_view bytes = big.tensor_data();
  EXPECT_EQ(crc32c::Unmask(e->crc32c()), crc32c::Value(bytes.data(), bytes.size()));
  ASSERT_OK_AND_ASSIGN(Tensor got, r->Lookup("big"));
  EXPECT_TRUE(SameTensor(got, big));

  const std::string data_file = DataFilename("/big/m", 0, 1);
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(&env, data_file));
  data[e->offset() + 3 * (1 << 20)] ^= 1;
  ASSERT_OK(WriteStringToFile(&env, data_file, data));
  ASSERT_OK_AND_ASSIGN(auto r2, BundleReader::Open(&env, "/big/m"));
  EXPECT_THAT(r2->Lookup("big").status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("Checksum does not match")));
}

TEST(BundleTest, WriterArgumentErrors) {
  MemEnv env;
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/c/m"));
  EXPECT_THAT(w->Add("", Tensor::Scalar<float>(1)), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_OK(w->Add("a", Tensor::Scalar<float>(1)));
  EXPECT_THAT(w->Add("a", Tensor::Scalar<float>(2)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"a\" is added twice")));
  EXPECT_THAT(w->Add("r", Tensor(DT_RESOURCE, TensorShape())),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DT_RESOURCE")));
  ASSERT_OK(w->Finish());
  EXPECT_THAT(w->Finish(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(w->Add("b", Tensor::Scalar<float>(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(BundleTest, AbandonedWriterLeavesNoFiles) {
  MemEnv env;
  {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/c/m"));
    ASSERT_OK(w->Add("a", Tensor::Scalar<float>(1)));
  }
  EXPECT_THAT(env.GetChildren("/c"), IsOkAndHolds(::testing::IsEmpty()));
}

TEST(BundleTest, ReaderErrorsNameTheFileAndKey) {
  MemEnv env;
  EXPECT_THAT(BundleReader::Open(&env, "/none/m"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/none/m.index")));
  // A file without ".index" is read as a V1 checkpoint (v1_checkpoint_test).
  ASSERT_OK(WriteStringToFile(&env, "/v1/model.ckpt", "old"));
  EXPECT_THAT(BundleReader::Open(&env, "/v1/model.ckpt"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("/v1/model.ckpt")));
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/c/m"));
  ASSERT_OK(w->Add("a", Tensor::Vector<float>({1, 2})));
  ASSERT_OK(w->Finish());
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/c/m"));
  EXPECT_THAT(r->Lookup("b"), StatusIs(absl::StatusCode::kNotFound,
                                       HasSubstr("Key b not found in checkpoint /c/m")));
  Tensor wrong(DT_FLOAT, TensorShape({3}));
  EXPECT_THAT(r->ReadInto("a", &wrong),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("float [2]")));
  ASSERT_OK(env.DeleteFile(DataFilename("/c/m", 0, 1)));
  EXPECT_THAT(BundleReader::Open(&env, "/c/m"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("m.data-00000-of-00001")));
}

// Writes an index with a hand-made header and entries.
void WriteIndex(Env* env, const std::string& prefix, const BundleHeaderProto& header,
                const std::map<std::string, BundleEntryProto>& entries) {
  auto f = env->NewWritableFile(MetaFilename(prefix));
  ASSERT_OK(f.status());
  auto t = table::TableWriter::Create(f->get(), "index");
  ASSERT_OK(t->Add("", header.SerializeAsString()));
  for (const auto& [k, e] : entries) ASSERT_OK(t->Add(k, e.SerializeAsString()));
  ASSERT_OK(t->Finish());
  ASSERT_OK((*f)->Close());
}

TEST(BundleTest, HeaderAndEntryValidation) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, DataFilename("/h/m", 0, 1), std::string(8, 'x')));
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);
  BundleEntryProto e;
  e.set_dtype(DT_FLOAT);
  e.mutable_shape()->add_dim()->set_size(2);
  e.set_size(8);

  BundleHeaderProto future = header;
  future.mutable_version()->set_min_consumer(5);
  WriteIndex(&env, "/h/m", future, {{"a", e}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("min_consumer=5")));
  BundleHeaderProto big = header;
  big.set_endianness(BundleHeaderProto::BIG);
  WriteIndex(&env, "/h/m", big, {{"a", e}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("big-endian")));

  BundleEntryProto bad_shard = e;
  bad_shard.set_shard_id(3);
  WriteIndex(&env, "/h/m", header, {{"a", bad_shard}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("shard id 3")));
  BundleEntryProto bad_size = e;
  bad_size.set_size(7);
  WriteIndex(&env, "/h/m", header, {{"a", bad_size}});
  EXPECT_THAT(
      BundleReader::Open(&env, "/h/m"),
      StatusIs(absl::StatusCode::kDataLoss, AllOf(HasSubstr("\"a\""), HasSubstr("size 7"))));
  BundleEntryProto past_end = e;
  past_end.set_offset(4);
  WriteIndex(&env, "/h/m", header, {{"a", past_end}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("has only 8 bytes")));
  BundleEntryProto sliced;
  sliced.set_dtype(DT_FLOAT);
  sliced.mutable_shape()->add_dim()->set_size(4);
  sliced.add_slices()->add_extent();
  WriteIndex(&env, "/h/m", header, {{"a", e}, {"part", sliced}});
  EXPECT_THAT(
      BundleReader::Open(&env, "/h/m"),
      StatusIs(absl::StatusCode::kDataLoss,
               HasSubstr("partitioned tensor \"part\" lists slice \"-\", which is missing")));
  // Two slices over the same elements; a slice stored with another dtype
  // or shape than the entry says.
  BundleEntryProto halves = sliced;
  halves.clear_slices();
  for (const char* spec : {"0,2", "1,2"}) TensorSlice::Parse(spec)->AsProto(halves.add_slices());
  BundleEntryProto part = e;  // float [2], 8 bytes at offset 0
  WriteIndex(&env, "/h/m", header,
             {{"part", halves},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("0,2")), part},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("1,2")), part}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("partitioned tensor \"part\" has overlapping slices \"0,2\" "
                                 "and \"1,2\"")));
  halves.clear_slices();
  for (const char* spec : {"0,2", "2,2"}) TensorSlice::Parse(spec)->AsProto(halves.add_slices());
  BundleEntryProto ints = part;
  ints.set_dtype(DT_INT32);
  WriteIndex(&env, "/h/m", header,
             {{"part", halves},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("0,2")), part},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("2,2")), ints}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("has slice \"2,2\" stored as int32 [2], not float [2]")));
  BundleEntryProto longer = part;
  longer.mutable_shape()->mutable_dim(0)->set_size(1);
  longer.set_size(4);
  WriteIndex(&env, "/h/m", header,
             {{"part", halves},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("0,2")), part},
              {EncodeTensorNameSlice("part", *TensorSlice::Parse("2,2")), longer}});
  EXPECT_THAT(BundleReader::Open(&env, "/h/m"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("has slice \"2,2\" stored as float [1], not float [2]")));
  e.set_crc32c(12345);
  WriteIndex(&env, "/h/m", header, {{"a", e}});
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/h/m"));
  EXPECT_THAT(r->Lookup("a"), StatusIs(absl::StatusCode::kDataLoss,
                                       HasSubstr("Checksum does not match for tensor \"a\"")));
}

// Slice keys as TensorFlow's checkpoint::EncodeTensorNameSlice makes them
// (tensor_bundle_format.md §8: the V1 sample's key for a whole rank-2
// tensor, and OrderedCode's examples).
TEST(BundleSliceTest, SliceKeysAreTensorFlowsOrderedCode) {
  auto key = [](absl::string_view name, absl::string_view spec) {
    return EncodeTensorNameSlice(name, *TensorSlice::Parse(spec));
  };
  EXPECT_EQ(key("apply_gradients/trace/trace", "-:-"),
            std::string("\x00"
                        "apply_gradients/trace/trace"
                        "\x00\x01\x01\x02\x80\x7f\x80\x7f",
                        36));
  EXPECT_EQ(key("w", "0,5:5,100"), std::string("\x00w\x00\x01\x01\x02\x80\x85\x85\xc0\x64", 11));
  EXPECT_EQ(key("w", "4342338,1"), std::string("\x00w\x00\x01\x01\x01\xf0\x42\x42\x42\x81", 11))
      << "0x424242 in four bytes";
  EXPECT_EQ(key("a\xff", ""), std::string("\x00\x61\xff\x00\x00\x01\x00", 7))
      << "0xff escaped; rank 0";
  EXPECT_THAT(TensorSlice::Parse("0,5:x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 1 is \"x\"")));
}

// A partitioned tensor written in slices (here by two shards, merged as a
// sharded save merges them) reads back whole or in any part, and its entry
// is what TensorFlow's BundleWriter::AddSlice writes.
TEST(BundleSliceTest, SlicesFromShardsMergeAndReadWholeOrInPart) {
  MemEnv env;
  ASSERT_OK(env.CreateDir("/s"));
  const TensorShape full({4, 3});
  auto rows = [](int first, int n) {
    Tensor t(DT_FLOAT, TensorShape({n, 3}));
    for (int i = 0; i < 3 * n; ++i) t.data<float>()[i] = 3 * first + i;
    return t;
  };
  for (int shard = 0; shard < 2; ++shard) {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, absl::StrCat("/s/part", shard)));
    ASSERT_OK(w->AddSlice("m", full, *TensorSlice::Parse(shard == 0 ? "0,2:-" : "2,2:-"),
                          rows(2 * shard, 2)));
    if (shard == 0) {
      EXPECT_THAT(w->AddSlice("m", full, *TensorSlice::Parse("0,2:-"), rows(0, 2)),
                  StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is added twice")));
      EXPECT_THAT(w->AddSlice("m", full, *TensorSlice::Parse("3,2:-"), rows(0, 2)),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("slice \"3,2:-\" reaches past the shape [4,3]")));
      EXPECT_THAT(w->AddSlice("m", full, *TensorSlice::Parse("2,1:-"), rows(0, 2)),
                  StatusIs(absl::StatusCode::kInvalidArgument,
                           HasSubstr("has shape [1,3] but the tensor given for it [2,3]")));
    }
    ASSERT_OK(w->Finish());
  }
  // One shard alone does not cover the whole.
  ASSERT_OK_AND_ASSIGN(auto half, BundleReader::Open(&env, "/s/part1"));
  EXPECT_THAT(half->Lookup("m"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Does not have sufficient slices for partitioned tensor m to "
                                 "restore in slice_spec: -:-")));
  ASSERT_OK_AND_ASSIGN(Tensor last, half->LookupSlice("m", *TensorSlice::Parse("3,1:-")));
  EXPECT_EQ(last.SummarizeValue(20), "9 10 11");

  ASSERT_OK(MergeBundles(&env, {"/s/part0", "/s/part1"}, "/s/m", /*delete_old_dirs=*/false));
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/s/m"));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, r->GetEntry("m"));
  // dtype float, shape [4,3], slices {extent {length 2} extent {}} and
  // {extent {start 2 length 2} extent {}}: no shard, offset, size or crc.
  EXPECT_EQ(e->SerializeAsString(), std::string("\x08\x01\x12\x08\x12\x02\x08\x04\x12\x02\x08\x03"
                                                "\x3a\x06\x0a\x02\x10\x02\x0a\x00"
                                                "\x3a\x08\x0a\x04\x08\x02\x10\x02\x0a\x00",
                                                30));
  ASSERT_OK_AND_ASSIGN(Tensor whole, r->Lookup("m"));
  EXPECT_EQ(whole.SummarizeValue(20), "0 1 2 3 4 5 6 7 8 9 10 11");
  ASSERT_OK_AND_ASSIGN(Tensor middle, r->LookupSlice("m", *TensorSlice::Parse("1,2:1,2")));
  EXPECT_EQ(middle.shape().DebugString(), "[2,2]");
  EXPECT_EQ(middle.SummarizeValue(20), "4 5 7 8") << "rows 1-2, columns 1-2, across the shards";
  Tensor into(DT_FLOAT, full);
  ASSERT_OK(r->ReadInto("m", &into));
  EXPECT_EQ(into.SummarizeValue(20), whole.SummarizeValue(20));

  // Strings, and a part of a tensor that was saved whole.
  ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/s/str"));
  ASSERT_OK(w->AddSlice("s", TensorShape({3}), *TensorSlice::Parse("1,2"),
                        Tensor::Vector<std::string>({"b", "c"})));
  ASSERT_OK(w->AddSlice("s", TensorShape({3}), *TensorSlice::Parse("0,1"),
                        Tensor::Vector<std::string>({"a"})));
  ASSERT_OK(w->Add("whole", Tensor::Vector<int64_t>({5, 6, 7})));
  EXPECT_THAT(w->AddSlice("whole", TensorShape({3}), *TensorSlice::Parse("0,1"),
                          Tensor::Vector<int64_t>({5})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("follows the whole tensor")));
  ASSERT_OK(w->Finish());
  ASSERT_OK_AND_ASSIGN(r, BundleReader::Open(&env, "/s/str"));
  ASSERT_OK_AND_ASSIGN(Tensor strings, r->Lookup("s"));
  EXPECT_EQ(strings.SummarizeValue(10), "\"a\" \"b\" \"c\"");
  ASSERT_OK_AND_ASSIGN(Tensor tail, r->LookupSlice("whole", *TensorSlice::Parse("1,2")));
  EXPECT_EQ(tail.SummarizeValue(10), "6 7");
}

class BundleCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env_, "/c/m"));
    std::mt19937 rng(5);
    saved_["weights"] = RandomTensor(DT_FLOAT, TensorShape({3, 4}), &rng);
    saved_["names"] = Tensor::Vector<std::string>({"ab", "", "cdef"});
    saved_["step"] = Tensor::Scalar<int64_t>(42);
    saved_["empty"] = Tensor(DT_DOUBLE, TensorShape({0, 2}));
    for (const auto& [k, t] : saved_) ASSERT_OK(w->Add(k, t));
    ASSERT_OK(w->Finish());
    ASSERT_OK_AND_ASSIGN(index_, ReadFileToString(&env_, MetaFilename("/c/m")));
    ASSERT_OK_AND_ASSIGN(data_, ReadFileToString(&env_, DataFilename("/c/m", 0, 1)));
  }

  // Opens and reads everything; returns how many tensors came back correct.
  // A wrong value without an error fails the test.
  int ReadAll() {
    auto r = BundleReader::Open(&env_, "/c/m");
    if (!r.ok()) {
      EXPECT_THAT(r.status().code(), AnyOf(absl::StatusCode::kDataLoss, absl::StatusCode::kNotFound,
                                           absl::StatusCode::kUnimplemented))
          << r.status();
      return 0;
    }
    int good = 0;
    for (const auto& [k, want] : saved_) {
      auto t = (*r)->Lookup(k);
      if (!t.ok()) continue;
      EXPECT_TRUE(SameTensor(*t, want)) << "wrong data for " << k << " without an error";
      ++good;
    }
    return good;
  }

  MemEnv env_;
  std::map<std::string, Tensor> saved_;
  std::string index_, data_;
};

TEST_F(BundleCorruptionTest, EveryFlippedByteIsCaughtOrHarmless) {
  ASSERT_EQ(ReadAll(), 4);
  for (const auto& [path, original] : {std::make_pair(MetaFilename("/c/m"), index_),
                                       std::make_pair(DataFilename("/c/m", 0, 1), data_)}) {
    for (size_t i = 0; i < original.size(); ++i) {
      std::string bad = original;
      bad[i] ^= 0x5a;
      ASSERT_OK(WriteStringToFile(&env_, path, bad));
      SCOPED_TRACE(testing::Message() << path << " byte " << i);
      ReadAll();
    }
    ASSERT_OK(WriteStringToFile(&env_, path, original));
  }
}

TEST_F(BundleCorruptionTest, EveryTruncationIsCaught) {
  for (const auto& [path, original] : {std::make_pair(MetaFilename("/c/m"), index_),
                                       std::make_pair(DataFilename("/c/m", 0, 1), data_)}) {
    for (size_t len = 0; len < original.size(); ++len) {
      ASSERT_OK(WriteStringToFile(&env_, path, original.substr(0, len)));
      SCOPED_TRACE(testing::Message() << path << " truncated to " << len);
      EXPECT_LT(ReadAll(), 4);
    }
    ASSERT_OK(WriteStringToFile(&env_, path, original));
  }
  EXPECT_EQ(ReadAll(), 4);
}

TEST_F(BundleCorruptionTest, RandomMutationsOfTheIndexNeverCrash) {
  // Random values (not only flips), half of them in the footer's varints,
  // which no checksum covers. (A handle claiming 2^40 bytes, which ended in
  // bad_alloc, is pinned by the next test.)
  std::mt19937 rng(17);
  const std::string path = MetaFilename("/c/m");
  for (int round = 0; round < 3000; ++round) {
    std::string bad = index_;
    const int mutations = 1 + rng() % 3;
    for (int m = 0; m < mutations; ++m) {
      // Half of them in the footer, the only bytes no checksum covers.
      const size_t at = rng() % 2 ? rng() % bad.size() : bad.size() - 48 + rng() % 40;
      bad[at] = static_cast<char>(rng());
    }
    ASSERT_OK(WriteStringToFile(&env_, path, bad));
    SCOPED_TRACE(testing::Message() << "round " << round);
    ReadAll();
  }
}

// Replaces the table's index block (and footer) in `index` with one entry
// pointing at a data block [offset, +size).
std::string WithDataBlockHandle(const std::string& index, uint64_t offset, uint64_t size) {
  absl::string_view footer = absl::string_view(index).substr(index.size() - 48);
  uint64_t meta_offset, meta_size, index_offset, index_size;
  EXPECT_TRUE(GetVarint64(&footer, &meta_offset) && GetVarint64(&footer, &meta_size) &&
              GetVarint64(&footer, &index_offset) && GetVarint64(&footer, &index_size));
  std::string block;
  PutVarint32(&block, 0);  // shared key bytes
  PutVarint32(&block, 1);  // non-shared key bytes
  std::string handle;
  PutVarint64(&handle, offset);
  PutVarint64(&handle, size);
  PutVarint32(&block, handle.size());
  block += "~" + handle;
  PutFixed32(&block, 0);  // restart offsets
  PutFixed32(&block, 1);  // restart count
  block.push_back(0);     // no compression
  PutFixed32(&block, crc32c::Mask(crc32c::Value(block.data(), block.size())));
  std::string out = index.substr(0, index_offset) + block;
  std::string new_footer;
  PutVarint64(&new_footer, meta_offset);
  PutVarint64(&new_footer, meta_size);
  PutVarint64(&new_footer, index_offset);
  PutVarint64(&new_footer, block.size() - 5);
  new_footer.resize(40, '\0');
  return out + new_footer + index.substr(index.size() - 8);
}

TEST_F(BundleCorruptionTest, BlockHandlesAreCheckedAgainstTheFileBeforeAllocating) {
  const std::string path = MetaFilename("/c/m");
  // The footer's index block handle claims 2^40 bytes.
  std::string bad = index_;
  std::string footer;
  PutVarint64(&footer, 0);
  PutVarint64(&footer, 1);
  PutVarint64(&footer, 0);
  PutVarint64(&footer, uint64_t{1} << 40);
  footer.resize(40, '\0');
  bad.replace(bad.size() - 48, 40, footer);
  ASSERT_OK(WriteStringToFile(&env_, path, bad));
  EXPECT_THAT(BundleReader::Open(&env_, "/c/m"),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr(path), HasSubstr("the footer's index block"),
                             HasSubstr("reaches past"))));
  // The index block is intact (checksum and all) but names a 2^40-byte data block.
  ASSERT_OK(WriteStringToFile(&env_, path, WithDataBlockHandle(index_, 0, uint64_t{1} << 40)));
  EXPECT_THAT(
      BundleReader::Open(&env_, "/c/m"),
      StatusIs(absl::StatusCode::kDataLoss, AllOf(HasSubstr(path), HasSubstr("a data block"))));
  // Shorter than a footer.
  ASSERT_OK(WriteStringToFile(&env_, path, index_.substr(0, 20)));
  EXPECT_THAT(BundleReader::Open(&env_, "/c/m"),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("shorter than a table footer")));
}

// Counts what tensors ask for.
class CountingAllocator : public Allocator {
 public:
  std::string Name() const override { return "counting"; }
  void* Allocate(size_t bytes) override {
    allocated += bytes;
    return MallocAllocator()->Allocate(bytes);
  }
  void Deallocate(void* p, size_t bytes) override { MallocAllocator()->Deallocate(p, bytes); }
  std::atomic<size_t> allocated{0};
};

TEST(BundleTest, CorruptStringTensorIsRejectedBeforeItsStringsAreAllocated) {
  // A million empty strings: 1 MB on disk, 32 MB as std::strings.
  MemEnv env;
  const int64_t n = 1 << 20;
  {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, "/s/m"));
    ASSERT_OK(w->Add("names", Tensor(DT_STRING, TensorShape({n}))));
    ASSERT_OK(w->Finish());
  }
  const std::string data_path = DataFilename("/s/m", 0, 1);
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(&env, data_path));
  data[data.size() - 1] ^= 1;  // the lengths' checksum
  ASSERT_OK(WriteStringToFile(&env, data_path, data));
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, "/s/m"));
  CountingAllocator counting;
  EXPECT_THAT(r->Lookup("names", &counting),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("names"), HasSubstr("length checksum"))));
  EXPECT_EQ(counting.allocated.load(), 0u);
  data[data.size() - 1] ^= 1;
  ASSERT_OK(WriteStringToFile(&env, data_path, data));
  ASSERT_OK_AND_ASSIGN(r, BundleReader::Open(&env, "/s/m"));
  ASSERT_OK_AND_ASSIGN(Tensor t, r->Lookup("names", &counting));
  EXPECT_EQ(t.NumElements(), n);
  EXPECT_EQ(counting.allocated.load(), n * sizeof(std::string));
}

// Eight writers save one prefix at once, again and again: what is left must
// always be one writer's checkpoint whole (every crc checks, every tensor
// carries the same writer's mark), never one's index over another's data.
void ConcurrentWritersOfOnePrefix(Env* env, const std::string& dir) {
  const std::string prefix = dir + "/model";
  for (int round = 0; round < 25; ++round) {
    std::vector<std::thread> writers;
    for (int t = 0; t < 8; ++t) {
      writers.emplace_back([&, t] {
        auto w = BundleWriter::Create(env, prefix);
        if (!w.ok()) return;
        for (const char* key : {"a", "b", "c"}) {
          Tensor v(DT_INT32, TensorShape({4096}));
          v.flat<int32_t>().setConstant(t);
          if (!(*w)->Add(key, v).ok()) return;
        }
        EXPECT_OK((*w)->Finish());
      });
    }
    for (auto& w : writers) w.join();
    ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(env, prefix));
    std::set<int32_t> marks;
    for (const char* key : {"a", "b", "c"}) {
      ASSERT_OK_AND_ASSIGN(Tensor v, r->Lookup(key));
      for (int64_t i = 0; i < v.NumElements(); ++i) marks.insert(v.data<int32_t>()[i]);
    }
    ASSERT_EQ(marks.size(), 1u) << "round " << round;
  }
  // Every writer cleaned up after itself.
  ASSERT_OK_AND_ASSIGN(auto files, env->GetChildren(dir));
  EXPECT_THAT(files, ::testing::UnorderedElementsAre("model.index", "model.data-00000-of-00001"));
}

TEST(BundleTest, ConcurrentWritersOfOnePrefixInMemory) {
  MemEnv env;
  ASSERT_OK(env.CreateDir("/ckpt"));
  ConcurrentWritersOfOnePrefix(&env, "/ckpt");
}

TEST(BundleTest, ConcurrentWritersOfOnePrefixOnDisk) {
  const std::string dir = TestTempPath("concurrent_writers");
  ASSERT_OK(Env::Default()->CreateDir(dir));
  ConcurrentWritersOfOnePrefix(Env::Default(), dir);
}

// With an alignment every tensor's bytes start at a multiple of it, zeros
// between them, and read back; by default they lie back to back. Tensors
// below and above the staging buffer's 1 MiB, strings among them.
TEST(BundleTest, AlignmentPlacesEveryTensorAtItsMultiple) {
  MemEnv env;
  std::mt19937 rng(64);
  std::vector<std::pair<std::string, Tensor>> saved;
  for (int i = 0; i < 6; ++i) {
    const int64_t rows = i == 4 ? 100000 : i * 3 + 1;  // t4: 1.2 MB
    saved.emplace_back(absl::StrCat("t", i), RandomTensor(i == 2 ? DT_INT8 : DT_FLOAT,
                                                          TensorShape({rows, 3}), &rng));
  }
  saved.emplace_back("u_strings", Tensor::Vector<std::string>({"a", "bcd"}));
  for (size_t alignment : {size_t{1}, size_t{64}, size_t{4096}}) {
    const std::string prefix = absl::StrCat("/a/m", alignment);
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&env, prefix, {.alignment = alignment}));
    for (const auto& [key, t] : saved) ASSERT_OK(w->Add(key, t));
    ASSERT_OK(w->Finish());
    ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(&env, prefix));
    int64_t end = 0;
    for (const auto& [key, t] : saved) {
      ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, r->GetEntry(key));
      EXPECT_EQ(e->offset() % static_cast<int64_t>(alignment), 0) << key << " " << alignment;
      EXPECT_LT(e->offset() - end, static_cast<int64_t>(alignment)) << key << " " << alignment;
      if (alignment == 1) EXPECT_EQ(e->offset(), end) << key;
      end = e->offset() + e->size();
      ASSERT_OK_AND_ASSIGN(Tensor back, r->Lookup(key));
      if (t.dtype() == DT_STRING) {
        EXPECT_EQ(back.data<std::string>()[1], "bcd");
      } else {
        EXPECT_EQ(back.tensor_data(), t.tensor_data()) << key << " " << alignment;
      }
    }
    EXPECT_THAT(env.GetFileSize(DataFilename(prefix, 0, 1)), IsOkAndHolds(end));
  }
  EXPECT_THAT(BundleWriter::Create(&env, "/a/bad", {.alignment = 48}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a power of two")));
  EXPECT_THAT(BundleWriter::Create(&env, "/a/bad", {.alignment = 0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// On disk the data file is mapped: tensors read through the mapping equal
// what was written (a run of small ones too), a flipped byte fails its crc,
// a data file deleted after Open still reads, and one truncated in place
// after Open still reads (the mapping's lease) or, unguarded, fails the
// read with DataLoss instead of killing the process.
TEST(BundleTest, MappedDataFileReadsSurvivesDeletionAndReportsTruncation) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  Env* env = Env::Default();
  const std::string dir = TestTempPath("mapped");
  ASSERT_OK(DeleteRecursively(env, dir));
  ASSERT_OK(env->CreateDir(dir));
  const std::string prefix = dir + "/m";
  std::mt19937 rng(40);
  std::vector<Tensor> saved;
  auto write = [&] {
    saved.clear();
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(env, prefix));
    for (int i = 0; i < 4; ++i) {
      saved.push_back(RandomTensor(DT_FLOAT, TensorShape({i == 3 ? 300000 : i + 1, 3}), &rng));
      ASSERT_OK(w->Add(absl::StrCat("t", i), saved.back()));
    }
    ASSERT_OK(w->Finish());
  };
  const std::string data = DataFilename(prefix, 0, 1);
  write();
  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(env, prefix));
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK_AND_ASSIGN(Tensor t, r->Lookup(absl::StrCat("t", i)));
    EXPECT_EQ(t.tensor_data(), saved[i].tensor_data()) << i;
  }
  std::vector<Tensor> run = {Tensor(DT_FLOAT, TensorShape({1, 3})),
                             Tensor(DT_FLOAT, TensorShape({2, 3}))};
  std::vector<absl::Status> status(2);
  r->ReadRunInto({"t0", "t1"}, {&run[0], &run[1]}, absl::MakeSpan(status));
  EXPECT_OK(status[0]);
  EXPECT_OK(status[1]);
  EXPECT_EQ(run[1].tensor_data(), saved[1].tensor_data());

  // Deleted (as retention deletes): the open reader still reads it.
  ASSERT_OK(env->DeleteFile(data));
  ASSERT_OK_AND_ASSIGN(Tensor big, r->Lookup("t3"));
  EXPECT_EQ(big.tensor_data(), saved[3].tensor_data());
  r.reset();

  // A byte of t3 flipped on disk: its crc fails.
  write();
  ASSERT_OK_AND_ASSIGN(r, BundleReader::Open(env, prefix));
  ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e3, r->GetEntry("t3"));
  const int64_t t3_offset = e3->offset();
  r.reset();
  {
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(env, data));
    bytes[t3_offset + 1000] ^= 1;
    ASSERT_OK(WriteStringToFile(env, data, bytes));
    ASSERT_OK_AND_ASSIGN(auto corrupt, BundleReader::Open(env, prefix));
    EXPECT_THAT(corrupt->Lookup("t3").status(),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("Checksum does not match")));
  }

  // Truncated in place in the middle of t3 after Open: the mapping's lease
  // had its pages copied first, so every tensor still reads.
  write();
  ASSERT_OK_AND_ASSIGN(r, BundleReader::Open(env, prefix));
  ASSERT_EQ(truncate(data.c_str(), t3_offset + 8192), 0);
  ASSERT_OK_AND_ASSIGN(big, r->Lookup("t3"));
  EXPECT_EQ(big.tensor_data(), saved[3].tensor_data());

  // The same where no lease could be had (the file was open for writing
  // when the reader mapped it): the small tensors before the cut read, t3
  // is DataLoss naming it and the file.
  write();
  const int writer = open(data.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  ASSERT_OK_AND_ASSIGN(r, BundleReader::Open(env, prefix));
  close(writer);
  ASSERT_EQ(truncate(data.c_str(), t3_offset + 8192), 0);
  ASSERT_OK_AND_ASSIGN(Tensor t0, r->Lookup("t0"));
  EXPECT_EQ(t0.tensor_data(), saved[0].tensor_data());
  EXPECT_THAT(r->Lookup("t3").status(),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("tensor \"t3\" is truncated in"), HasSubstr(data),
                             HasSubstr("shrank"))));
}

// The kB of `field` ("Rss", "Anonymous") of this process's mapping of
// `path`, from /proc/self/smaps; -1 when nothing maps it.
int64_t MappedKb(const std::string& path, const std::string& field) {
  char real[PATH_MAX];
  if (realpath(path.c_str(), real) == nullptr) return -1;
  // Read as a stream: /proc files have no size for Env to read by.
  std::ifstream in_file("/proc/self/smaps");
  const std::string smaps((std::istreambuf_iterator<char>(in_file)),
                          std::istreambuf_iterator<char>());
  bool in = false;
  for (absl::string_view line : absl::StrSplit(smaps, '\n')) {
    if (!line.empty() && absl::ascii_isxdigit(line[0]) && line.find('-') != line.npos &&
        line.find(' ') < line.find(':')) {
      in = absl::EndsWith(line, real);
      continue;
    }
    if (in && absl::StartsWith(line, field + ":")) {
      int64_t kb = -1;
      absl::SimpleAtoi(absl::StripAsciiWhitespace(
                           absl::StripSuffix(line.substr(field.size() + 1), "kB")),
                       &kb);
      return kb;
    }
  }
  return -1;
}

// An aligned checkpoint's number tensors are read in place: each key once
// per reader, the crc checked; the tensor outlives its reader, the file's
// deletion and its truncation, and writes to it never reach the file.
// Bools, strings, unaligned checkpoints and in-memory files are copied.
TEST(BundleTest, AlignedTensorsAreReadInPlace) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  Env* env = Env::Default();
  const std::string dir = TestTempPath("in_place");
  ASSERT_OK(DeleteRecursively(env, dir));
  ASSERT_OK(env->CreateDir(dir));
  std::mt19937 rng(41);
  const Tensor w = RandomTensor(DT_FLOAT, TensorShape({1000, 17}), &rng);
  const Tensor b = RandomTensor(DT_INT64, TensorShape({3}), &rng);
  const Tensor flags = RandomTensor(DT_BOOL, TensorShape({5}), &rng);
  auto write = [&](const std::string& prefix, size_t alignment) {
    ASSERT_OK_AND_ASSIGN(auto writer, BundleWriter::Create(env, prefix, {.alignment = alignment}));
    ASSERT_OK(writer->Add("b", b));
    ASSERT_OK(writer->Add("flags", flags));
    ASSERT_OK(writer->Add("s", Tensor::Vector<std::string>({"x"})));
    ASSERT_OK(writer->Add("w", w));
    ASSERT_OK(writer->Finish());
  };
  const std::string aligned = dir + "/aligned", packed = dir + "/packed";
  write(aligned, 64);
  write(packed, 1);

  ASSERT_OK_AND_ASSIGN(auto r, BundleReader::Open(env, aligned));
  r->ReadAhead({"w", "missing", "b"});  // a hint: unknown keys are skipped
  EXPECT_FALSE(r->ClaimInPlace("flags"));
  EXPECT_FALSE(r->ClaimInPlace("s"));
  EXPECT_FALSE(r->ClaimInPlace("missing"));
  EXPECT_THAT(r->ReadInPlace("w").status(), StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_TRUE(r->ClaimInPlace("w"));
  EXPECT_FALSE(r->ClaimInPlace("w")) << "claimed twice";
  ASSERT_TRUE(r->ClaimInPlace("b"));
  ASSERT_OK_AND_ASSIGN(Tensor in_place, r->ReadInPlace("w"));
  ASSERT_OK_AND_ASSIGN(Tensor b_in_place, r->ReadInPlace("b"));
  EXPECT_EQ(in_place.tensor_data(), w.tensor_data());
  EXPECT_EQ(b_in_place.tensor_data(), b.tensor_data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(in_place.raw_data()) % kTensorAlignment, 0u);
  r.reset();  // the tensors keep the mapping
  const std::string data = DataFilename(aligned, 0, 1);
  // The page cache's pages, shared with every process mapping the file: no
  // private copy until a write, which copies one page.
  EXPECT_GT(MappedKb(data, "Rss"), 0);
  EXPECT_EQ(MappedKb(data, "Anonymous"), 0);
  in_place.flat<float>()(0) = 12345.0f;
  EXPECT_EQ(MappedKb(data, "Anonymous"), 4);
  {
    ASSERT_OK_AND_ASSIGN(auto again, BundleReader::Open(env, aligned));
    ASSERT_OK_AND_ASSIGN(Tensor copy, again->Lookup("w"));
    EXPECT_EQ(copy.tensor_data(), w.tensor_data()) << "a write reached the file";
  }
  ASSERT_EQ(truncate(data.c_str(), 0), 0);
  ASSERT_OK(env->DeleteFile(data));
  EXPECT_EQ(in_place.flat<float>()(0), 12345.0f);
  EXPECT_EQ(in_place.tensor_data().substr(4), w.tensor_data().substr(4));

  ASSERT_OK_AND_ASSIGN(auto p, BundleReader::Open(env, packed));
  EXPECT_FALSE(p->ClaimInPlace("w")) << "w starts at an odd offset";

  // A flipped byte of w on disk: read in place, its crc fails, naming it.
  write(aligned, 64);
  {
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(env, aligned));
    ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry("w"));
    const int64_t at = e->offset() + 100;
    reader.reset();
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(env, data));
    bytes[at] ^= 1;
    ASSERT_OK(WriteStringToFile(env, data, bytes));
  }
  ASSERT_OK_AND_ASSIGN(auto corrupt, BundleReader::Open(env, aligned));
  ASSERT_TRUE(corrupt->ClaimInPlace("w"));
  EXPECT_THAT(corrupt->ReadInPlace("w").status(),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("Checksum does not match for tensor \"w\""),
                             HasSubstr(data))));
  MemEnv mem;
  ASSERT_OK_AND_ASSIGN(auto writer, BundleWriter::Create(&mem, "/m", {.alignment = 64}));
  ASSERT_OK(writer->Add("w", w));
  ASSERT_OK(writer->Finish());
  ASSERT_OK_AND_ASSIGN(auto m, BundleReader::Open(&mem, "/m"));
  EXPECT_FALSE(m->ClaimInPlace("w")) << "in-memory files are not mapped";
}

TEST(BundleTest, LockFileExcludesOtherHoldersAndNamesMissingPaths) {
  MemEnv env;
  ASSERT_OK(env.CreateDir("/d"));
  EXPECT_THAT(env.LockFile("/missing"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Env::Default()->LockFile("/no/such/dir"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto held, env.LockFile("/d"));
  std::atomic<bool> acquired{false};
  std::thread other([&] {
    auto lock = env.LockFile("/d");
    acquired = lock.ok();
  });
  // The other thread can only get the lock once it is released; whether it
  // is already waiting or not yet started, it holds nothing before.
  EXPECT_FALSE(acquired.load());
  held.reset();
  other.join();
  EXPECT_TRUE(acquired.load());
}

}  // namespace
}  // namespace minigraph
