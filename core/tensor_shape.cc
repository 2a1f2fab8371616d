#include "core/tensor_shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"
#include "core/status_macros.h"

namespace minigraph {

absl::StatusOr<TensorShape> TensorShape::Build(absl::Span<const int64_t> dims) {
  TensorShape shape;
  for (int64_t d : dims) {
    absl::Status s = shape.AddDim(d);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          s.message(), " in shape [", absl::StrJoin(dims, ","), "]"));
    }
  }
  return shape;
}

absl::StatusOr<TensorShape> TensorShape::FromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError("shape has unknown rank");
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return Build(dims);
}

TensorShape::TensorShape(std::initializer_list<int64_t> dims)
    : TensorShape(absl::Span<const int64_t>(dims.begin(), dims.size())) {}

TensorShape::TensorShape(absl::Span<const int64_t> dims) {
  for (int64_t d : dims) {
    absl::Status s = AddDim(d);
    MG_CHECK(s.ok()) << s;
  }
}

absl::Status TensorShape::AddDim(int64_t size) {
  if (size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dimension ", dims_.size(), " is negative (", size, ")"));
  }
  if (dims_.size() >= static_cast<size_t>(kMaxDims)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rank exceeds the maximum of ", kMaxDims));
  }
  int64_t product;
  if (__builtin_mul_overflow(num_elements_, size, &product)) {
    return absl::InvalidArgumentError("number of elements overflows int64");
  }
  dims_.push_back(size);
  num_elements_ = product;
  return absl::OkStatus();
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

}  // namespace minigraph
