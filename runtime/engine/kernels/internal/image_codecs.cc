#include "runtime/engine/kernels/internal/image_codecs.h"

// clang-format off: jpeglib.h needs <cstdio> first.
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include "jerror.h"
#include "jpeglib.h"
// clang-format on
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "gif_lib.h"
#include "jxl/decode.h"
#include "jxl/decode_cxx.h"
#include "png.h"
#include "webp/decode.h"
#include "webp/demux.h"
#include "zlib.h"

// libjpeg and libpng report a fatal error by longjmp. The functions that
// call them keep every object with a destructor outside the frame that
// calls setjmp (in a state struct their caller owns), so that a longjmp
// never skips one.

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow refuses to decode more samples than this (jpeg_mem.cc).
constexpr int64_t kMaxJpegSamples = int64_t{1} << 29;

// Calls `allocate` where no longjmp can cross it: its Status lands in
// `*status`, the buffer in `*out` (nullptr on failure).
void CallAllocate(ImageAllocator allocate, const ImageSize& size, absl::Status* status,
                  uint8_t** out) {
  absl::StatusOr<void*> r = allocate(size);
  if (!r.ok()) {
    *status = r.status();
    *out = nullptr;
    return;
  }
  *out = static_cast<uint8_t*>(*r);
}

// ---------------------------------------------------------------- JPEG

struct JpegErrorManager {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

void JpegSilence(j_common_ptr) {}

// A source over bytes in memory that behaves as TensorFlow's: running out
// of data is an error, unless truncated images are to be recovered, when
// one fake end-of-image marker is given (libjpeg then fills the rest).
struct JpegSource {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool try_recover;
  bool gave_fake_eoi;
  int64_t fills;        // calls of SourceFill
  int64_t fill_budget;  // how many are allowed
};

const JOCTET kFakeEoi[2] = {0xFF, JPEG_EOI};
constexpr int64_t kHeaderFills = 1024;

void SourceInit(j_decompress_ptr) {}
void SourceTerm(j_decompress_ptr) {}

boolean SourceFill(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<JpegSource*>(cinfo->src);
  // libjpeg asks again each time it wants a byte past the last; told data
  // remains (as TensorFlow tells it when recovering a truncated image), the
  // entropy decoder moves on to the next block, but the marker reader asks
  // forever on some corrupt headers (TensorFlow then spins). The asks are
  // bounded: a few for the header, a few per block after it.
  if (++src->fills > src->fill_budget) ERREXIT(cinfo, JERR_FILE_READ);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
  }
  if (src->pub.bytes_in_buffer > 0) return src->try_recover ? TRUE : FALSE;
  if (src->try_recover && !src->gave_fake_eoi) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->gave_fake_eoi = true;
    src->pub.next_input_byte = kFakeEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void SourceSkip(j_decompress_ptr cinfo, long count) {
  auto* src = reinterpret_cast<JpegSource*>(cinfo->src);
  if (count < 0) return;
  if (static_cast<size_t>(count) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    SourceFill(cinfo);
  } else {
    src->pub.bytes_in_buffer -= count;
    src->pub.next_input_byte += count;
  }
}

struct JpegDecodeState {
  JpegErrorManager err;
  jpeg_decompress_struct cinfo;
  JpegSource src;
  bool created = false;
  const char* problem = nullptr;  // a failure found here, not by libjpeg
  absl::Status alloc_status;
  uint8_t* out = nullptr;
  JSAMPLE* temp = nullptr;
  int64_t height = 0, stride = 0, height_read = 0;
};

void StartJpeg(absl::string_view data, bool try_recover, JpegDecodeState* st) {
  st->cinfo.err = jpeg_std_error(&st->err.pub);
  st->err.pub.error_exit = JpegErrorExit;
  st->err.pub.output_message = JpegSilence;
  st->err.message[0] = '\0';
  jpeg_create_decompress(&st->cinfo);
  st->created = true;
  JpegSource& src = st->src;
  src.data = reinterpret_cast<const JOCTET*>(data.data());
  src.size = data.size();
  src.try_recover = try_recover;
  src.gave_fake_eoi = false;
  src.fills = 0;
  src.fill_budget = kHeaderFills;
  src.pub.init_source = SourceInit;
  src.pub.fill_input_buffer = SourceFill;
  src.pub.skip_input_data = SourceSkip;
  src.pub.resync_to_restart = jpeg_resync_to_restart;
  src.pub.term_source = SourceTerm;
  src.pub.next_input_byte = src.data;
  src.pub.bytes_in_buffer = src.size;
  st->cinfo.src = &src.pub;
}

// Converts one CMYK (or YCCK, as libjpeg gives it) scanline to RGB as
// TensorFlow does: Adobe's files store the inks inverted.
void CmykToRgb(const JSAMPLE* in, int64_t width, bool adobe, uint8_t* out) {
  for (int64_t i = 0; i < width; ++i) {
    const int c = in[4 * i], m = in[4 * i + 1], y = in[4 * i + 2], k = in[4 * i + 3];
    if (adobe) {
      out[3 * i] = k * c / 255;
      out[3 * i + 1] = k * m / 255;
      out[3 * i + 2] = k * y / 255;
    } else {
      out[3 * i] = (255 - k) * (255 - c) / 255;
      out[3 * i + 1] = (255 - k) * (255 - m) / 255;
      out[3 * i + 2] = (255 - k) * (255 - y) / 255;
    }
  }
}

// DecodeJpegLow's steps. Each may end in libjpeg's error exit, which jumps
// back to DecodeJpegLow's setjmp; a false return has set st->problem.

// Reads the header and sets the output's color space, scale and DCT
// method; `*components` is the channels of the result.
bool ConfigureJpeg(const JpegDecodeOptions& o, JpegDecodeState* st, int* components) {
  jpeg_decompress_struct& cinfo = st->cinfo;
  jpeg_read_header(&cinfo, TRUE);
  *components = o.channels == 0 ? std::min(cinfo.num_components, 3) : o.channels;
  if (*components == 1) {
    cinfo.out_color_space = JCS_GRAYSCALE;
  } else if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    cinfo.out_color_space = JCS_CMYK;  // converted to RGB by ReadJpegLines
  } else {
    cinfo.out_color_space = JCS_RGB;
  }
  cinfo.do_fancy_upsampling = o.fancy_upscaling ? TRUE : FALSE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = o.ratio;
  cinfo.dct_method = o.accurate_dct ? JDCT_ISLOW : JDCT_IFAST;
  // A progressive image's coefficients stay in memory until the end (two
  // bytes a sample): bound them by four times the largest tensor allowed,
  // plus room for libjpeg's own buffers.
  cinfo.mem->max_memory_to_use =
      static_cast<long>(std::min<size_t>(MaxTensorBytes(), std::numeric_limits<long>::max() / 4) *
                        4) +
      (16 << 20);
  jpeg_calc_output_dimensions(&cinfo);
  st->src.fill_budget = kHeaderFills + 16 * ((int64_t{cinfo.image_width} + 7) / 8) *
                                           ((int64_t{cinfo.image_height} + 7) / 8) *
                                           cinfo.num_components;
  const int64_t total = static_cast<int64_t>(cinfo.output_height) * cinfo.output_width *
                        cinfo.num_components;
  if (cinfo.output_width == 0 || cinfo.output_height == 0) {
    st->problem = "the image is empty";
    return false;
  }
  if (total >= kMaxJpegSamples) {
    st->problem = "the image has 2^29 samples or more";
    return false;
  }
  return true;
}

