#include "core/tensor_slice.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace minigraph {

TensorSlice TensorSlice::Full(int rank) {
  TensorSlice s;
  s.starts_.assign(rank, 0);
  s.lengths_.assign(rank, kFullExtent);
  return s;
}

absl::StatusOr<TensorSlice> TensorSlice::Parse(absl::string_view spec) {
  TensorSlice s;
  if (spec.empty()) return s;
  for (absl::string_view d : absl::StrSplit(spec, ':')) {
    if (d == "-") {
      s.starts_.push_back(0);
      s.lengths_.push_back(kFullExtent);
      continue;
    }
    std::pair<absl::string_view, absl::string_view> sl = absl::StrSplit(d, ',');
    int64_t start, length;
    if (!absl::SimpleAtoi(sl.first, &start) || !absl::SimpleAtoi(sl.second, &length) || start < 0 ||
        length < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice \"", spec, "\": dimension ", s.dims(), " is \"", d,
                       "\", not \"start,length\" (both >= 0) or \"-\""));
    }
    s.starts_.push_back(start);
    s.lengths_.push_back(length);
  }
  return s;
}

absl::StatusOr<TensorSlice> TensorSlice::FromProto(const TensorSliceProto& proto) {
  TensorSlice s;
  for (const TensorSliceProto::Extent& e : proto.extent()) {
    const bool whole = e.has_length_case() == TensorSliceProto::Extent::HAS_LENGTH_NOT_SET;
    if (e.start() < 0 || (!whole && e.length() < 0)) {
      return absl::InvalidArgumentError(absl::StrCat("slice with a negative extent (dimension ",
                                                     s.dims(), ": ", e.ShortDebugString(), ")"));
    }
    s.starts_.push_back(whole ? 0 : e.start());
    s.lengths_.push_back(whole ? kFullExtent : e.length());
  }
  return s;
}

bool TensorSlice::Covers(const TensorShape& shape) const {
  if (dims() != shape.dims()) return false;
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d) && (starts_[d] != 0 || lengths_[d] != shape.dim_size(d))) return false;
  }
  return true;
}

absl::Status TensorSlice::CheckWithin(const TensorShape& shape) const {
  if (dims() != shape.dims()) {
    return absl::InvalidArgumentError(absl::StrCat("slice \"", DebugString(), "\" has ", dims(),
                                                   " dimensions but the shape ",
                                                   shape.DebugString(), " has ", shape.dims()));
  }
  for (int d = 0; d < dims(); ++d) {
    if (!IsFullAt(d) &&
        (starts_[d] > shape.dim_size(d) || lengths_[d] > shape.dim_size(d) - starts_[d])) {
      return absl::InvalidArgumentError(absl::StrCat("slice \"", DebugString(),
                                                     "\" reaches past the shape ",
                                                     shape.DebugString(), " in dimension ", d));
    }
  }
  return absl::OkStatus();
}

TensorShape TensorSlice::SliceShape(const TensorShape& shape) const {
  std::vector<int64_t> dims(shape.dim_sizes().begin(), shape.dim_sizes().end());
  for (int d = 0; d < this->dims(); ++d) {
    if (!IsFullAt(d)) dims[d] = lengths_[d];
  }
  return TensorShape(dims);
}

bool TensorSlice::Intersect(const TensorSlice& other, const TensorShape& shape,
                            TensorSlice* result) const {
  TensorSlice r;
  for (int d = 0; d < dims(); ++d) {
    const int64_t a0 = start(d), a1 = IsFullAt(d) ? shape.dim_size(d) : a0 + length(d);
    const int64_t b0 = other.start(d),
                  b1 = other.IsFullAt(d) ? shape.dim_size(d) : b0 + other.length(d);
    const int64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
    if (lo >= hi) return false;
    r.starts_.push_back(lo);
    r.lengths_.push_back(hi - lo);
  }
  *result = std::move(r);
  return true;
}

void TensorSlice::AsProto(TensorSliceProto* proto) const {
  proto->Clear();
  for (int d = 0; d < dims(); ++d) {
    TensorSliceProto::Extent* e = proto->add_extent();
    if (IsFullAt(d)) continue;
    e->set_start(starts_[d]);
    e->set_length(lengths_[d]);
  }
}

std::string TensorSlice::DebugString() const {
  std::vector<std::string> parts;
  for (int d = 0; d < dims(); ++d) {
    parts.push_back(IsFullAt(d) ? "-" : absl::StrCat(starts_[d], ",", lengths_[d]));
  }
  return absl::StrJoin(parts, ":");
}

TensorSlice TensorSlice::FromExtents(std::vector<int64_t> starts, std::vector<int64_t> lengths) {
  TensorSlice s;
  s.starts_ = std::move(starts);
  s.lengths_ = std::move(lengths);
  return s;
}

absl::StatusOr<std::optional<ShapeAndSlice>> ParseShapeAndSlice(absl::string_view spec) {
  if (spec.empty()) return std::nullopt;
  std::vector<absl::string_view> parts = absl::StrSplit(spec, ' ');
  const absl::string_view slice = parts.back();
  parts.pop_back();
  ShapeAndSlice s;
  for (absl::string_view d : parts) {
    int64_t dim;
    if (!absl::SimpleAtoi(d, &dim) || !s.full.AddDim(dim).ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape and slice \"", spec, "\": \"", d, "\" is not a dimension size"));
    }
  }
  MG_ASSIGN_OR_RETURN(s.slice, TensorSlice::Parse(slice));
  MG_RETURN_IF_ERROR(s.slice.CheckWithin(s.full));
  return s;
}

std::string ShapeAndSliceString(const TensorShape& full, const TensorSlice& slice) {
  return absl::StrCat(absl::StrJoin(full.dim_sizes(), " "), " ", slice.DebugString());
}

}  // namespace minigraph
