// The image decoding and encoding ops, as TensorFlow's kernels behave: one
// decoding kernel for every Decode* op tells the format from the bytes, so
// DecodePng reads a JPEG and DecodeJpeg a one-frame GIF, as TensorFlow's
// do; only the output's rank and what each op refuses differ. The codecs
// are internal/image_codecs.h (libjpeg-turbo, libpng, giflib, libwebp,
// libjxl).
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/image_codecs.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class DecodeImageOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = type_string();
    if (op == "DecodeJpeg" || op == "DecodeAndCropJpeg") {
      MG_RETURN_IF_ERROR(c->GetAttr("ratio", &jpeg_.ratio));
      if (jpeg_.ratio != 1 && jpeg_.ratio != 2 && jpeg_.ratio != 4 && jpeg_.ratio != 8) {
        return absl::InvalidArgumentError(
            absl::StrCat("ratio must be 1, 2, 4, or 8, got ", jpeg_.ratio));
      }
      MG_RETURN_IF_ERROR(c->GetAttr("fancy_upscaling", &jpeg_.fancy_upscaling));
      MG_RETURN_IF_ERROR(c->GetAttr("try_recover_truncated", &jpeg_.try_recover_truncated));
      MG_RETURN_IF_ERROR(c->GetAttr("acceptable_fraction", &jpeg_.acceptable_fraction));
      std::string dct;
      MG_RETURN_IF_ERROR(c->GetAttr("dct_method", &dct));
      if (!dct.empty() && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE") {
        return absl::InvalidArgumentError(
            "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
      }
      jpeg_.accurate_dct = dct == "INTEGER_ACCURATE";
      jpeg_.crop = op == "DecodeAndCropJpeg";
    }
    if (op == "DecodePng" || op == "DecodeImage" || op == "DecodeWebP" || op == "DecodeJxl") {
      MG_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype_));
    }
    if (op == "DecodeImage") MG_RETURN_IF_ERROR(c->GetAttr("expand_animations", &expand_));
    if (op == "DecodeGif") {
      channels_ = 3;
    } else {
      MG_RETURN_IF_ERROR(c->GetAttr("channels", &channels_));
      if (channels_ != 0 && channels_ != 1 && channels_ != 3 && channels_ != 4) {
        return absl::InvalidArgumentError(
            absl::StrCat("`channels` must be 0, 1, 3 or 4 but got ", channels_));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& contents = ctx->input(0);
    if (contents.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("`contents` must be scalar but got shape",
                                                     contents.shape().DebugString()));
    }
    const std::string& input = *contents.data<std::string>();
    if (input.empty()) return absl::InvalidArgumentError("Input is empty.");
    switch (ClassifyImage(input)) {
      case ImageFormat::kJpeg:
        return Jpeg(ctx, input);
      case ImageFormat::kPng:
        return Png(ctx, input);
      case ImageFormat::kGif:
        return Gif(ctx, input);
      case ImageFormat::kBmp:
        return Bmp(ctx, input);
      case ImageFormat::kWebp:
        return Webp(ctx, input);
      case ImageFormat::kJxl:
        return Jxl(ctx, input);
      case ImageFormat::kUnknown:
        break;
    }
    return absl::InvalidArgumentError(
        "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.");
  }

 private:
  bool IsOp(const char* op) const { return type_string() == op; }

  // DecodeGif's output is 4-D whatever the format; DecodeImage's too for a
  // GIF unless expand_animations is false.
  TensorShape OutputShape(const ImageSize& s, bool frames_axis) const {
    if (frames_axis) return TensorShape({s.frames, s.height, s.width, s.channels});
    return TensorShape({s.height, s.width, s.channels});
  }

  // Decodes 8-bit samples with `decode` into the output, converted to the
  // op's dtype: uint16 scaled by 256, float by 1/255, as TensorFlow does.
  template <typename Decode>
  absl::Status Decode8(OpKernelContext* ctx, bool frames_axis, Decode decode) const {
    Tensor* out = nullptr;
    Tensor temp;
    MG_RETURN_IF_ERROR(decode([&](const ImageSize& s) -> absl::StatusOr<void*> {
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, OutputShape(s, frames_axis), &out));
      if (dtype_ == DT_UINT8) return static_cast<void*>(out->data<uint8_t>());
      MG_ASSIGN_OR_RETURN(temp, ctx->allocate_temp(DT_UINT8, out->shape()));
      return static_cast<void*>(temp.data<uint8_t>());
    }));
    if (dtype_ == DT_UINT8) return absl::OkStatus();
    const uint8_t* in = temp.data<uint8_t>();
    const int64_t n = temp.NumElements();
    if (dtype_ == DT_UINT16) {
      uint16_t* o = out->data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<uint16_t>(in[i] * 256);
    } else {
      const float scale = static_cast<float>(1.0 / 255);
      float* o = out->data<float>();
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<float>(in[i]) * scale;
    }
    return absl::OkStatus();
  }

  absl::Status Jpeg(OpKernelContext* ctx, const std::string& input) const {
    if (channels_ == 4) return absl::InvalidArgumentError("JPEG does not support 4 channels");
    if (IsOp("DecodeBmp")) {
      return absl::InvalidArgumentError(
          "Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or "
          "`decode_image` instead.");
    }
    JpegDecodeOptions options = jpeg_;
    options.channels = channels_;
    if (options.crop) {
      const Tensor& window = ctx->input(1);
      if (window.dims() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("crop_window must be 1-D, got shape ", window.shape().DebugString()));
      }
      if (window.dim_size(0) != 4) {
        return absl::InvalidArgumentError(absl::StrCat("crop_size must have four elements ",
                                                       window.shape().DebugString()));
      }
      const int32_t* w = window.data<int32_t>();
      options.crop_y = w[0];
      options.crop_x = w[1];
      options.crop_height = w[2];
      options.crop_width = w[3];
    }
    return Decode8(ctx, IsOp("DecodeGif"), [&](ImageAllocator allocate) {
      return DecodeJpeg(input, options, allocate);
    });
  }

  absl::Status Png(OpKernelContext* ctx, const std::string& input) const {
    if (IsOp("DecodeBmp")) {
      return absl::InvalidArgumentError(
          "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or "
          "`decode_image` instead.");
    }
    if (IsOp("DecodeAndCropJpeg")) {
      return absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.");
    }
    const bool frames_axis = IsOp("DecodeGif");
    if (dtype_ != DT_FLOAT) {
      Tensor* out = nullptr;
      return DecodePng(input, channels_, dtype_ == DT_UINT8 ? 8 : 16,
                       [&](const ImageSize& s) -> absl::StatusOr<void*> {
                         MG_RETURN_IF_ERROR(
                             ctx->allocate_output(0, OutputShape(s, frames_axis), &out));
                         return out->raw_data();
                       });
    }
    // float: decoded as 16 bits (lossless), then scaled by 1/65535.
    Tensor* out = nullptr;
    Tensor temp;
    MG_RETURN_IF_ERROR(
        DecodePng(input, channels_, 16, [&](const ImageSize& s) -> absl::StatusOr<void*> {
          MG_RETURN_IF_ERROR(ctx->allocate_output(0, OutputShape(s, frames_axis), &out));
          MG_ASSIGN_OR_RETURN(temp, ctx->allocate_temp(DT_UINT16, out->shape()));
          return temp.raw_data();
        }));
    const float scale = static_cast<float>(1.0 / 65535);
    const uint16_t* in = temp.data<uint16_t>();
    float* o = out->data<float>();
    for (int64_t i = 0; i < temp.NumElements(); ++i) o[i] = static_cast<float>(in[i]) * scale;
    return absl::OkStatus();
  }

  absl::Status Gif(OpKernelContext* ctx, const std::string& input) const {
    if (channels_ != 0 && channels_ != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("channels must be 0 or 3 for GIF, got ", channels_));
    }
    if (IsOp("DecodeBmp") || IsOp("DecodeWebP") || IsOp("DecodeJxl")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to decode GIF format using ", type_string(),
          " op. Use `decode_gif` or `decode_image` instead."));
    }
    if (IsOp("DecodeAndCropJpeg")) {
      return absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.");
    }
    // DecodeJpeg and DecodePng read a GIF of one frame (as 3-D).
    const bool one_frame_op = IsOp("DecodeJpeg") || IsOp("DecodePng");
    const bool all_frames = !(IsOp("DecodeImage") && !expand_);
    return Decode8(ctx, all_frames && !one_frame_op, [&](ImageAllocator allocate) {
      return DecodeGif(input, all_frames, [&](const ImageSize& s) -> absl::StatusOr<void*> {
        if (one_frame_op && s.frames != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Got ", s.frames, " frames, but animated gifs can only be decoded by "
              "tf.io.decode_gif or tf.io.decode_image"));
        }
        return allocate(s);
      });
    });
  }

  absl::Status Bmp(OpKernelContext* ctx, const std::string& input) const {
    if (!IsOp("DecodeBmp") && !IsOp("DecodeImage")) {
      if (IsOp("DecodeAndCropJpeg")) {
        return absl::InvalidArgumentError(
            "DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` "
          "instead. Op used: ",
          type_string()));
    }
    return Decode8(ctx, false, [&](ImageAllocator allocate) {
      return DecodeBmp(input, channels_, allocate);
    });
  }

  // As TensorFlow's: every decode op but DecodeAndCropJpeg reads WebP, as
  // [frames, height, width, channels] (DecodeImage without
  // expand_animations: the first frame, 3-D), in uint8 only.
  absl::Status Webp(OpKernelContext* ctx, const std::string& input) const {
    if (IsOp("DecodeAndCropJpeg")) {
      return absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected WebP.");
    }
    if (dtype_ != DT_UINT8) {
      return absl::InvalidArgumentError(
          absl::StrCat("WebP only supports uint8 for dtype, not ", DataTypeString(dtype_)));
    }
    const bool frames = !(IsOp("DecodeImage") && !expand_);
    Tensor* out = nullptr;
    return DecodeWebp(input, channels_, frames, [&](const ImageSize& s) -> absl::StatusOr<void*> {
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, OutputShape(s, frames), &out));
      return static_cast<void*>(out->data<uint8_t>());
    });
  }

  // As TensorFlow's: every decode op reads JPEG XL (DecodeAndCropJpeg
  // uncropped), the first frame as [height, width, channels] whatever the
  // op, in uint8 only.
  absl::Status Jxl(OpKernelContext* ctx, const std::string& input) const {
    if (dtype_ != DT_UINT8) {
      return absl::InvalidArgumentError(
          absl::StrCat("JXL only supports uint8 for dtype, not ", DataTypeString(dtype_)));
    }
    Tensor* out = nullptr;
    return DecodeJxl(input, channels_, [&](const ImageSize& s) -> absl::StatusOr<void*> {
      MG_RETURN_IF_ERROR(ctx->allocate_output(0, OutputShape(s, false), &out));
      return static_cast<void*>(out->data<uint8_t>());
    });
  }

  JpegDecodeOptions jpeg_;
  DataType dtype_ = DT_UINT8;
  bool expand_ = true;
  int32_t channels_ = 0;
};

class ExtractJpegShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& contents = ctx->input(0);
    if (contents.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("contents must be scalar, got shape ",
                                                     contents.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(auto shape, JpegShape(*contents.data<std::string>()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({3}), &out));
    for (int i = 0; i < 3; ++i) {
      if (out->dtype() == DT_INT32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(shape[i]);
      } else {
        out->data<int64_t>()[i] = shape[i];
      }
    }
    return absl::OkStatus();
  }
};

// The checks TensorFlow's encoders make of an image [height, width,
// channels].
absl::Status CheckImageToEncode(const Tensor& image) {
  if (image.dims() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("image must be 3-dimensional", image.shape().DebugString()));
  }
  if (image.NumElements() >= std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot encode images with >= max int32 elements"));
  }
  return absl::OkStatus();
}

// EncodeJpeg and EncodeJpegVariableQuality (whose quality is an input).
class EncodeJpegOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (type_string() == "EncodeJpegVariableQuality") return absl::OkStatus();
    MG_RETURN_IF_ERROR(c->GetAttr("format", &format_));
    int32_t quality = 0;
    MG_RETURN_IF_ERROR(c->GetAttr("quality", &quality));
    if (quality < 0 || quality > 100) {
      return absl::InvalidArgumentError(absl::StrCat("quality must be in [0,100], got ", quality));
    }
    options_.quality = quality;
    MG_RETURN_IF_ERROR(c->GetAttr("progressive", &options_.progressive));
    MG_RETURN_IF_ERROR(c->GetAttr("optimize_size", &options_.optimize_size));
    MG_RETURN_IF_ERROR(c->GetAttr("chroma_downsampling", &options_.chroma_downsampling));
    std::string unit;
    MG_RETURN_IF_ERROR(c->GetAttr("density_unit", &unit));
    options_.density_unit = unit == "cm" ? 2 : 1;
    int32_t x = 0, y = 0;
    MG_RETURN_IF_ERROR(c->GetAttr("x_density", &x));
    MG_RETURN_IF_ERROR(c->GetAttr("y_density", &y));
    options_.x_density = x;
    options_.y_density = y;
    return c->GetAttr("xmp_metadata", &options_.xmp_metadata);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& image = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckImageToEncode(image));
    JpegEncodeOptions options = options_;
    if (ctx->num_inputs() == 2) {
      const Tensor& quality = ctx->input(1);
      if (quality.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat("quality must be scalar: ",
                                                       quality.shape().DebugString()));
      }
      options.quality = *quality.data<int32_t>();
      if (options.quality < 0 || options.quality > 100) {
        return absl::InvalidArgumentError(
            absl::StrCat("quality must be in [0,100], got ", options.quality));
      }
    }
    const int64_t channels = image.dim_size(2);
    if (format_.empty()) {
      if (channels != 1 && channels != 3) {
        return absl::InvalidArgumentError(
            absl::StrCat("image must have 1 or 3 channels, got ", image.shape().DebugString()));
      }
    } else if (channels != (format_ == "grayscale" ? 1 : 3)) {
      return absl::InvalidArgumentError(absl::StrCat("format ", format_, " expects ",
                                                     format_ == "grayscale" ? 1 : 3,
                                                     " channels, got ",
                                                     image.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::string bytes,
                        EncodeJpeg(image.data<uint8_t>(), image.dim_size(0), image.dim_size(1),
                                   static_cast<int>(channels), options));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<std::string>() = std::move(bytes);
    return absl::OkStatus();
  }

 private:
  std::string format_;
  JpegEncodeOptions options_;
};

class EncodePngOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("compression", &compression_));
    if (compression_ < -1 || compression_ > 9) {
      return absl::InvalidArgumentError(
          absl::StrCat("compression should be in [-1,9], got ", compression_));
    }
    DataType t;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &t));
    bits_ = t == DT_UINT16 ? 16 : 8;
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& image = ctx->input(0);
    MG_RETURN_IF_ERROR(CheckImageToEncode(image));
    const int64_t channels = image.dim_size(2);
    if (channels < 1 || channels > 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("image must have 1, 2, 3, or 4 channels, got ", channels));
    }
    MG_ASSIGN_OR_RETURN(std::string bytes,
                        EncodePng(image.raw_data(), image.dim_size(0), image.dim_size(1),
                                  static_cast<int>(channels), bits_, compression_));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &out));
    *out->data<std::string>() = std::move(bytes);
    return absl::OkStatus();
  }

 private:
  int32_t compression_ = -1;
  int bits_ = 8;
};

}  // namespace

void RegisterImageCodecKernels(KernelRegistry* r) {
  for (const char* op : {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeGif",
                         "DecodeWebP", "DecodeJxl", "DecodeBmp", "DecodeImage"}) {
    r->Register(op, MakeFactory<DecodeImageOp>());
  }
  r->Register("ExtractJpegShape", MakeFactory<ExtractJpegShapeOp>());
  r->Register("EncodeJpeg", MakeFactory<EncodeJpegOp>());
  r->Register("EncodeJpegVariableQuality", MakeFactory<EncodeJpegOp>());
  r->Register("EncodePng", MakeFactory<EncodePngOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