// Starts decompressing; with a crop window, narrows the scanlines to it and
// skips the rows above (`*skipped` of them). `*width` and `*height` are the
// result's.
bool StartJpegWindow(const JpegDecodeOptions& o, JpegDecodeState* st, int64_t* width,
                     int64_t* height, JDIMENSION* skipped) {
  jpeg_decompress_struct& cinfo = st->cinfo;
  jpeg_start_decompress(&cinfo);
  *width = cinfo.output_width;
  *height = cinfo.output_height;
  *skipped = 0;
  if (!o.crop) return true;
  if (o.crop_width <= 0 || o.crop_height <= 0 || o.crop_x < 0 || o.crop_y < 0 ||
      int64_t{o.crop_y} + o.crop_height > *height || int64_t{o.crop_x} + o.crop_width > *width) {
    st->problem = "the crop window is not inside the image";
    return false;
  }
  *width = o.crop_width;
  *height = o.crop_height;
  // The scanline must start on an MCU boundary: libjpeg moves it left and
  // widens it; ReadJpegLines realigns the rows.
  JDIMENSION x = o.crop_x, crop_width = o.crop_width;
  jpeg_crop_scanline(&cinfo, &x, &crop_width);
  *skipped = jpeg_skip_scanlines(&cinfo, o.crop_y);
  if (*skipped != static_cast<JDIMENSION>(o.crop_y)) {
    st->problem = "the rows above the crop window could not be skipped";
    return false;
  }
  return true;
}

// Reads the window's rows (`out_width` wide, from row `skipped`) into
// st->out, converting CMYK and realigning a cropped row. Returns whether
// the data ended early and try_recover_truncated did not fill the rest.
bool ReadJpegLines(const JpegDecodeOptions& o, int components, int64_t out_width,
                   JDIMENSION skipped, JpegDecodeState* st) {
  jpeg_decompress_struct& cinfo = st->cinfo;
  const int64_t stride = st->stride;
  const bool realign = out_width != static_cast<int64_t>(cinfo.output_width);
  const bool cmyk = cinfo.out_color_space == JCS_CMYK;
  if (cmyk) {
    st->temp = new JSAMPLE[cinfo.output_width * 4];
  } else if (realign) {
    st->temp = new JSAMPLE[cinfo.output_width * components];
  }
  const int64_t align_offset = (cinfo.output_width - out_width) * (cmyk ? 4 : components);
  const JDIMENSION last_line = skipped + st->height;
  st->height_read = st->height;
  bool truncated = false;
  uint8_t* line = st->out;
  while (cinfo.output_scanline < last_line) {
    JSAMPROW row = st->temp != nullptr ? st->temp : line;
    if (jpeg_read_scanlines(&cinfo, &row, 1) == 0) {
      if (!o.try_recover_truncated) {
        st->height_read = cinfo.output_scanline - skipped;
        truncated = true;
      } else {
        // Each missing line repeats the one above (the first is black).
        for (JDIMENSION at = cinfo.output_scanline; at < last_line; ++at, line += stride) {
          if (at == 0) {
            std::memset(line, 0, stride);
          } else {
            std::memcpy(line, line - stride, stride);
          }
        }
        cinfo.output_scanline = last_line;
      }
      break;
    }
    if (cmyk) {
      CmykToRgb(st->temp + (realign ? align_offset : 0), out_width, cinfo.saw_Adobe_marker, line);
    } else if (realign) {
      std::memcpy(line, st->temp + align_offset, stride);
    }
    line += stride;
  }
  delete[] st->temp;
  st->temp = nullptr;
  return truncated;
}

