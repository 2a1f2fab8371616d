// What the op interop test cannot show of the image kernels: their bounds
// on images that announce more pixels than they hold and on padded
// non-maximum suppression, round trips, and a projective transform's fill
// modes on one row worked by hand. (Their
// results are checked against TensorFlow's there.)
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "zlib.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Tensor Scalar(const std::string& s) {
  Tensor t(DT_STRING, TensorShape({}));
  *t.data<std::string>() = s;
  return t;
}

// An image [h, w, c] of a smooth pattern (no wrap-around for h + w < 80).
Tensor Picture(int64_t h, int64_t w, int64_t c) {
  Tensor t(DT_UINT8, TensorShape({h, w, c}));
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<uint8_t>()[i] = static_cast<uint8_t>((i / c) % w * 2 + (i / c / w) * 2 + i % c * 20);
  }
  return t;
}

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string PngChunk(const std::string& type, const std::string& data) {
  const std::string body = type + data;
  const uint32_t crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), body.size());
  return BigEndian32(data.size()) + body + BigEndian32(crc);
}

// A PNG's signature, IHDR and an empty IDAT: an image that announces its
// size and holds no pixels.
std::string PngHeader(uint32_t width, uint32_t height) {
  return "\x89PNG\r\n\x1a\n" +
         PngChunk("IHDR", BigEndian32(width) + BigEndian32(height) +
                              std::string("\x08\x02\x00\x00\x00", 5)) +
         PngChunk("IDAT", "");
}

// A GIF whose one frame announces width x height pixels and holds none.
std::string GifHeader(uint16_t width, uint16_t height) {
  std::string g = "GIF89a";
  for (uint16_t v : {width, height}) g += {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)};
  g += std::string("\x80\x00\x00", 3) + std::string(6, '\0');  // two-colour table
  g += ',' + std::string(4, '\0');
  for (uint16_t v : {width, height}) g += {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)};
  return g + std::string("\x00\x02\x02\x4c\x01\x00\x3b", 7);
}

class ImageKernelsTest : public ::testing::Test {
 protected:
  void TearDown() override { SetMaxTensorBytes(old_max_); }
  const size_t old_max_ = MaxTensorBytes();
};

TEST_F(ImageKernelsTest, PngRoundTripsExactly) {
  for (int channels : {1, 2, 3, 4}) {
    const Tensor image = Picture(9, 13, channels);
    ASSERT_OK_AND_ASSIGN(auto png, RunKernel("EncodePng", {{image}}));
    ASSERT_OK_AND_ASSIGN(auto back, RunKernel("DecodePng", {{png[0]}}));
    ExpectTensorEqual<uint8_t>(back[0], image);
  }
}

TEST_F(ImageKernelsTest, JpegRoundTripsClosely) {
  const Tensor image = Picture(32, 48, 3);
  ASSERT_OK_AND_ASSIGN(auto jpeg,
                       RunKernel("EncodeJpeg", {{image}}, {{"quality", MakeAttrValue(100)}}));
  ASSERT_OK_AND_ASSIGN(auto back, RunKernel("DecodeJpeg", {{jpeg[0]}}));
  ASSERT_EQ(back[0].shape(), image.shape());
  int worst = 0;
  for (int64_t i = 0; i < image.NumElements(); ++i) {
    worst = std::max(worst, std::abs(back[0].data<uint8_t>()[i] - image.data<uint8_t>()[i]));
  }
  EXPECT_LE(worst, 8);
  ASSERT_OK_AND_ASSIGN(auto shape, RunKernel("ExtractJpegShape", {{jpeg[0]}}));
  EXPECT_EQ(shape[0].data<int32_t>()[0], 32);
  EXPECT_EQ(shape[0].data<int32_t>()[1], 48);
  EXPECT_EQ(shape[0].data<int32_t>()[2], 3);
}

