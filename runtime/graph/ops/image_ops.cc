// Image ops: decoding and encoding JPEG, PNG, GIF and BMP bytes, and
// resizing (bilinear, nearest neighbour) with the gradients. Signatures and
// shape functions are TensorFlow's (tensorflow/core/ops/image_ops.cc).
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

constexpr char kJpegAttrs[][48] = {
    "channels: int = 0",          "ratio: int = 1",
    "fancy_upscaling: bool = true", "try_recover_truncated: bool = false",
    "acceptable_fraction: float = 1.0", "dct_method: string = \"\"",
};

// The `channels` attr as a dimension: 0 (as in the image) is unknown.
absl::StatusOr<int64_t> ChannelsDim(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(int64_t channels, c->GetAttr<int64_t>("channels"));
  if (channels < 0) {
    return c->Error(absl::StrCat("channels must be non-negative, got ", channels));
  }
  return channels == 0 ? -1 : channels;
}

// A dimension from a constant's element: unknown when negative.
int64_t KnownDim(int64_t v) { return v >= 0 ? v : -1; }

// DecodeJpeg, DecodePng, DecodeBmp: one image [height, width, channels].
absl::Status DecodeImageShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
  MG_ASSIGN_OR_RETURN(int64_t channels, ChannelsDim(c));
  c->set_output(0, PartialShape({-1, -1, channels}));
  return absl::OkStatus();
}

// DecodeImage: a GIF's frames are a 4-D tensor unless expand_animations is
// false, so the rank is unknown then.
absl::Status DecodeImageV2Shape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
  MG_ASSIGN_OR_RETURN(int64_t channels, ChannelsDim(c));
  MG_ASSIGN_OR_RETURN(bool expand, c->GetAttr<bool>("expand_animations"));
  c->set_output(0, expand ? PartialShape() : PartialShape({-1, -1, channels}));
  return absl::OkStatus();
}

// The crop window [y, x, height, width] gives the output's size when it is
// a constant.
absl::Status DecodeAndCropJpegShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
  MG_ASSIGN_OR_RETURN(int64_t channels, ChannelsDim(c));
  MG_ASSIGN_OR_RETURN(PartialShape window, c->WithRank(1, 1));
  if (window.dim(0) >= 0 && window.dim(0) != 4) {
    return c->Error(absl::StrCat("crop_window must have 4 elements, but has shape ",
                                 window.DebugString()));
  }
  int64_t height = -1, width = -1;
  const Tensor* w = c->input_tensor(1);
  if (w != nullptr && w->dtype() == DT_INT32 && w->NumElements() == 4) {
    height = KnownDim(w->data<int32_t>()[2]);
    width = KnownDim(w->data<int32_t>()[3]);
  }
  c->set_output(0, PartialShape({height, width, channels}));
  return absl::OkStatus();
}

absl::Status DecodeGifShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
  c->set_output(0, PartialShape({-1, -1, -1, 3}));
  return absl::OkStatus();
}

// EncodeJpeg, EncodePng: one image in, one string out.
absl::Status EncodeImageShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 3).status());
  for (int i = 1; i < c->num_inputs(); ++i) MG_RETURN_IF_ERROR(c->WithRank(i, 0).status());
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status ExtractJpegShapeShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(c->WithRank(0, 0).status());
  c->set_output(0, PartialShape({3}));
  return absl::OkStatus();
}

// Input `size` (int32 [2]): the output's height and width when constant.
absl::Status SizedImage(InferenceContext* c, int64_t batch, int64_t channels) {
  MG_ASSIGN_OR_RETURN(PartialShape size, c->WithRank(1, 1));
  if (size.dim(0) >= 0 && size.dim(0) != 2) {
    return c->Error(absl::StrCat("size must have 2 elements, but has shape ", size.DebugString()));
  }
  int64_t height = -1, width = -1;
  const Tensor* t = c->input_tensor(1);
  if (t != nullptr) {
    if (t->dtype() != DT_INT32) {
      return c->Error(absl::StrCat("Bad size input type for SetOutputToSizedImage: Expected "
                                   "DT_INT32 but got ",
                                   DataTypeString(t->dtype()), " for input #1"));
    }
    if (t->NumElements() == 2) {
      height = KnownDim(t->data<int32_t>()[0]);
      width = KnownDim(t->data<int32_t>()[1]);
    }
  }
  c->set_output(0, PartialShape({batch, height, width, channels}));
  return absl::OkStatus();
}