// TensorFlow's UncompressLow. False when the image could not be decoded;
// `st` holds what to free and why.
bool DecodeJpegLow(absl::string_view data, const JpegDecodeOptions& o, ImageAllocator allocate,
                   JpegDecodeState* st) {
  if (setjmp(st->err.jump)) return false;
  StartJpeg(data, o.try_recover_truncated, st);
  jpeg_decompress_struct& cinfo = st->cinfo;
  int components = 0;
  if (!ConfigureJpeg(o, st, &components)) return false;
  int64_t out_width = 0, out_height = 0;
  JDIMENSION skipped = 0;
  if (!StartJpegWindow(o, st, &out_width, &out_height, &skipped)) return false;
  st->height = out_height;
  st->stride = out_width * components;
  CallAllocate(allocate, ImageSize{1, out_height, out_width, components, 1}, &st->alloc_status,
               &st->out);
  if (st->out == nullptr) return false;
  const bool truncated = ReadJpegLines(o, components, out_width, skipped, st);
  if (o.crop && cinfo.output_scanline < cinfo.output_height) {
    jpeg_skip_scanlines(&cinfo, cinfo.output_height - o.crop_y - o.crop_height);
  }
  const bool cmyk = cinfo.out_color_space == JCS_CMYK;
  const int want = components == 1 ? 1 : cmyk ? 4 : 3;
  if (truncated || cinfo.output_components != want) {
    jpeg_abort(reinterpret_cast<j_common_ptr>(&cinfo));
  } else {
    jpeg_finish_decompress(&cinfo);
  }
  return true;
}

// The reason a JPEG failed, from libjpeg or from the checks here.
std::string JpegProblem(const JpegDecodeState& st) {
  if (st.err.message[0] != '\0') return st.err.message;
  if (st.problem != nullptr) return st.problem;
  return "not a JPEG image";
}

constexpr char kJpegFailed[] = "jpeg::Uncompress failed. Invalid JPEG data or crop window";

// ---------------------------------------------------------------- PNG

// Where libpng's error handler leaves its message (the error pointer).
struct PngErrorSink {
  char message[200] = "";
};

struct PngState {
  PngErrorSink sink;
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* data = nullptr;
  size_t left = 0;
  bool header_read = false;  // failures after it are the data's, not the header's
  absl::Status alloc_status;
  uint8_t* out = nullptr;
  png_uint_32 width = 0, height = 0;
  int channels = 0;
  int64_t row_bytes = 0;
};

void PngError(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngErrorSink*>(png_get_error_ptr(png));
  std::snprintf(sink->message, sizeof(sink->message), "%s", message);
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}

void PngRead(png_structp png, png_bytep out, png_size_t length) {
  auto* st = static_cast<PngState*>(png_get_io_ptr(png));
  if (st->left < length) png_error(png, "More bytes requested to read than available");
  std::memcpy(out, st->data, length);
  st->data += length;
  st->left -= length;
}

