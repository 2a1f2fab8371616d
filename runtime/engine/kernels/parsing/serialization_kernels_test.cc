// What the op interop test cannot show of the serialized-input kernels:
// their bounds. (Their results are checked against TensorFlow there.)
#include <string>

#include "core/allocator.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "zlib.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

std::string Compress(const std::string& data) {
  uLongf n = compressBound(data.size());
  std::string z(n, '\0');
  EXPECT_EQ(compress(reinterpret_cast<Bytef*>(z.data()), &n,
                     reinterpret_cast<const Bytef*>(data.data()), data.size()),
            Z_OK);
  z.resize(n);
  return z;
}

TEST(DecodeCompressedTest, AnInflationBombIsResourceExhausted) {
  // 8 MiB of zeros compress to about 8 KiB; the bound is 1 MiB.
  const std::string bomb = Compress(std::string(8 << 20, '\0'));
  const size_t old_max = MaxTensorBytes();
  SetMaxTensorBytes(size_t{1} << 20);
  Tensor in(DT_STRING, TensorShape({2}));
  in.data<std::string>()[0] = Compress("fine");
  in.data<std::string>()[1] = bomb;
  auto out = RunKernel("DecodeCompressed", {{in}},
                       {{"compression_type", MakeAttrValue(std::string("ZLIB"))}});
  SetMaxTensorBytes(old_max);
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kResourceExhausted,
                            HasSubstr("element 1: DecodeCompressed: the ZLIB stream inflates to "
                                      "more than 1048576 bytes")));
}

TEST(DecodeCompressedTest, WithinTheBoundItInflates) {
  Tensor in(DT_STRING, TensorShape({}));
  *in.data<std::string>() = Compress(std::string(100000, 'x'));
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunKernel("DecodeCompressed", {{in}},
                                 {{"compression_type", MakeAttrValue(std::string("ZLIB"))}}));
  EXPECT_EQ(*out[0].data<std::string>(), std::string(100000, 'x'));
}

}  // namespace
}  // namespace minigraph