TEST_F(ImageKernelsTest, AnnouncedPngLargerThanTheTensorBoundIsResourceExhausted) {
  SetMaxTensorBytes(size_t{1} << 20);
  EXPECT_THAT(RunKernel("DecodePng", {{Scalar(PngHeader(2000, 2000))}}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  // Past TensorFlow's own bound (2^29 pixels) it is InvalidArgument, as there.
  EXPECT_THAT(RunKernel("DecodePng", {{Scalar(PngHeader(100000, 100000))}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("PNG size too large")));
}

TEST_F(ImageKernelsTest, AnnouncedGifFrameLargerThanTheTensorBoundIsResourceExhausted) {
  SetMaxTensorBytes(size_t{1} << 20);
  EXPECT_THAT(RunKernel("DecodeGif", {{Scalar(GifHeader(60000, 30000))}}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("the frames hold more than 1048576 pixels")));
}

TEST_F(ImageKernelsTest, PaddedNonMaxSuppressionIsBoundedBeforeItPads) {
  Tensor boxes(DT_FLOAT, TensorShape({1, 4}));
  Tensor scores(DT_FLOAT, TensorShape({1}));
  for (int i = 0; i < 4; ++i) boxes.data<float>()[i] = i < 2 ? 0.0f : 1.0f;
  scores.data<float>()[0] = 0.5f;
  const auto run = [&](int32_t max_out) {
    Tensor size(DT_INT32, TensorShape({}));
    *size.data<int32_t>() = max_out;
    Tensor iou(DT_FLOAT, TensorShape({})), score(DT_FLOAT, TensorShape({}));
    *iou.data<float>() = 0.5f;
    *score.data<float>() = 0.0f;
    return RunKernel("NonMaxSuppressionV4", {{boxes}, {scores}, {size}, {iou}, {score}},
                     {{"T", MakeAttrValue(DT_FLOAT)},
                      {"T_threshold", MakeAttrValue(DT_FLOAT)},
                      {"pad_to_max_output_size", MakeAttrValue(true)}});
  };
  ASSERT_OK_AND_ASSIGN(auto padded, run(3));
  ASSERT_EQ(padded[0].NumElements(), 3);
  EXPECT_EQ(*padded[1].data<int32_t>(), 1);
  SetMaxTensorBytes(size_t{1} << 20);
  EXPECT_THAT(run(1 << 30), StatusIs(absl::StatusCode::kResourceExhausted,
                                     HasSubstr("NonMaxSuppressionV4's padded outputs")));
}

TEST_F(ImageKernelsTest, AnnouncedJpegSizeIsBounded) {
  ASSERT_OK_AND_ASSIGN(auto jpeg, RunKernel("EncodeJpeg", {{Picture(16, 16, 3)}}));
  std::string bytes = *jpeg[0].data<std::string>();
  const size_t sof = bytes.find("\xff\xc0");
  ASSERT_NE(sof, std::string::npos);
  // SOF0: marker, length (2), precision (1), height (2), width (2).
  const auto announce = [&](uint16_t h, uint16_t w) {
    std::string b = bytes;
    b[sof + 5] = static_cast<char>(h >> 8);
    b[sof + 6] = static_cast<char>(h & 0xFF);
    b[sof + 7] = static_cast<char>(w >> 8);
    b[sof + 8] = static_cast<char>(w & 0xFF);
    return Scalar(b);
  };
  SetMaxTensorBytes(size_t{1} << 20);
  EXPECT_THAT(RunKernel("DecodeJpeg", {{announce(2000, 2000)}}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(RunKernel("DecodeJpeg", {{announce(60000, 60000)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2^29 samples")));
}

TEST_F(ImageKernelsTest, BadBytesAreInvalidArgumentNamingTheFormat) {
  ASSERT_OK_AND_ASSIGN(auto jpeg, RunKernel("EncodeJpeg", {{Picture(64, 64, 3)}}));
  const std::string& bytes = *jpeg[0].data<std::string>();
  EXPECT_THAT(RunKernel("DecodeJpeg", {{Scalar(bytes.substr(0, bytes.size() / 2))}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid JPEG data")));
  EXPECT_THAT(RunKernel("DecodePng", {{Scalar(PngHeader(4, 4))}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid PNG data")));
  EXPECT_THAT(RunKernel("DecodeImage", {{Scalar("not an image")}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Unknown image file format")));
  const std::string webp("RIFF\x10\x00\x00\x00WEBPVP8 12345678", 24);
  EXPECT_THAT(RunKernel("DecodeImage", {{Scalar(webp)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("WebP")));
}

// The random noise of ExtractGlimpse outside the image, which the
// TensorFlow differential test cannot compare: uniform between the image's
// minimum and maximum, Gaussian within each channel's range; the inside is
// the image's own pixels.
TEST(ExtractGlimpseTest, NoiseOutsideTheImageStaysInItsRange) {
  Tensor image(DT_FLOAT, TensorShape({1, 2, 2, 2}));
  const float pixels[] = {1, 10, 2, 20, 3, 30, 4, 40};  // channel 0: 1..4, 1: 10..40
  std::copy(std::begin(pixels), std::end(pixels), image.data<float>());
  Tensor size = Tensor::Vector<int32_t>({4, 4});
  Tensor offsets(DT_FLOAT, TensorShape({1, 2}));
  offsets.data<float>()[0] = offsets.data<float>()[1] = 0;  // the window centered
  for (const char* noise : {"uniform", "gaussian"}) {
    ASSERT_OK_AND_ASSIGN(
        auto out, RunKernel("ExtractGlimpseV2", {{image}, {size}, {offsets}},
                            {{"noise", MakeAttrValue(noise)},
                             {"uniform_noise", MakeAttrValue(std::string(noise) == "uniform")}}));
    const float* g = out[0].data<float>();
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        for (int d = 0; d < 2; ++d) {
          const float v = g[(r * 4 + c) * 2 + d];
          if (r >= 1 && r < 3 && c >= 1 && c < 3) {
            EXPECT_EQ(v, pixels[((r - 1) * 2 + c - 1) * 2 + d]) << noise;
          } else if (std::string(noise) == "uniform") {
            EXPECT_TRUE(v >= 1 && v <= 40) << v;
          } else {
            EXPECT_TRUE(d == 0 ? v >= 1 && v <= 4 : v >= 10 && v <= 40) << v;
          }
        }
      }
    }
  }
}

// One row [1 2 3 4] moved left by 1.5 pixels (output x reads input x +
// 1.5), read nearest (rounded half away from zero) in every fill mode.
TEST(ImageTransformTest, FillModesMapARowAsTheirDefinitions) {
  Tensor image(DT_FLOAT, TensorShape({1, 1, 4, 1}));
  for (int i = 0; i < 4; ++i) image.data<float>()[i] = static_cast<float>(i + 1);
  Tensor transform(DT_FLOAT, TensorShape({1, 8}));
  const float row[8] = {1, 0, 1.5f, 0, 1, 0, 0, 0};
  std::copy(row, row + 8, transform.data<float>());
  Tensor size(DT_INT32, TensorShape({2}));
  size.data<int32_t>()[0] = 1;
  size.data<int32_t>()[1] = 4;
  const std::map<std::string, std::vector<float>> want = {
      // x + 1.5 = 1.5, 2.5, 3.5, 4.5: rounded 2, 3, 4 (outside: 9), 5.
      {"CONSTANT", {3, 4, 9, 9}},
      {"NEAREST", {3, 4, 4, 4}},  // clamped to 3
      {"REFLECT", {3, 4, 4, 4}},  // 4.5 reflects to 2.5, 3.5 clamps
      // TensorFlow's wrap takes len off per len - 1 passed: 3.5 to -0.5
      // (clamped to 0), 4.5 to 0.5 (rounded to 1).
      {"WRAP", {3, 4, 1, 2}}};
  for (const auto& [mode, values] : want) {
    SCOPED_TRACE(mode);
    ASSERT_OK_AND_ASSIGN(
        auto out, RunKernel("ImageProjectiveTransformV3",
                            {{image}, {transform}, {size}, {Tensor::Scalar<float>(9)}},
                            {{"dtype", MakeAttrValue(DT_FLOAT)},
                             {"interpolation", MakeAttrValue("NEAREST")},
                             {"fill_mode", MakeAttrValue(mode)}}));
    EXPECT_EQ(std::vector<float>(out[0].data<float>(), out[0].data<float>() + 4), values);
  }
  EXPECT_THAT(RunKernel("ImageProjectiveTransformV3",
                        {{image}, {transform}, {size}, {Tensor::Scalar<float>(0)}},
                        {{"dtype", MakeAttrValue(DT_FLOAT)},
                         {"interpolation", MakeAttrValue("CUBIC")},
                         {"fill_mode", MakeAttrValue("CONSTANT")}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("CUBIC")));
}

}  // namespace
}  // namespace minigraph