// TensorFlow's CommonInitDecode: the transformations libpng is asked for,
// from the image's type to `channels` samples of `bits`.
void SetPngTransforms(PngState* st, int channels, int bits, bool* synthesize_16,
                      int* num_passes) {
  png_structp png = st->png;
  png_infop info = st->info;
  int bit_depth = 0, color_type = 0;
  png_get_IHDR(png, info, &st->width, &st->height, &bit_depth, &color_type, nullptr, nullptr,
               nullptr);
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (channels == 0) {
    channels = color_type == PNG_COLOR_TYPE_PALETTE ? (has_trns ? 4 : 3)
                                                    : png_get_channels(png, info);
  }
  st->channels = channels;
  const bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (channels % 2 == 0) {  // alpha wanted
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(png);
      } else {
        png_set_add_alpha(png, (1 << bit_depth) - 1, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(png);
  }
  if (bit_depth > 8 && bits <= 8) png_set_strip_16(png);
  *synthesize_16 = bit_depth <= 8 && bits == 16;
  png_set_packing(png);
  *num_passes = png_set_interlace_handling(png);
  if (bits > 8) png_set_swap(png);  // little-endian samples
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (channels < 3) {
    if (!is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);  // BT.601, as JPEG
  } else if (is_gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
}

// Widens the 8-bit samples at the start of each row to 16 bits (v * 257),
// in place, from the end backwards.
void Widen8To16(uint8_t* rows, int64_t height, int64_t samples_per_row, int64_t row_bytes) {
  for (int64_t r = height - 1; r >= 0; --r) {
    uint8_t* row = rows + r * row_bytes;
    auto* wide = reinterpret_cast<uint16_t*>(row);
    for (int64_t i = samples_per_row - 1; i >= 0; --i) {
      const uint16_t v = row[i];
      wide[i] = static_cast<uint16_t>(v | (v << 8));
    }
  }
}

bool DecodePngLow(int channels, int bits, ImageAllocator allocate, PngState* st) {
  if (setjmp(png_jmpbuf(st->png))) return false;
  png_set_read_fn(st->png, st, PngRead);
  png_read_info(st->png, st->info);
  bool synthesize_16 = false;
  int num_passes = 1;
  SetPngTransforms(st, channels, bits, &synthesize_16, &num_passes);
  st->header_read = true;
  const int64_t width = st->width, height = st->height;
  if (width >= (int64_t{1} << 27) || height >= (int64_t{1} << 27) ||
      width * height >= (int64_t{1} << 29)) {
    std::snprintf(st->sink.message, sizeof(st->sink.message),
                  "PNG size too large for int: %lld by %lld", static_cast<long long>(width),
                  static_cast<long long>(height));
    st->header_read = false;
    return false;
  }
  st->row_bytes = width * st->channels * (bits / 8);
  CallAllocate(allocate, ImageSize{1, height, width, st->channels, bits / 8}, &st->alloc_status,
               &st->out);
  if (st->out == nullptr) return false;
  for (int pass = 0; pass < num_passes; ++pass) {
    uint8_t* row = st->out;
    for (int64_t r = 0; r < height; ++r, row += st->row_bytes) {
      png_read_row(st->png, row, nullptr);
    }
  }
  png_read_end(st->png, st->info);
  if (synthesize_16) Widen8To16(st->out, height, width * st->channels, st->row_bytes);
  return true;
}

// ---------------------------------------------------------------- GIF

struct GifInput {
  const uint8_t* data;
  size_t left;
};

int GifRead(GifFileType* gif, GifByteType* out, int size) {
  auto* in = static_cast<GifInput*>(gif->UserData);
  const size_t n = std::min(static_cast<size_t>(std::max(size, 0)), in->left);
  std::memcpy(out, in->data, n);
  in->data += n;
  in->left -= n;
  return static_cast<int>(n);
}

std::string GifError(int code) {
  const char* s = GifErrorString(code);
  return s != nullptr ? s : "Unknown error";
}

// Forgets the last frame read (its pixels, colour map and extensions).
void DropLastFrame(GifFileType* gif) {
  SavedImage* image = &gif->SavedImages[gif->ImageCount - 1];
  free(image->RasterBits);
  image->RasterBits = nullptr;
  GifFreeMapObject(image->ImageDesc.ColorMap);
  image->ImageDesc.ColorMap = nullptr;
  GifFreeExtensions(&image->ExtensionBlockCount, &image->ExtensionBlocks);
  --gif->ImageCount;
}

// giflib's DGifSlurp, with each frame's size checked before its pixels are
// allocated: a GIF announces up to 2^31 pixels a frame in a few bytes.
// The frames read are in gif->SavedImages even on failure.
absl::Status SlurpGif(GifFileType* gif) {
  size_t total = 0;
  GifRecordType type = UNDEFINED_RECORD_TYPE;
  do {
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
      return absl::DataLossError(GifError(gif->Error));
    }
    if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif) == GIF_ERROR) return absl::DataLossError(GifError(gif->Error));
      SavedImage* image = &gif->SavedImages[gif->ImageCount - 1];
      const int64_t w = image->ImageDesc.Width, h = image->ImageDesc.Height;
      if (w <= 0 || h <= 0 || w > std::numeric_limits<int>::max() / h) {
        return absl::DataLossError(absl::StrCat("frame ", gif->ImageCount - 1, " is ", w, " by ",
                                                h, " pixels"));
      }
      total += static_cast<size_t>(w * h);
      if (total > MaxTensorBytes()) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "the frames hold more than ", MaxTensorBytes(),
            " pixels (the largest tensor allowed)"));
      }
      image->RasterBits = static_cast<GifByteType*>(malloc(w * h));
      if (image->RasterBits == nullptr) return absl::ResourceExhaustedError("out of memory");
      bool whole = true;
      if (image->ImageDesc.Interlace) {
        static constexpr int kOffset[] = {0, 4, 2, 1}, kJump[] = {8, 8, 4, 2};
        for (int pass = 0; pass < 4 && whole; ++pass) {
          for (int64_t row = kOffset[pass]; row < h && whole; row += kJump[pass]) {
            whole = DGifGetLine(gif, image->RasterBits + row * w, static_cast<int>(w)) != GIF_ERROR;
          }
        }
      } else {
        whole = DGifGetLine(gif, image->RasterBits, static_cast<int>(w * h)) != GIF_ERROR;
      }
      if (!whole) {
        // A frame cut short is dropped, as TensorFlow's giflib does.
        DropLastFrame(gif);
        return absl::DataLossError(GifError(gif->Error));
      }
      if (gif->ExtensionBlocks != nullptr) {
        image->ExtensionBlocks = gif->ExtensionBlocks;
        image->ExtensionBlockCount = gif->ExtensionBlockCount;
        gif->ExtensionBlocks = nullptr;
        gif->ExtensionBlockCount = 0;
      }
    } else if (type == EXTENSION_RECORD_TYPE) {
      int function = 0;
      GifByteType* block = nullptr;
      if (DGifGetExtension(gif, &function, &block) == GIF_ERROR) {
        return absl::DataLossError(GifError(gif->Error));
      }
      while (block != nullptr) {
        if (GifAddExtensionBlock(&gif->ExtensionBlockCount, &gif->ExtensionBlocks, function,
                                 block[0], &block[1]) == GIF_ERROR) {
          return absl::ResourceExhaustedError("out of memory");
        }
        function = CONTINUE_EXT_FUNC_CODE;
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
          return absl::DataLossError(GifError(gif->Error));
        }
      }
    }
  } while (type != TERMINATE_RECORD_TYPE);
  if (gif->ImageCount == 0) {
    gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
    return absl::DataLossError(GifError(gif->Error));
  }
  return absl::OkStatus();
}

