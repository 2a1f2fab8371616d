// Reads checkpoints written by real TensorFlow and checks every entry against
// ../shared/testdata/tf_checkpoints/EXPECTED_LISTING.txt; rewrites one and
// compares bytes.
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "core/coding.h"
#include "core/env.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

struct ExpectedEntry {
  std::string key, dtype, shape;
  int shard = 0;
  int64_t offset = 0, size = 0;
  uint32_t crc = 0;
  std::string value;  // "value=..." scalar, or decoded "str0=" prefix
  bool has_value = false, has_str = false;
};

// Decodes the body of a Python bytes literal (b'...'), up to a trailing "...".
std::string DecodePyBytes(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    const char c = s[++i];
    switch (c) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'x': {
        int v;
        absl::SimpleHexAtoi(s.substr(i + 1, 2), &v);
        out.push_back(static_cast<char>(v));
        i += 2;
        break;
      }
      default: out.push_back(c);
    }
  }
  return out;
}

std::map<std::string, std::vector<ExpectedEntry>> ParseListing(const std::string& text) {
  std::map<std::string, std::vector<ExpectedEntry>> out;
  std::string prefix;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "PREFIX ")) {
      prefix = std::string(line);
      continue;
    }
    if (line.find(" crc=") == absl::string_view::npos || prefix.empty()) continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    ExpectedEntry e;
    e.key = std::string(f[0]);
    e.dtype = std::string(f[1]);
    e.shape = std::string(f[2]);
    for (size_t i = 3; i < f.size(); ++i) {
      absl::string_view v = f[i];
      if (absl::ConsumePrefix(&v, "shard=")) (void)absl::SimpleAtoi(v, &e.shard);
      if (absl::ConsumePrefix(&v, "off=")) (void)absl::SimpleAtoi(v, &e.offset);
      if (absl::ConsumePrefix(&v, "size=")) (void)absl::SimpleAtoi(v, &e.size);
      if (absl::ConsumePrefix(&v, "crc=")) (void)absl::SimpleHexAtoi(v, &e.crc);
      if (absl::ConsumePrefix(&v, "value=")) {
        e.value = std::string(v);
        e.has_value = true;
      }
    }
    const size_t str0 = line.find("str0=b'");
    if (str0 != absl::string_view::npos) {
      absl::string_view body = line.substr(str0 + 7);
      absl::ConsumeSuffix(&body, "...'");
      absl::ConsumeSuffix(&body, "'");
      e.value = DecodePyBytes(body);
      e.has_str = true;
    }
    out[prefix].push_back(std::move(e));
  }
  return out;
}

TEST(TfCheckpointsTest, EveryEntryMatchesTheExpectedListing) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string root = JoinPath(dir, "tf_checkpoints");
  ASSERT_OK_AND_ASSIGN(std::string listing,
                       ReadFileToString(Env::Default(), JoinPath(root, "EXPECTED_LISTING.txt")));
  auto expected = ParseListing(listing);
  ASSERT_EQ(expected.size(), 6u);
  int checked = 0;
  for (const auto& [prefix, entries] : expected) {
    SCOPED_TRACE(prefix);
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), JoinPath(root, prefix)));
    ASSERT_EQ(reader->keys().size(), entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      const ExpectedEntry& want = entries[i];
      SCOPED_TRACE(want.key);
      ASSERT_EQ(reader->keys()[i], want.key);
      ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry(want.key));
      ASSERT_OK_AND_ASSIGN(TensorShape shape, reader->GetShape(want.key));
      EXPECT_EQ(DataTypeName(e->dtype()), want.dtype);
      EXPECT_EQ(shape.DebugString(), want.shape);
      EXPECT_EQ(e->shard_id(), want.shard);
      EXPECT_EQ(e->offset(), want.offset);
      EXPECT_EQ(e->size(), want.size);
      EXPECT_EQ(e->crc32c(), want.crc);
      ASSERT_OK_AND_ASSIGN(Tensor t, reader->Lookup(want.key));  // verifies the crc
      if (want.has_value) EXPECT_EQ(t.SummarizeValue(1), want.value);
      if (want.has_str) {
        const std::string& s = t.data<std::string>()[0];
        EXPECT_EQ(s.substr(0, want.value.size()), want.value);
        EXPECT_EQ(VarintLength(s.size()) + 4 + s.size(), static_cast<size_t>(want.size));
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 206);
}

TEST(TfCheckpointsTest, RewritingTdCheckersIsByteIdentical) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string ckpts =
      JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints");
  for (const char* name : {"checkpoint-779049", "checkpoint-100815", "checkpoint-14882021"}) {
    SCOPED_TRACE(name);
    const std::string prefix = JoinPath(ckpts, name);
    ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), prefix));
    MemEnv mem;
    ASSERT_OK_AND_ASSIGN(auto writer, BundleWriter::Create(&mem, "/out/ckpt"));
    for (const std::string& key : reader->keys()) {  // TF1 Saver: data in key order
      ASSERT_OK_AND_ASSIGN(Tensor t, reader->Lookup(key));
      ASSERT_OK(writer->Add(key, t));
    }
    ASSERT_OK(writer->Finish());
    for (auto [ours, theirs] : {std::make_pair(MetaFilename("/out/ckpt"), MetaFilename(prefix)),
                                std::make_pair(DataFilename("/out/ckpt", 0, 1),
                                               DataFilename(prefix, 0, 1))}) {
      ASSERT_OK_AND_ASSIGN(std::string a, ReadFileToString(&mem, ours));
      ASSERT_OK_AND_ASSIGN(std::string b, ReadFileToString(Env::Default(), theirs));
      EXPECT_EQ(a.size(), b.size()) << theirs;
      EXPECT_TRUE(a == b) << theirs << " differs";
    }
  }
}

TEST(TfCheckpointsTest, TwoShardKerasCheckpointReadsBothShards) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  ASSERT_OK_AND_ASSIGN(
      auto reader,
      BundleReader::Open(
          Env::Default(),
          JoinPath(dir, "tf_checkpoints/dpbigler__mnist_GAN/training_checkpoints/ckpt-3149")));
  EXPECT_EQ(reader->num_shards(), 2);
  ASSERT_OK_AND_ASSIGN(Tensor counter, reader->Lookup("save_counter/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_EQ(*counter.data<int64_t>(), 3149);
}

}  // namespace
}  // namespace minigraph
