#include "core/crc32c.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/internal/crc32c_copy.h"
#include "gtest/gtest.h"
#include "isa-l/crc.h"

namespace minigraph {
namespace crc32c {
namespace {

// Bit-at-a-time CRC-32C straight from the definition (reflected polynomial
// 0x82F63B78, init and final xor 0xFFFFFFFF): the independent reference.
uint32_t ReferenceExtend(uint32_t crc, const char* data, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= static_cast<unsigned char>(data[i]);
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return ~crc;
}

TEST(Crc32cTest, PublishedVectors) {
  EXPECT_EQ(Value("123456789", 9), 0xe3069283u);
  char buf[32];
  std::memset(buf, 0, sizeof(buf));
  EXPECT_EQ(Value(buf, sizeof(buf)), 0x8a9136aau);
  std::memset(buf, 0xff, sizeof(buf));
  EXPECT_EQ(Value(buf, sizeof(buf)), 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Value(buf, sizeof(buf)), 0x46dd794eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Value(buf, sizeof(buf)), 0x113fdb5cu);
  EXPECT_EQ(Value("", 0), 0u);
}

TEST(Crc32cTest, MatchesBitwiseReferenceAtEveryLengthAndAlignment) {
  std::mt19937 rng(301);
  std::vector<char> buf(4096 + 64);
  for (char& c : buf) c = static_cast<char>(rng());
  for (size_t len = 0; len <= 4096; ++len) {
    const size_t align = len % 64;  // every alignment, cycled over lengths
    ASSERT_EQ(Value(buf.data() + align, len),
              ReferenceExtend(0, buf.data() + align, len))
        << "len=" << len << " align=" << align;
  }
  for (size_t align = 0; align < 64; ++align) {
    for (size_t len : {0, 1, 7, 8, 15, 16, 63, 64, 255, 1000, 4096}) {
      ASSERT_EQ(Value(buf.data() + align, len),
                ReferenceExtend(0, buf.data() + align, len))
          << "len=" << len << " align=" << align;
    }
  }
}

TEST(Crc32cTest, ExtendOverSplitBuffersEqualsWhole) {
  std::mt19937 rng(7);
  std::vector<char> buf(4096);
  for (char& c : buf) c = static_cast<char>(rng());
  const uint32_t whole = Value(buf.data(), buf.size());
  for (size_t split = 0; split <= buf.size(); split += 37) {
    uint32_t crc = Value(buf.data(), split);
    crc = Extend(crc, buf.data() + split, buf.size() - split);
    ASSERT_EQ(crc, whole) << "split=" << split;
  }
  EXPECT_EQ(Extend(Value("hello ", 6), "world", 5), Value("hello world", 11));
}

TEST(Crc32cTest, MaskRoundTripsAndMatchesTensorFlowConstants) {
  EXPECT_EQ(Mask(0), 0xa282ead8u);
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
  // The empty string tensor's payload in a TF checkpoint is Mask(0); its
  // entry crc is Mask(Value(those 4 bytes)) = 0x640cc1f6 (format doc §7.2).
  const char payload[4] = {'\xd8', '\xea', '\x82', '\xa2'};
  EXPECT_EQ(Mask(Value(payload, 4)), 0x640cc1f6u);
}

// ISA-L's crc32_iscsi (the raw register, as the kernels take it).
uint32_t IsaL(uint32_t raw, const char* data, size_t n) {
  return crc32_iscsi(reinterpret_cast<unsigned char*>(const_cast<char*>(data)),
                     static_cast<int>(n), raw);
}

// Every copy kernel this CPU runs, on every length 0-4096 at random source
// and destination alignments, from random registers: the crc is ISA-L's,
// the destination holds the source's bytes, and nothing around it changed.
TEST(CopyAndExtendTest, EveryKernelMatchesIsaLAtEveryLengthAndRandomAlignments) {
  std::mt19937 rng(40);
  std::vector<char> src(4096 + 64), dst(4096 + 128);
  for (char& c : src) c = static_cast<char>(rng());
  for (const crc32c_internal::NamedCopyKernel& k : crc32c_internal::AvailableCopyKernels()) {
    SCOPED_TRACE(k.name);
    for (size_t len = 0; len <= 4096; ++len) {
      const size_t s = rng() % 64, d = 32 + rng() % 64;
      const uint32_t raw = static_cast<uint32_t>(rng());
      std::fill(dst.begin(), dst.end(), '\x5a');
      ASSERT_EQ(k.kernel(raw, dst.data() + d, src.data() + s, len),
                IsaL(raw, src.data() + s, len))
          << "len=" << len << " src+" << s << " dst+" << d;
      ASSERT_EQ(std::memcmp(dst.data() + d, src.data() + s, len), 0) << "len=" << len;
      ASSERT_TRUE(std::all_of(dst.begin(), dst.begin() + d, [](char c) { return c == 0x5a; }));
      ASSERT_TRUE(std::all_of(dst.begin() + d + len, dst.end(), [](char c) { return c == 0x5a; }))
          << "len=" << len;
    }
  }
}

// Lengths that reach every loop of every kernel: the three-stream rounds of
// 3 x 8 KiB and 3 x 256 bytes, the 256-, 64- and 16-byte folds, and tails.
TEST(CopyAndExtendTest, EveryKernelMatchesIsaLOnLongBuffers) {
  std::mt19937 rng(41);
  std::vector<char> src((1 << 20) + 300), dst(src.size());
  for (char& c : src) c = static_cast<char>(rng());
  for (const crc32c_internal::NamedCopyKernel& k : crc32c_internal::AvailableCopyKernels()) {
    SCOPED_TRACE(k.name);
    for (size_t len : {size_t{3 * 8192}, size_t{3 * 8192 + 3 * 256 + 77}, size_t{6 * 8192 - 1},
                       size_t{65536 + 255}, size_t{1 << 20}, src.size() - 3}) {
      const uint32_t raw = static_cast<uint32_t>(rng());
      ASSERT_EQ(k.kernel(raw, dst.data(), src.data() + 3, len), IsaL(raw, src.data() + 3, len))
          << "len=" << len;
      ASSERT_EQ(std::memcmp(dst.data(), src.data() + 3, len), 0) << "len=" << len;
    }
  }
}

TEST(CopyAndExtendTest, ExtendsAsExtendDoes) {
  std::vector<char> dst(11);
  const uint32_t hello = Value("hello ", 6);
  EXPECT_EQ(CopyAndExtend(hello, dst.data(), "world", 5), Value("hello world", 11));
  EXPECT_EQ(std::string(dst.data(), 5), "world");
  EXPECT_EQ(CopyAndExtend(0, dst.data(), "123456789", 9), 0xe3069283u);
  EXPECT_EQ(CopyAndExtend(7, dst.data(), "", 0), 7u);
}

}  // namespace
}  // namespace crc32c
}  // namespace minigraph