// ResizeBilinear, ResizeNearestNeighbor and ResizeNearestNeighborGrad.
absl::Status ResizeShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape images, c->WithRank(0, 4));
  return SizedImage(c, images.dim(0), images.dim(3));
}

// ResizeBilinearGrad: the original image's shape.
absl::Status ResizeBilinearGradShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  return absl::OkStatus();
}

OpDefBuilder DecodeJpegOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("contents: string");
  if (absl::string_view(name) == "DecodeAndCropJpeg") b.Input("crop_window: int32");
  b.Output("image: uint8");
  for (const char* attr : kJpegAttrs) b.Attr(attr);
  return b;
}

constexpr char kResizeTypes[] =
    "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}";

}  // namespace

void RegisterImageOps(OpRegistry* r) {
  MG_REGISTER_OP(r, DecodeJpegOp("DecodeJpeg").SetShapeFn(DecodeImageShape));
  MG_REGISTER_OP(r, DecodeJpegOp("DecodeAndCropJpeg").SetShapeFn(DecodeAndCropJpegShape));
  MG_REGISTER_OP(r, OpDefBuilder("DecodePng")
                        .Input("contents: string")
                        .Output("image: dtype")
                        .Attr("channels: int = 0")
                        .Attr("dtype: {uint8, uint16} = uint8")
                        .SetShapeFn(DecodeImageShape));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeGif")
                        .Input("contents: string")
                        .Output("image: uint8")
                        .SetShapeFn(DecodeGifShape));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeBmp")
                        .Input("contents: string")
                        .Output("image: uint8")
                        .Attr("channels: int = 0")
                        .SetShapeFn(DecodeImageShape));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeImage")
                        .Input("contents: string")
                        .Output("image: dtype")
                        .Attr("channels: int = 0")
                        .Attr("dtype: {uint8, uint16, float} = uint8")
                        .Attr("expand_animations: bool = true")
                        .SetShapeFn(DecodeImageV2Shape));
  MG_REGISTER_OP(r, OpDefBuilder("ExtractJpegShape")
                        .Input("contents: string")
                        .Output("image_shape: output_type")
                        .Attr("output_type: {int32, int64} = int32")
                        .SetShapeFn(ExtractJpegShapeShape));
  MG_REGISTER_OP(r, OpDefBuilder("EncodeJpeg")
                        .Input("image: uint8")
                        .Output("contents: string")
                        .Attr("format: {\"\", \"grayscale\", \"rgb\"} = \"\"")
                        .Attr("quality: int = 95")
                        .Attr("progressive: bool = false")
                        .Attr("optimize_size: bool = false")
                        .Attr("chroma_downsampling: bool = true")
                        .Attr("density_unit: {\"in\", \"cm\"} = \"in\"")
                        .Attr("x_density: int = 300")
                        .Attr("y_density: int = 300")
                        .Attr("xmp_metadata: string = \"\"")
                        .SetShapeFn(EncodeImageShape));
  MG_REGISTER_OP(r, OpDefBuilder("EncodeJpegVariableQuality")
                        .Input("images: uint8")
                        .Input("quality: int32")
                        .Output("contents: string")
                        .SetShapeFn(EncodeImageShape));
  MG_REGISTER_OP(r, OpDefBuilder("EncodePng")
                        .Input("image: T")
                        .Output("contents: string")
                        .Attr("compression: int = -1")
                        .Attr("T: {uint8, uint16} = uint8")
                        .SetShapeFn(EncodeImageShape));
  MG_REGISTER_OP(r, OpDefBuilder("ResizeBilinear")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: float")
                        .Attr(kResizeTypes)
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false")
                        .SetShapeFn(ResizeShape));
  MG_REGISTER_OP(r, OpDefBuilder("ResizeBilinearGrad")
                        .Input("grads: float")
                        .Input("original_image: T")
                        .Output("output: T")
                        .Attr("T: {float, bfloat16, half, double}")
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false")
                        .SetShapeFn(ResizeBilinearGradShape));
  MG_REGISTER_OP(r, OpDefBuilder("ResizeNearestNeighbor")
                        .Input("images: T")
                        .Input("size: int32")
                        .Output("resized_images: T")
                        .Attr(kResizeTypes)
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false")
                        .SetShapeFn(ResizeShape));
  MG_REGISTER_OP(r, OpDefBuilder("ResizeNearestNeighborGrad")
                        .Input("grads: T")
                        .Input("size: int32")
                        .Output("output: T")
                        .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
                        .Attr("align_corners: bool = false")
                        .Attr("half_pixel_centers: bool = false")
                        .SetShapeFn(ResizeShape));
}

}  // namespace ops_internal
}  // namespace minigraph
