#include "core/coding.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace minigraph {
namespace {

TEST(CodingTest, FixedRoundTripIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  PutFixed64(&s, 0x0807060504030201ull);
  ASSERT_EQ(s.size(), 12u);
  EXPECT_EQ(s[0], 1);
  EXPECT_EQ(s[3], 4);
  EXPECT_EQ(s[4], 1);
  EXPECT_EQ(s[11], 8);
  absl::string_view in(s);
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(GetFixed32(&in, &a));
  ASSERT_TRUE(GetFixed64(&in, &b));
  EXPECT_EQ(a, 0x04030201u);
  EXPECT_EQ(b, 0x0807060504030201ull);
  EXPECT_TRUE(in.empty());
  EXPECT_FALSE(GetFixed32(&in, &a));
}

TEST(CodingTest, Varint64RoundTripAndLength) {
  std::vector<uint64_t> values = {0, 1, 127, 128, 300, (1ull << 32) - 1,
                                  1ull << 32, std::numeric_limits<uint64_t>::max()};
  for (int shift = 0; shift < 64; ++shift) {
    values.push_back(1ull << shift);
    values.push_back((1ull << shift) - 1);
  }
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  absl::string_view in(s);
  for (uint64_t v : values) {
    const size_t before = in.size();
    uint64_t got;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
    EXPECT_EQ(before - in.size(), static_cast<size_t>(VarintLength(v)));
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, Varint32RejectsOverflowAndTruncation) {
  std::string s;
  PutVarint64(&s, 1ull << 32);
  absl::string_view in(s);
  uint32_t v;
  EXPECT_FALSE(GetVarint32(&in, &v));
  std::string t;
  PutVarint32(&t, 300);
  t.pop_back();
  in = t;
  EXPECT_FALSE(GetVarint32(&in, &v));
}

TEST(CodingTest, Varint64RejectsElevenByteEncoding) {
  std::string s(10, '\xff');
  s.push_back('\x01');
  absl::string_view in(s);
  uint64_t v;
  EXPECT_FALSE(GetVarint64(&in, &v));
}

}  // namespace
}  // namespace minigraph