// Frame k drawn over frame k - 1 (the first over black): its pixels of the
// transparent colour keep what is below.
absl::Status ComposeGifFrame(GifFileType* gif, int k, int64_t width, int64_t height,
                             uint8_t* canvas) {
  SavedImage* image = &gif->SavedImages[k];
  const GifImageDesc& d = image->ImageDesc;
  uint8_t* frame = canvas + k * width * height * 3;
  if (k > 0) {
    std::memcpy(frame, frame - width * height * 3, width * height * 3);
  } else if (d.Left != 0 || d.Top != 0 || d.Width != width || d.Height != height) {
    std::memset(frame, 0, width * height * 3);
  }
  GraphicsControlBlock gcb;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  DGifSavedExtensionToGCB(gif, k, &gcb);
  const ColorMapObject* map = d.ColorMap != nullptr ? d.ColorMap : gif->SColorMap;
  if (map == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("missing color map for frame ", k));
  }
  const int64_t top = std::max(d.Top, 0), left = std::max(d.Left, 0);
  const int64_t bottom = std::min<int64_t>(int64_t{d.Top} + d.Height, height);
  const int64_t right = std::min<int64_t>(int64_t{d.Left} + d.Width, width);
  for (int64_t i = top; i < bottom; ++i) {
    uint8_t* out = frame + i * width * 3;
    const GifByteType* in = image->RasterBits + (i - d.Top) * d.Width;  // the frame's row
    for (int64_t j = left; j < right; ++j) {
      const int index = in[j - d.Left];
      if (index == gcb.TransparentColor) {
        if (k == 0) std::memset(out + 3 * j, 0, 3);
        continue;
      }
      if (index >= map->ColorCount) {
        return absl::InvalidArgumentError(absl::StrCat(
            "found color index ", index, " outside of color map range ", map->ColorCount));
      }
      out[3 * j] = map->Colors[index].Red;
      out[3 * j + 1] = map->Colors[index].Green;
      out[3 * j + 2] = map->Colors[index].Blue;
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- encoders

struct JpegEncodeState {
  JpegErrorManager err;
  jpeg_compress_struct cinfo;
  bool created = false;
  unsigned char* buffer = nullptr;  // jpeg_mem_dest's, freed by the caller
  unsigned long size = 0;
};

bool EncodeJpegLow(const uint8_t* pixels, int64_t height, int64_t width, int channels,
                   const JpegEncodeOptions& o, JpegEncodeState* st) {
  jpeg_compress_struct& cinfo = st->cinfo;
  cinfo.err = jpeg_std_error(&st->err.pub);
  st->err.pub.error_exit = JpegErrorExit;
  st->err.pub.output_message = JpegSilence;
  st->err.message[0] = '\0';
  if (setjmp(st->err.jump)) return false;
  jpeg_create_compress(&cinfo);
  st->created = true;
  jpeg_mem_dest(&cinfo, &st->buffer, &st->size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = channels;
  cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (o.optimize_size) cinfo.optimize_coding = TRUE;
  cinfo.density_unit = static_cast<UINT8>(o.density_unit);
  cinfo.X_density = static_cast<UINT16>(o.x_density);
  cinfo.Y_density = static_cast<UINT16>(o.y_density);
  jpeg_set_quality(&cinfo, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(&cinfo);
  if (!o.chroma_downsampling) {
    for (int i = 0; i < cinfo.num_components; ++i) {
      cinfo.comp_info[i].h_samp_factor = 1;
      cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(&cinfo, TRUE);
  if (!o.xmp_metadata.empty()) {
    // XMP lives in an APP1 marker after Adobe's namespace and a NUL.
    static constexpr char kXmpNamespace[] = "http://ns.adobe.com/xap/1.0/";
    const size_t ns = sizeof(kXmpNamespace);  // with the NUL
    const size_t n = ns + o.xmp_metadata.size();
    if (n <= 65533) {
      jpeg_write_m_header(&cinfo, JPEG_APP0 + 1, static_cast<unsigned int>(n));
      for (size_t i = 0; i < ns; ++i) jpeg_write_m_byte(&cinfo, kXmpNamespace[i]);
      for (unsigned char c : o.xmp_metadata) jpeg_write_m_byte(&cinfo, c);
    } else {
      ERREXIT1(&cinfo, JERR_BAD_LENGTH, static_cast<int>(n));
    }
  }
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + int64_t{cinfo.next_scanline} * width * channels);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  return true;
}

struct PngWriteState {
  PngErrorSink sink;
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::string* out = nullptr;
};

void PngWrite(png_structp png, png_bytep data, png_size_t length) {
  static_cast<PngWriteState*>(png_get_io_ptr(png))
      ->out->append(reinterpret_cast<const char*>(data), length);
}

void PngFlush(png_structp) {}

bool EncodePngLow(const uint8_t* pixels, int64_t height, int64_t width, int channels, int bits,
                  int compression, PngWriteState* st) {
  if (setjmp(png_jmpbuf(st->png))) return false;
  static constexpr int kColorType[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                       PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_write_fn(st->png, st, PngWrite, PngFlush);
  png_set_compression_level(st->png, compression < 0 ? Z_DEFAULT_COMPRESSION : compression);
  png_set_compression_mem_level(st->png, MAX_MEM_LEVEL);
  png_set_IHDR(st->png, st->info, static_cast<png_uint_32>(width),
               static_cast<png_uint_32>(height), bits, kColorType[channels - 1],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(st->png, st->info);
  if (bits > 8) png_set_swap(st->png);
  const int64_t row_bytes = width * channels * (bits / 8);
  for (int64_t r = 0; r < height; ++r) {
    png_write_row(st->png, const_cast<png_bytep>(pixels + r * row_bytes));
  }
  png_write_end(st->png, nullptr);
  return true;
}

}  // namespace

ImageFormat ClassifyImage(absl::string_view data) {
  if (absl::StartsWith(data, "\xff\xd8\xff")) return ImageFormat::kJpeg;
  if (absl::StartsWith(data, "\x89PNG\r\n\x1a\n")) return ImageFormat::kPng;
  if (absl::StartsWith(data, "GIF8")) return ImageFormat::kGif;
  if (absl::StartsWith(data, "BM")) return ImageFormat::kBmp;
  if (data.size() > 12 && absl::StartsWith(data, "RIFF") && data.substr(8, 4) == "WEBP") {
    return ImageFormat::kWebp;
  }
  const JxlSignature jxl =
      JxlSignatureCheck(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  if (jxl == JXL_SIG_CODESTREAM || jxl == JXL_SIG_CONTAINER) return ImageFormat::kJxl;
  return ImageFormat::kUnknown;
}

absl::Status DecodeJpeg(absl::string_view data, const JpegDecodeOptions& options,
                        ImageAllocator allocate) {
  if (options.ratio != 1 && options.ratio != 2 && options.ratio != 4 && options.ratio != 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("ratio must be 1, 2, 4, or 8, got ", options.ratio));
  }
  if (options.channels != 0 && options.channels != 1 && options.channels != 3) {
    return absl::InvalidArgumentError("JPEG does not support 4 channels");
  }
  if (data.empty()) return absl::InvalidArgumentError(absl::StrCat(kJpegFailed, ": no data"));
  auto st = std::make_unique<JpegDecodeState>();
  const bool ok = DecodeJpegLow(data, options, allocate, st.get());
  delete[] st->temp;
  if (st->created) jpeg_destroy_decompress(&st->cinfo);
  if (!st->alloc_status.ok()) return st->alloc_status;
  if (!ok) return absl::InvalidArgumentError(absl::StrCat(kJpegFailed, ": ", JpegProblem(*st)));
  const float fraction =
      st->height == 0 ? 1.0f : static_cast<float>(st->height_read) / st->height;
  if (fraction < std::min(1.0f, options.acceptable_fraction)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kJpegFailed, ": only ", st->height_read, " of ", st->height,
        " rows could be read, fewer than acceptable_fraction ", options.acceptable_fraction));
  }
  if (st->height_read < st->height) {
    std::memset(st->out + st->height_read * st->stride, 0,
                (st->height - st->height_read) * st->stride);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::array<int64_t, 3>> JpegShape(absl::string_view data) {
  auto st = std::make_unique<JpegDecodeState>();
  std::array<int64_t, 3> shape = {0, 0, 0};
  bool ok = false;
  if (!data.empty() && setjmp(st->err.jump) == 0) {
    StartJpeg(data, /*try_recover=*/false, st.get());
    jpeg_read_header(&st->cinfo, TRUE);
    jpeg_calc_output_dimensions(&st->cinfo);
    shape = {st->cinfo.output_height, st->cinfo.output_width, st->cinfo.output_components};
    ok = true;
  }
  if (st->created) jpeg_destroy_decompress(&st->cinfo);
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not read image shape: ", data.empty() ? "no data" : JpegProblem(*st)));
  }
  return shape;
}

absl::Status DecodePng(absl::string_view data, int channels, int bits, ImageAllocator allocate) {
  auto st = std::make_unique<PngState>();
  st->data = reinterpret_cast<const uint8_t*>(data.data());
  st->left = data.size();
  st->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &st->sink, PngError, PngWarning);
  if (st->png == nullptr) return absl::ResourceExhaustedError("out of memory for libpng");
  st->info = png_create_info_struct(st->png);
  const bool ok = st->info != nullptr && DecodePngLow(channels, bits, allocate, st.get());
  png_destroy_read_struct(&st->png, st->info != nullptr ? &st->info : nullptr, nullptr);
  if (!st->alloc_status.ok()) return st->alloc_status;
  if (ok) return absl::OkStatus();
  if (!st->header_read) {
    if (absl::StartsWith(st->sink.message, "PNG size")) {
      return absl::InvalidArgumentError(st->sink.message);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid PNG. Failed to initialize decoder: ", st->sink.message));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid PNG data, size ", data.size(), ": ", st->sink.message));
}

absl::Status DecodeGif(absl::string_view data, bool all_frames, ImageAllocator allocate) {
  const auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid GIF data (size ", data.size(), "), ", why));
  };
  GifInput in{reinterpret_cast<const uint8_t*>(data.data()), data.size()};
  int error = D_GIF_SUCCEEDED;
  GifFileType* gif = DGifOpen(&in, GifRead, &error);
  if (gif == nullptr) return invalid(absl::StrCat("failed to open gif file: ", GifError(error)));
  absl::Cleanup close = [gif] {
    int ignored = 0;
    DGifCloseFile(gif, &ignored);
  };
  if (absl::Status s = SlurpGif(gif); !s.ok()) {
    if (s.code() == absl::StatusCode::kResourceExhausted) return s;
    // As TensorFlow: the frames read so far are used unless none was read
    // whole or the file ended early.
    if (gif->ImageCount <= 0 || gif->SavedImages[gif->ImageCount - 1].RasterBits == nullptr ||
        gif->Error == D_GIF_ERR_EOF_TOO_SOON) {
      return invalid(absl::StrCat("failed to slurp gif file: ", s.message()));
    }
  }
  // The canvas is as large as the largest frame (TensorFlow's choice, not
  // the logical screen).
  int64_t width = 0, height = 0;
  for (int k = 0; k < gif->ImageCount; ++k) {
    width = std::max<int64_t>(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max<int64_t>(height, gif->SavedImages[k].ImageDesc.Height);
  }
  const int frames = all_frames ? gif->ImageCount : 1;
  absl::StatusOr<void*> out = allocate(ImageSize{frames, height, width, 3, 1});
  if (!out.ok()) return out.status();
  for (int k = 0; k < frames; ++k) {
    if (absl::Status s = ComposeGifFrame(gif, k, width, height, static_cast<uint8_t*>(*out));
        !s.ok()) {
      return invalid(s.message());
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeWebp(absl::string_view data, int channels, bool all_frames,
                        ImageAllocator allocate) {
  if (channels != 0 && channels != 3 && channels != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("WebP only supports 3 or 4 channels, got ", channels));
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(bytes, data.size(), &features) != VP8_STATUS_OK) {
    return absl::InvalidArgumentError("Failed to decode WebP header.");
  }
  const int in_channels = features.has_alpha ? 4 : 3;
  if (channels != 0 && channels != in_channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of channels requested does not match input: ", channels, " for an image of ",
        in_channels));
  }
  ImageSize size;
  size.height = features.height;  // the canvas, for an animation
  size.width = features.width;
  size.channels = in_channels;
  if (static_cast<uint64_t>(size.bytes()) > MaxTensorBytes()) {
    return absl::InvalidArgumentError(absl::StrCat("a WebP frame of ", size.width, "x",
                                                   size.height, " passes the limit of ",
                                                   MaxTensorBytes(), " bytes"));
  }
  if (!features.has_animation) {
    const absl::StatusOr<void*> out = allocate(size);
    if (!out.ok()) return out.status();
    const int stride = static_cast<int>(size.width * size.channels);
    auto* o = static_cast<uint8_t*>(*out);
    const size_t n = static_cast<size_t>(size.bytes());
    const bool ok = in_channels == 3
                        ? WebPDecodeRGBInto(bytes, data.size(), o, n, stride) != nullptr
                        : WebPDecodeRGBAInto(bytes, data.size(), o, n, stride) != nullptr;
    if (!ok) return absl::InvalidArgumentError("Failed to decode WebP image.");
    return absl::OkStatus();
  }
  // libwebp composes an animation's frames in RGBA only.
  if (in_channels != 4) {
    return absl::InvalidArgumentError("WebP Animation must be 4 channel RGBA");
  }
  const WebPData webp = {bytes, data.size()};
  std::unique_ptr<WebPAnimDecoder, void (*)(WebPAnimDecoder*)> decoder(
      WebPAnimDecoderNew(&webp, nullptr), WebPAnimDecoderDelete);
  WebPAnimInfo info;
  if (decoder == nullptr || !WebPAnimDecoderGetInfo(decoder.get(), &info)) {
    return absl::InvalidArgumentError("failed to decode WebP Animation");
  }
  size.width = info.canvas_width;
  size.height = info.canvas_height;
  size.frames = all_frames ? info.frame_count : 1;
  const int64_t frame_bytes = size.height * size.width * 4;
  const absl::StatusOr<void*> out = allocate(size);
  if (!out.ok()) return out.status();
  int64_t frame = 0;
  while (frame < size.frames && WebPAnimDecoderHasMoreFrames(decoder.get())) {
    uint8_t* buffer;
    int timestamp;
    if (!WebPAnimDecoderGetNext(decoder.get(), &buffer, &timestamp)) {
      return absl::InvalidArgumentError(absl::StrCat("failed to decode WebP frame ", frame));
    }
    std::memcpy(static_cast<uint8_t*>(*out) + frame * frame_bytes, buffer, frame_bytes);
    ++frame;
  }
  if (frame != size.frames) {
    return absl::InvalidArgumentError(
        absl::StrCat("only read ", frame, " of ", size.frames, " WebP frames"));
  }
  return absl::OkStatus();
}

absl::Status DecodeBmp(absl::string_view data, int channels, ImageAllocator allocate) {
  if (channels == 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("`channels` must be 0, 3 or 4 for BMP, but got ", channels));
  }
  if (data.size() < 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Incomplete bmp content, requires at least 32 bytes to find the header size, width, "
        "height, and bpp, got ",
        data.size(), " bytes"));
  }
  const auto le = [&](size_t at, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(data[at + i]);
    return v;
  };
  const int64_t header_size = static_cast<int32_t>(le(10, 4));
  const int64_t width = static_cast<int32_t>(le(18, 4));
  const int64_t signed_height = static_cast<int32_t>(le(22, 4));
  const int in_channels = static_cast<int16_t>(le(28, 2)) / 8;
  if (in_channels != 1 && in_channels != 3 && in_channels != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of channels inherent in the image must be 1, 3 or 4, was ", in_channels));
  }
  if (width <= 0) return absl::InvalidArgumentError("Width must be positive");
  if (signed_height == 0) return absl::InvalidArgumentError("Height must be nonzero");
  if (header_size < 0) return absl::InvalidArgumentError("header size must be nonnegative");
  const int64_t height = std::abs(signed_height);
  if (width * height >= std::numeric_limits<int32_t>::max() / 8) {
    return absl::InvalidArgumentError("Total possible pixel bytes must be less than 2^30");
  }
  const int64_t row_size = (in_channels * width + 3) / 4 * 4;  // rows pad to 4 bytes
  const int64_t diff = static_cast<int64_t>(data.size()) - header_size - row_size * height;
  if (diff != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input size should match (header_size + row_size * abs_height) but they differ by ",
        diff));
  }
  const int out_channels = channels == 0 ? in_channels : channels;
  absl::StatusOr<void*> out = allocate(ImageSize{1, height, width, out_channels, 1});
  if (!out.ok()) return out.status();
  const auto* pixels = reinterpret_cast<const uint8_t*>(data.data()) + header_size;
  auto* dst = static_cast<uint8_t*>(*out);
  const bool top_down = signed_height < 0;
  for (int64_t i = 0; i < height; ++i) {
    const uint8_t* src = pixels + (top_down ? i : height - 1 - i) * row_size;
    for (int64_t j = 0; j < width; ++j, src += in_channels, dst += out_channels) {
      if (in_channels == 1) {
        dst[0] = src[0];
        if (out_channels >= 3) dst[1] = dst[2] = src[0];
        if (out_channels == 4) dst[3] = 255;
      } else {  // BGR(A) to RGB(A)
        dst[0] = src[2];
        dst[1] = src[1];
        dst[2] = src[0];
        if (out_channels == 4) dst[3] = in_channels == 4 ? src[3] : 255;
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> EncodeJpeg(const uint8_t* pixels, int64_t height, int64_t width,
                                       int channels, const JpegEncodeOptions& options) {
  if (width <= 0 || height <= 0 || width * height >= (int64_t{1} << 29) ||
      width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
    return absl::InternalError(
        absl::StrCat("JPEG encoding failed: cannot encode a ", height, " by ", width, " image"));
  }
  auto st = std::make_unique<JpegEncodeState>();
  const bool ok = EncodeJpegLow(pixels, height, width, channels, options, st.get());
  if (st->created) jpeg_destroy_compress(&st->cinfo);
  std::string out;
  if (ok) out.assign(reinterpret_cast<const char*>(st->buffer), st->size);
  free(st->buffer);
  if (!ok) return absl::InternalError(absl::StrCat("JPEG encoding failed: ", st->err.message));
  return out;
}

absl::StatusOr<std::string> EncodePng(const void* pixels, int64_t height, int64_t width,
                                      int channels, int bits, int compression) {
  if (width <= 0 || height <= 0 || width > PNG_UINT_31_MAX || height > PNG_UINT_31_MAX) {
    return absl::InternalError(
        absl::StrCat("PNG encoding failed: cannot encode a ", height, " by ", width, " image"));
  }
  std::string out;
  auto st = std::make_unique<PngWriteState>();
  st->out = &out;
  st->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &st->sink, PngError, PngWarning);
  if (st->png == nullptr) return absl::ResourceExhaustedError("out of memory for libpng");
  st->info = png_create_info_struct(st->png);
  const bool ok = st->info != nullptr &&
                  EncodePngLow(static_cast<const uint8_t*>(pixels), height, width, channels,
                               bits, compression, st.get());
  png_destroy_write_struct(&st->png, st->info != nullptr ? &st->info : nullptr);
  if (!ok) return absl::InternalError(absl::StrCat("PNG encoding failed: ", st->sink.message));
  return out;
}

// Single-threaded (libjxl without a parallel runner): the executor runs
// kernels side by side already, and the pixels are the same.
absl::Status DecodeJxl(absl::string_view data, int channels, ImageAllocator allocate) {
  if (channels != 0 && channels != 1 && channels != 3 && channels != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("JXL only supports 1, 3, or 4 channels, got ", channels));
  }
  JxlDecoderPtr decoder = JxlDecoderMake(nullptr);
  if (decoder == nullptr ||
      JxlDecoderSubscribeEvents(decoder.get(), JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE) !=
          JXL_DEC_SUCCESS) {
    return absl::InternalError("could not make a JPEG XL decoder");
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  if (JxlDecoderSetInput(decoder.get(), bytes, data.size()) != JXL_DEC_SUCCESS) {
    return absl::InvalidArgumentError("Failed to decode JXL header");
  }
  JxlDecoderCloseInput(decoder.get());
  bool have_info = false;
  ImageSize size;
  void* out = nullptr;
  JxlPixelFormat format = {0, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
  while (true) {
    const JxlDecoderStatus status = JxlDecoderProcessInput(decoder.get());
    if (status == JXL_DEC_BASIC_INFO) {
      JxlBasicInfo info;
      if (JxlDecoderGetBasicInfo(decoder.get(), &info) != JXL_DEC_SUCCESS) {
        return absl::InvalidArgumentError("Failed to decode JXL header");
      }
      size.height = info.ysize;
      size.width = info.xsize;
      size.channels = static_cast<int64_t>(info.num_color_channels) + (info.alpha_bits != 0);
      if (channels != 0 && channels != size.channels) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Number of channels requested does not match input: ", channels,
            " for an image of ", size.channels));
      }
      if (size.height > 0 &&
          static_cast<uint64_t>(size.width) * size.channels >
              MaxTensorBytes() / static_cast<uint64_t>(size.height)) {
        return absl::InvalidArgumentError(absl::StrCat("a JPEG XL image of ", size.width, "x",
                                                       size.height, " passes the limit of ",
                                                       MaxTensorBytes(), " bytes"));
      }
      absl::StatusOr<void*> buffer = allocate(size);
      if (!buffer.ok()) return buffer.status();
      out = *buffer;
      format.num_channels = static_cast<uint32_t>(size.channels);
      have_info = true;
    } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER && have_info) {
      size_t need = 0;
      if (JxlDecoderImageOutBufferSize(decoder.get(), &format, &need) != JXL_DEC_SUCCESS ||
          need != static_cast<size_t>(size.bytes()) ||
          JxlDecoderSetImageOutBuffer(decoder.get(), &format, out, need) != JXL_DEC_SUCCESS) {
        return absl::InvalidArgumentError("Failed to decode JXL image");
      }
    } else if (status == JXL_DEC_FULL_IMAGE && have_info) {
      return absl::OkStatus();  // the first frame; an animation's others are left
    } else if (!have_info) {
      return absl::InvalidArgumentError("Failed to decode JXL header");
    } else {
      return absl::InvalidArgumentError("Failed to decode JXL image");
    }
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
