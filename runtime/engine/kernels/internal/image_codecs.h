// Image bytes to pixels and back, with TensorFlow's semantics, over Debian's
// codec libraries: libjpeg-turbo, libpng, giflib, libwebp and libjxl. BMP alone is read here:
// TensorFlow reads it by hand too, and no library is needed for a header
// and rows of bytes.
//
//   JpegDecodeOptions o;
//   o.channels = 3;
//   MG_RETURN_IF_ERROR(DecodeJpeg(bytes, o, [&](const ImageSize& s) {
//     return Allocate(s);  // where to write s.bytes() bytes, or a Status
//   }));
//
// Every function is safe on any bytes: a bad image is a Status, never a
// crash, and nothing larger than MaxTensorBytes() (core/allocator.h) is
// allocated on an image's word alone.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_IMAGE_CODECS_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_IMAGE_CODECS_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace minigraph {
namespace kernels_internal {

// The decoded pixels: `frames` images of height x width x channels samples,
// each `sample_bytes` (1, or 2 for 16-bit PNG), row-major.
struct ImageSize {
  int64_t frames = 1;
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  int sample_bytes = 1;
  int64_t bytes() const { return frames * height * width * channels * sample_bytes; }
};

// Where a decoder writes an image of the size given (bytes() bytes), or why
// it may not.
using ImageAllocator = absl::FunctionRef<absl::StatusOr<void*>(const ImageSize&)>;

enum class ImageFormat { kUnknown, kJpeg, kPng, kGif, kBmp, kWebp, kJxl };

// The format the first bytes announce, as TensorFlow's DecodeImage tells it.
ImageFormat ClassifyImage(absl::string_view data);

struct JpegDecodeOptions {
  int channels = 0;  // 0: as in the image (CMYK becomes RGB), 1, or 3
  int ratio = 1;     // downscale by 1, 2, 4 or 8 while decoding
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float acceptable_fraction = 1.0f;
  bool accurate_dct = false;  // JDCT_ISLOW; TensorFlow's default is JDCT_IFAST
  // The window [y, y + height) x [x, x + width) alone (DecodeAndCropJpeg).
  bool crop = false;
  int crop_y = 0, crop_x = 0, crop_height = 0, crop_width = 0;
};

// One frame of 8-bit samples.
absl::Status DecodeJpeg(absl::string_view data, const JpegDecodeOptions& options,
                        ImageAllocator allocate);

// [height, width, components] from the header alone (ExtractJpegShape).
absl::StatusOr<std::array<int64_t, 3>> JpegShape(absl::string_view data);

// `channels` 0 (as in the image), 1 to 4; `bits` 8 or 16 per sample.
absl::Status DecodePng(absl::string_view data, int channels, int bits, ImageAllocator allocate);

// Every frame composed onto the canvas (RGB), or the first alone.
absl::Status DecodeGif(absl::string_view data, bool all_frames, ImageAllocator allocate);

// `channels` 0 (as in the image), 3 or 4.
absl::Status DecodeBmp(absl::string_view data, int channels, ImageAllocator allocate);

// `channels` 0 (as in the image: RGB, or RGBA with alpha), 3 or 4 (it must
// be the image's). An animation (RGBA only) gives every frame composed on
// its canvas, or the first alone.
absl::Status DecodeWebp(absl::string_view data, int channels, bool all_frames,
                        ImageAllocator allocate);

// The first frame of a JPEG XL image (a codestream or a container), 8-bit,
// in the image's channels: its colour channels (1 or 3) and its alpha if it
// has one. `channels` 0, or the image's count (1 to 4).
absl::Status DecodeJxl(absl::string_view data, int channels, ImageAllocator allocate);

struct JpegEncodeOptions {
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // JFIF: 1 dots per inch, 2 per centimetre
  int x_density = 300;
  int y_density = 300;
  std::string xmp_metadata;  // an APP1 marker when not empty
};

// `channels` 1 (grayscale) or 3 (RGB), 8-bit samples.
absl::StatusOr<std::string> EncodeJpeg(const uint8_t* pixels, int64_t height, int64_t width,
                                       int channels, const JpegEncodeOptions& options);

// `channels` 1 to 4 of `bits` 8 or 16 (native byte order); `compression` is
// zlib's level, -1 for its default.
absl::StatusOr<std::string> EncodePng(const void* pixels, int64_t height, int64_t width,
                                      int channels, int bits, int compression);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_IMAGE_CODECS_H_
