#include "runtime/graph/partial_shape.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minigraph {

PartialShape PartialShape::FromProto(const TensorShapeProto& p) {
  if (p.unknown_rank()) return PartialShape();
  std::vector<int64_t> dims;
  for (const auto& d : p.dim()) dims.push_back(d.size() < 0 ? -1 : d.size());
  return PartialShape(std::move(dims));
}

bool PartialShape::IsFullyDefined() const {
  if (!known_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(const TensorShape& s) const {
  if (!known_) return true;
  if (s.dims() != rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != s.dim_size(i)) return false;
  }
  return true;
}

std::string PartialShape::DebugString() const {
  if (!known_) return "?";
  // A shape of thousands of dimensions (a corrupt or hostile graph) would
  // make every message that names it kilobytes long: show the first ones.
  constexpr size_t kShown = 16;
  const size_t shown = std::min(dims_.size(), kShown);
  std::string out = absl::StrCat(
      "[",
      absl::StrJoin(dims_.begin(), dims_.begin() + shown, ",", [](std::string* out, int64_t d) {
        absl::StrAppend(out, d < 0 ? "?" : absl::StrCat(d));
      }));
  if (shown < dims_.size()) absl::StrAppend(&out, ",... (", dims_.size(), " dimensions)");
  return out + "]";
}

void PartialShape::AsProto(TensorShapeProto* p) const {
  p->Clear();
  if (!known_) {
    p->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) p->add_dim()->set_size(d);
}

absl::StatusOr<PartialShape> PartialShape::Merge(const PartialShape& a, const PartialShape& b) {
  if (!a.known_) return b;
  if (!b.known_) return a;
  auto incompatible = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("shapes ", a.DebugString(), " and ", b.DebugString(), " are incompatible"));
  };
  if (a.rank() != b.rank()) return incompatible();
  std::vector<int64_t> dims(a.rank());
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dims_[i] >= 0 && b.dims_[i] >= 0 && a.dims_[i] != b.dims_[i]) return incompatible();
    dims[i] = a.dims_[i] >= 0 ? a.dims_[i] : b.dims_[i];
  }
  return PartialShape(std::move(dims));
}

absl::StatusOr<PartialShape> PartialShape::Broadcast(const PartialShape& a, const PartialShape& b) {
  if (!a.known_ || !b.known_) return PartialShape();
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dims_[ia] : 1;
    const int64_t db = ib >= 0 ? b.dims_[ib] : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da < 0 || db < 0) {
      dims[i] = da < 0 ? db : da;  // unknown vs n: n (or broadcast error at run time)
    } else if (da == db) {
      dims[i] = da;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "incompatible shapes for broadcasting: ", a.DebugString(), " and ", b.DebugString()));
    }
  }
  return PartialShape(std::move(dims));
}

}  // namespace minigraph
