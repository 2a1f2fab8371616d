// UnicodeDecodeWithOffsets with int32 row splits, which the TensorFlow
// differential test cannot run: TensorFlow writes the int64 offsets as
// Tsplits and aborts the process.
#include <cstdint>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST(UnicodeKernelsTest, DecodeWithOffsetsGivesInt64OffsetsBesideInt32Splits) {
  Tensor in(DT_STRING, TensorShape({2}));
  in.data<std::string>()[0] = "h\xc3\xa9";
  in.data<std::string>()[1] = "\xe2\x82\xac!";
  ASSERT_OK_AND_ASSIGN(std::vector<Tensor> out,
                       RunKernel("UnicodeDecodeWithOffsets", {{in}},
                                 {{"input_encoding", MakeAttrValue("UTF-8")},
                                  {"Tsplits", MakeAttrValue(DT_INT32)}}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(Values<int32_t>(out[0]), ElementsAre(0, 2, 4));
  EXPECT_THAT(Values<int32_t>(out[1]), ElementsAre(0x68, 0xE9, 0x20AC, 0x21));
  ASSERT_EQ(out[2].dtype(), DT_INT64);
  EXPECT_THAT(Values<int64_t>(out[2]), ElementsAre(0, 1, 0, 3));
}

}  // namespace
}  // namespace minigraph
