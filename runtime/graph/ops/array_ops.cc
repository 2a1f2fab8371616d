// Array ops: constants, placeholders, shapes, reshaping, joining, gathering.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"
#include "runtime/graph/strided_slice.h"

namespace minigraph {
namespace ops_internal {
namespace {

// Shape functions of the slicing ops: exact when the inputs they need are
// constants, else as much as the ranks tell.

PartialShape UnknownLike(const PartialShape& s) {
  return s.rank_known() ? PartialShape::UnknownOfRank(s.rank()) : PartialShape();
}

absl::Status ExpandDimsShape(InferenceContext* c) {
  std::vector<int64_t> axis;
  const PartialShape& in = c->input(0);
  if (!in.rank_known() || !c->ConstantInts(1, &axis) || axis.size() != 1) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int rank = in.rank();
  int64_t a = axis[0];
  if (a < -rank - 1 || a > rank) {
    return c->Error(absl::StrCat("Tried to expand dim index ", a, " for tensor with ", rank,
                                 " dimensions."));
  }
  if (a < 0) a += rank + 1;
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + a, 1);
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status SqueezeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  MG_ASSIGN_OR_RETURN(std::vector<int64_t> axes, c->GetAttr<std::vector<int64_t>>("squeeze_dims"));
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int rank = in.rank();
  std::vector<bool> drop(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return c->Error(absl::StrCat("Tried to squeeze dim index ", a, " for input with ", rank,
                                   " dimensions."));
    }
    if (a < 0) a += rank;
    if (in.dim(a) >= 0 && in.dim(a) != 1) {
      return c->Error(absl::StrCat("Can not squeeze dim[", a, "], expected a dimension of 1, got ",
                                   in.dim(a)));
    }
    drop[a] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    if (axes.empty()) {
      if (in.dim(i) < 0) {  // might be 1
        c->set_output(0, PartialShape());
        return absl::OkStatus();
      }
      if (in.dim(i) == 1) continue;
    } else if (drop[i]) {
      continue;
    }
    dims.push_back(in.dim(i));
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status TransposeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> perm;
  if (!c->ConstantInts(1, &perm)) {
    c->set_output(0, UnknownLike(in));
    return absl::OkStatus();
  }
  if (in.rank_known() && static_cast<int>(perm.size()) != in.rank()) {
    return c->Error(absl::StrCat("perm has ", perm.size(), " entries for an input of rank ",
                                 in.rank()));
  }
  std::vector<int64_t> dims(perm.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(perm.size())) {
      return c->Error(absl::StrCat("perm[", i, "] = ", perm[i], " is out of range"));
    }
    if (in.rank_known()) dims[i] = in.dim(perm[i]);
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status SliceShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> begin, size;
  if (!in.rank_known() || !c->ConstantInts(1, &begin) || !c->ConstantInts(2, &size) ||
      static_cast<int>(begin.size()) != in.rank() || size.size() != begin.size()) {
    c->set_output(0, UnknownLike(in));
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(size.size());
  for (size_t i = 0; i < size.size(); ++i) {
    dims[i] = size[i] != -1 ? size[i] : (in.dim(i) >= 0 ? in.dim(i) - begin[i] : -1);
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status StridedSliceShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> begin, end, strides;
  if (!in.rank_known() || !c->ConstantInts(1, &begin) || !c->ConstantInts(2, &end) ||
      !c->ConstantInts(3, &strides)) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  StridedSliceMasks m;
  MG_ASSIGN_OR_RETURN(m.begin, c->GetAttr<int64_t>("begin_mask"));
  MG_ASSIGN_OR_RETURN(m.end, c->GetAttr<int64_t>("end_mask"));
  MG_ASSIGN_OR_RETURN(m.ellipsis, c->GetAttr<int64_t>("ellipsis_mask"));
  MG_ASSIGN_OR_RETURN(m.new_axis, c->GetAttr<int64_t>("new_axis_mask"));
  MG_ASSIGN_OR_RETURN(m.shrink_axis, c->GetAttr<int64_t>("shrink_axis_mask"));
  absl::StatusOr<StridedSlice> s = ResolveStridedSlice(in.dims(), begin, end, strides, m);
  if (!s.ok()) return c->Error(s.status().message());
  c->set_output(0, PartialShape(s->output_dims));
  return absl::OkStatus();
}

// The shape a shape-vector input of shape `shape` (not constant) describes:
// unknown dimensions, as many as its length when that is known.
PartialShape OfLength(const PartialShape& shape) {
  return shape.rank_known() && shape.rank() == 1 && shape.dim(0) >= 0
             ? PartialShape::UnknownOfRank(static_cast<int>(shape.dim(0)))
             : PartialShape();
}

// Output 0 shaped by the constant int vector input `i`, else of rank its
// length (when known).
absl::Status ShapeFromConstInput(InferenceContext* c, int i) {
  std::vector<int64_t> dims;
  c->set_output(0, c->ConstantInts(i, &dims) ? PartialShape(dims) : OfLength(c->input(i)));
  return absl::OkStatus();
}

absl::Status TileShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> m;
  if (!in.rank_known() || !c->ConstantInts(1, &m)) {
    c->set_output(0, UnknownLike(in));
    return absl::OkStatus();
  }
  if (static_cast<int>(m.size()) != in.rank()) {
    return c->Error(absl::StrCat("multiples has ", m.size(), " entries for an input of rank ",
                                 in.rank()));
  }
  std::vector<int64_t> dims(m.size());
  for (size_t i = 0; i < m.size(); ++i) dims[i] = in.dim(i) >= 0 ? in.dim(i) * m[i] : -1;
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status PadShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> p;
  if (!in.rank_known() || !c->ConstantInts(1, &p)) {
    c->set_output(0, UnknownLike(in));
    return absl::OkStatus();
  }
  if (static_cast<int>(p.size()) != 2 * in.rank()) {
    return c->Error(absl::StrCat("paddings must be a matrix with 2 columns and ", in.rank(),
                                 " rows"));
  }
  std::vector<int64_t> dims(in.rank());
  for (int i = 0; i < in.rank(); ++i) {
    dims[i] = in.dim(i) >= 0 ? in.dim(i) + p[2 * i] + p[2 * i + 1] : -1;
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// Split (axis input 0, value 1) and SplitV (value 0, sizes 1, axis 2).
absl::Status SplitShape(InferenceContext* c, bool v) {
  const PartialShape& in = c->input(v ? 0 : 1);
  const int n = c->num_outputs();
  std::vector<int64_t> axis, sizes;
  const bool known = in.rank_known() && c->ConstantInts(v ? 2 : 0, &axis) && axis.size() == 1 &&
                     (!v || c->ConstantInts(1, &sizes));
  if (!known) {
    for (int i = 0; i < n; ++i) c->set_output(i, UnknownLike(in));
    return absl::OkStatus();
  }
  int64_t a = axis[0];
  if (a < -in.rank() || a >= in.rank()) {
    return c->Error(absl::StrCat("split_dim ", a, " is out of range for rank ", in.rank()));
  }
  if (a < 0) a += in.rank();
  const int64_t d = in.dim(a);
  if (!v) {
    if (d >= 0 && d % n != 0) {
      return c->Error(absl::StrCat("Number of ways to split should evenly divide the split "
                                   "dimension, but got split_dim ",
                                   a, " (size = ", d, ") and num_split ", n));
    }
    sizes.assign(n, d >= 0 ? d / n : -1);
  } else {
    int64_t known_sum = 0;
    int unknown = -1;
    for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
      if (sizes[i] == -1) unknown = i; else known_sum += sizes[i];
    }
    if (unknown >= 0) sizes[unknown] = d >= 0 ? d - known_sum : -1;
  }
  for (int i = 0; i < n && i < static_cast<int>(sizes.size()); ++i) {
    std::vector<int64_t> dims = in.dims();
    dims[a] = sizes[i];
    c->set_output(i, PartialShape(dims));
  }
  return absl::OkStatus();
}

absl::Status UnpackShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  MG_ASSIGN_OR_RETURN(int64_t axis, c->GetAttr<int64_t>("axis"));
  PartialShape out;
  if (in.rank_known()) {
    if (axis < -in.rank() || axis >= in.rank()) {
      return c->Error(absl::StrCat("axis ", axis, " is out of range for rank ", in.rank()));
    }
    if (axis < 0) axis += in.rank();
    if (in.dim(axis) >= 0 && in.dim(axis) != c->num_outputs()) {
      return c->Error(absl::StrCat("Dimension must be ", c->num_outputs(), " but is ",
                                   in.dim(axis)));
    }
    std::vector<int64_t> dims = in.dims();
    dims.erase(dims.begin() + axis);
    out = PartialShape(dims);
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status OneHotShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  MG_ASSIGN_OR_RETURN(int64_t axis, c->GetAttr<int64_t>("axis"));
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (axis < -1 || axis > in.rank()) {
    return c->Error(absl::StrCat("axis must be -1 or between [0, ", in.rank(), "], got ", axis));
  }
  std::vector<int64_t> depth;
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + (axis == -1 ? in.rank() : axis),
              c->ConstantInts(1, &depth) && depth.size() == 1 ? depth[0] : -1);
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status RangeShape(InferenceContext* c) {
  const Tensor* t[3] = {c->input_tensor(0), c->input_tensor(1), c->input_tensor(2)};
  if (t[0] == nullptr || t[1] == nullptr || t[2] == nullptr || t[0]->NumElements() != 1 ||
      t[1]->NumElements() != 1 || t[2]->NumElements() != 1) {
    c->set_output(0, PartialShape({-1}));
    return absl::OkStatus();
  }
  auto get = [](const Tensor* x) -> double {
    switch (x->dtype()) {
      case DT_INT32: return x->data<int32_t>()[0];
      case DT_INT64: return static_cast<double>(x->data<int64_t>()[0]);
      case DT_FLOAT: return x->data<float>()[0];
      case DT_DOUBLE: return x->data<double>()[0];
      default: return std::nan("");
    }
  };
  const double start = get(t[0]), limit = get(t[1]), delta = get(t[2]);
  if (std::isnan(start) || std::isnan(limit) || std::isnan(delta) || delta == 0 ||
      (delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    c->set_output(0, PartialShape({-1}));  // the kernel names the problem
    return absl::OkStatus();
  }
  const bool integral = t[0]->dtype() == DT_INT32 || t[0]->dtype() == DT_INT64;
  const int64_t size =
      integral ? static_cast<int64_t>((std::abs(limit - start) + std::abs(delta) - 1) /
                                      std::abs(delta))
               : static_cast<int64_t>(std::ceil(std::abs((limit - start) / delta)));
  c->set_output(0, PartialShape({size}));
  return absl::OkStatus();
}

absl::Status ConstShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(Tensor value, c->GetAttr<Tensor>("value"));
  MG_ASSIGN_OR_RETURN(DataType dtype, c->GetAttr<DataType>("dtype"));
  if (value.dtype() != dtype) {
    return c->Error(absl::StrCat("value has dtype ", DataTypeString(value.dtype()),
                                 " but the dtype attr is ", DataTypeString(dtype)));
  }
  c->set_output(0, PartialShape::FromShape(value.shape()));
  return absl::OkStatus();
}

absl::Status PlaceholderShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
  // Graphs up to version 21 wrote an unknown shape as a `shape` attr without
  // dimensions, which later versions read as a scalar.
  if (c->graph_def_version() <= kLegacyPlaceholderShapeVersion && s.rank() <= 0) {
    s = PartialShape();
  }
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
  if (!PartialShape::Merge(s, c->input(0)).ok()) {
    return c->Error(absl::StrCat("default of shape ", c->input(0).DebugString(),
                                 " does not match the shape attr ", s.DebugString()));
  }
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status FillShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (c->ConstantInts(0, &dims)) {
    for (int64_t d : dims) {
      if (d < 0) return c->Error(absl::StrCat("Fill dims must be >= 0, got ", d));
    }
    c->set_output(0, PartialShape(dims));
  } else {
    c->set_output(0, OfLength(c->input(0)));
  }
  return absl::OkStatus();
}

absl::Status BroadcastToShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  // Without a constant `shape`, the rank is its length. (Input 0 is the
  // value broadcast, not a shape: its values say nothing of the output's.)
  if (!c->ConstantInts(1, &dims)) return ShapeFromConstInput(c, 1);
  auto b = PartialShape::Broadcast(c->input(0), PartialShape(dims));
  if (!b.ok() || (c->input(0).rank_known() && c->input(0).rank() > static_cast<int>(dims.size()))) {
    return c->Error(absl::StrCat("cannot broadcast ", c->input(0).DebugString(), " to ",
                                 PartialShape(dims).DebugString()));
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// Each output: [?] + data.shape[partitions.rank:], where partitions' shape
// must be a prefix of data's.
absl::Status DynamicPartitionShape(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  const PartialShape& partitions = c->input(1);
  PartialShape out;
  if (data.rank_known() && partitions.rank_known()) {
    if (data.rank() < partitions.rank()) {
      return c->Error(absl::StrCat("data has rank ", data.rank(), ", less than partitions' ",
                                   partitions.rank()));
    }
    for (int i = 0; i < partitions.rank(); ++i) {
      if (data.dim(i) >= 0 && partitions.dim(i) >= 0 && data.dim(i) != partitions.dim(i)) {
        return c->Error(absl::StrCat("data's shape ", data.DebugString(),
                                     " does not start with partitions' shape ",
                                     partitions.DebugString()));
      }
    }
    std::vector<int64_t> dims = {-1};
    dims.insert(dims.end(), data.dims().begin() + partitions.rank(), data.dims().end());
    out = PartialShape(std::move(dims));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// The stitched output: [max index + 1] + data[i].shape[indices[i].rank:],
// the first dimension known only for constant indices.
absl::Status DynamicStitchShape(InferenceContext* c) {
  const int n = c->num_inputs() / 2;
  int64_t max_index = -1;
  bool all_const = true;
  PartialShape inner;
  for (int i = 0; i < n; ++i) {
    const PartialShape& idx = c->input(i);
    const PartialShape& data = c->input(n + i);
    if (idx.rank_known() && data.rank_known()) {
      if (data.rank() < idx.rank()) {
        return c->Error(absl::StrCat("data[", i, "] has rank ", data.rank(), ", less than indices[",
                                     i, "]'s ", idx.rank()));
      }
      auto merged = PartialShape::Merge(
          inner,
          PartialShape(std::vector<int64_t>(data.dims().begin() + idx.rank(), data.dims().end())));
      if (!merged.ok()) return c->Error(merged.status().message());
      inner = *merged;
    }
    std::vector<int64_t> values;
    if (c->ConstantInts(i, &values)) {
      for (int64_t v : values) max_index = std::max(max_index, v);
    } else {
      all_const = false;
    }
  }
  if (!inner.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = {all_const ? max_index + 1 : -1};
  dims.insert(dims.end(), inner.dims().begin(), inner.dims().end());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status ShapeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape({in.rank_known() ? in.rank() : -1}));
  return absl::OkStatus();
}

absl::Status ReshapeShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (!c->ConstantInts(1, &dims)) {
    c->set_output(0, OfLength(c->input(1)));
    return absl::OkStatus();
  }
  int unknown = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) return c->Error("Reshape shape has more than one -1");
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return c->Error(absl::StrCat("Reshape shape has a negative dimension ", dims[i]));
    } else {
      known_product *= dims[i];
    }
  }
  const PartialShape& in = c->input(0);
  if (in.IsFullyDefined()) {
    int64_t n = 1;
    for (int64_t d : in.dims()) n *= d;
    if (unknown >= 0) {
      if (known_product == 0 || n % known_product != 0) {
        return c->Error(absl::StrCat("cannot reshape a tensor of ", n, " elements to ",
                                     PartialShape(dims).DebugString()));
      }
      dims[unknown] = n / known_product;
    } else if (n != known_product) {
      return c->Error(absl::StrCat("cannot reshape a tensor of ", n, " elements (shape ",
                                   in.DebugString(), ") to shape ",
                                   PartialShape(dims).DebugString()));
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status PackShape(InferenceContext* c) {
  PartialShape s;
  for (int i = 0; i < c->num_inputs(); ++i) {
    auto merged = PartialShape::Merge(s, c->input(i));
    if (!merged.ok()) {
      return c->Error(absl::StrCat("Pack inputs differ: ", merged.status().message()));
    }
    s = *merged;
  }
  MG_ASSIGN_OR_RETURN(int64_t axis, c->GetAttr<int64_t>("axis"));
  if (!s.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int rank = s.rank() + 1;
  if (axis < -rank || axis >= rank) {
    return c->Error(absl::StrCat("Pack axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status ConcatShapeImpl(InferenceContext* c, int axis_input, int first, int n) {
  std::vector<int64_t> axis_v;
  PartialShape merged;
  for (int i = first; i < first + n; ++i) {
    if (c->input(i).rank_known()) {
      if (merged.rank_known() && merged.rank() != c->input(i).rank()) {
        return c->Error(absl::StrCat("Concat inputs have different ranks: ",
                                     merged.DebugString(), " and ", c->input(i).DebugString()));
      }
      merged = PartialShape::UnknownOfRank(c->input(i).rank());
    }
  }
  if (!c->ConstantInts(axis_input, &axis_v) || axis_v.size() != 1 || !merged.rank_known()) {
    c->set_output(0, merged);
    return absl::OkStatus();
  }
  const int rank = merged.rank();
  int64_t axis = axis_v[0];
  if (axis < -rank || axis >= rank) {
    return c->Error(absl::StrCat("Concat axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> out(rank, -1);
  int64_t sum = 0;
  for (int i = first; i < first + n; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.rank_known()) {
      sum = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (s.dim(d) >= 0 && out[d] >= 0 && s.dim(d) != out[d]) {
        return c->Error(absl::StrCat("Concat inputs differ in dimension ", d, ": ",
                                     c->input(first).DebugString(), " vs ", s.DebugString()));
      }
      if (out[d] < 0) out[d] = s.dim(d);
    }
    if (sum >= 0) sum = s.dim(axis) >= 0 ? sum + s.dim(axis) : -1;
  }
  out[axis] = sum;
  c->set_output(0, PartialShape(out));
  return absl::OkStatus();
}

absl::Status GatherShapeImpl(InferenceContext* c, int64_t axis, int64_t batch_dims = 0) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  if (!params.rank_known() || !indices.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (axis < 0) axis += params.rank();
  if (axis < 0 || axis >= params.rank()) {
    return c->Error(absl::StrCat("Gather axis is out of range for params of shape ",
                                 params.DebugString()));
  }
  const int64_t given_batch_dims = batch_dims;
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims < 0 || batch_dims > axis || batch_dims > indices.rank()) {
    return c->Error(absl::StrCat("Gather batch_dims ", given_batch_dims,
                                 " must be in [0, min(axis ", axis, ", rank of indices ",
                                 indices.rank(), ")]"));
  }
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// [num_segments] + data's dims after segment_ids's.
absl::Status UnsortedSegmentShape(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  if (!data.rank_known() || !ids.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (ids.rank() > data.rank()) {
    return c->Error(absl::StrCat("segment_ids of shape ", ids.DebugString(),
                                 " has more dims than data of shape ", data.DebugString()));
  }
  std::vector<int64_t> num;
  std::vector<int64_t> dims = {c->ConstantInts(2, &num) && num.size() == 1 ? num[0] : -1};
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// GatherNd: indices's dims but the last, then params's dims after the
// index tuples' length.
absl::Status GatherNdShape(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  if (!params.rank_known() || !indices.rank_known() || indices.rank() == 0 ||
      indices.dims().back() < 0) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int64_t k = indices.dims().back();
  if (k > params.rank()) {
    return c->Error(absl::StrCat("index innermost dimension length must be <= params rank; saw: ",
                                 k, " vs. ", params.rank()));
  }
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + k, params.dims().end());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status SelectShape(InferenceContext* c) {
  auto merged = PartialShape::Merge(c->input(1), c->input(2));
  if (!merged.ok()) {
    return c->Error(absl::StrCat("Select branches differ: ", merged.status().message()));
  }
  const PartialShape& cond = c->input(0);
  if (cond.rank_known() && merged->rank_known() && cond.rank() != merged->rank() &&
      !(cond.rank() == 1 && merged->rank() >= 1) && cond.rank() != 0) {
    return c->Error(absl::StrCat("Select condition of shape ", cond.DebugString(),
                                 " does not fit branches of shape ", merged->DebugString()));
  }
  c->set_output(0, *merged);
  return absl::OkStatus();
}

// Constants, placeholders, identities and fills.
void RegisterConstantOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("Const")
                        .Output("output: dtype")
                        .Attr("value: tensor")
                        .Attr("dtype: type")
                        .SetShapeFn(ConstShape));
  MG_REGISTER_OP(r, OpDefBuilder("Placeholder")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape = unknown")
                        .SetShapeFn(PlaceholderShape));
  // TensorFlow 0.12's Placeholder; its shape attr has no legacy reading.
  MG_REGISTER_OP(r, OpDefBuilder("PlaceholderV2")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape")
                        .Deprecated(23, "Placeholder now behaves the same as PlaceholderV2.")
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
                          c->set_output(0, s);
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("PlaceholderWithDefault")
                        .Input("input: dtype")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape")
                        .SetShapeFn(PlaceholderWithDefaultShape));
  for (const char* op : {"Identity", "StopGradient", "Snapshot"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("input: T")
                          .Output("output: T")
                          .Attr("T: type")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("IdentityN")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: list(type) >= 1")
                        .SetShapeFn([](InferenceContext* c) {
                          for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
                          return absl::OkStatus();
                        }));
  // The ref itself, forwarded: what a ref loop variable's body reads.
  MG_REGISTER_OP(r, OpDefBuilder("RefIdentity")
                        .Input("input: Ref(T)")
                        .Output("output: Ref(T)")
                        .Attr("T: type")
                        .SetAllowsUninitializedInput()
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("NoOp").SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("Fill")
                        .Input("dims: index_type")
                        .Input("value: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("index_type: {int32, int64} = int32")
                        .SetShapeFn(FillShape));
  MG_REGISTER_OP(r, OpDefBuilder("ZerosLike")
                        .Input("x: T")
                        .Output("y: T")
                        .Attr("T: {float, double, int32, int64, bool, complex64, complex128, "
                              "variant}")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("OnesLike")
                        .Input("x: T")
                        .Output("y: T")
                        .Attr("T: {float, double, int32, int64, bool, complex64, complex128}")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("BroadcastTo")
                        .Input("input: T")
                        .Input("shape: Tidx")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tidx: {int32, int64} = int32")
                        .SetShapeFn(BroadcastToShape));
}

// Partitions, shapes, reshapes, casts, packing and concatenation.
void RegisterShapeOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("DynamicPartition")
                        .Input("data: T")
                        .Input("partitions: int32")
                        .Output("outputs: num_partitions * T")
                        .Attr("num_partitions: int >= 1")
                        .Attr("T: type")
                        .SetShapeFn(DynamicPartitionShape));
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("indices: N * int32")
                          .Input("data: N * T")
                          .Output("merged: T")
                          .Attr("N: int >= 1")
                          .Attr("T: type")
                          .SetShapeFn(DynamicStitchShape));
  }
  MG_REGISTER_OP(r, OpDefBuilder("Shape")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = int32")
                        .SetShapeFn(ShapeShape));
  MG_REGISTER_OP(r, OpDefBuilder("Size")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = int32")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("Rank")
                        .Input("input: T")
                        .Output("output: int32")
                        .Attr("T: type")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("Reshape")
                        .Input("tensor: T")
                        .Input("shape: Tshape")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tshape: {int32, int64} = int32")
                        .SetShapeFn(ReshapeShape));
  MG_REGISTER_OP(r, OpDefBuilder("Cast")
                        .Input("x: SrcT")
                        .Output("y: DstT")
                        .Attr("SrcT: type")
                        .Attr("DstT: type")
                        .Attr("Truncate: bool = false")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("Pack")
                        .Input("values: N * T")
                        .Output("output: T")
                        .Attr("N: int >= 1")
                        .Attr("T: type")
                        .Attr("axis: int = 0")
                        .SetShapeFn(PackShape));
  MG_REGISTER_OP(r, OpDefBuilder("Concat")
                        .Input("concat_dim: int32")
                        .Input("values: N * T")
                        .Output("output: T")
                        .Attr("N: int >= 2")
                        .Attr("T: type")
                        .SetShapeFn([](InferenceContext* c) {
                          return ConcatShapeImpl(c, 0, 1, c->num_inputs() - 1);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ConcatV2")
                        .Input("values: N * T")
                        .Input("axis: Tidx")
                        .Output("output: T")
                        .Attr("N: int >= 2")
                        .Attr("T: type")
                        .Attr("Tidx: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          return ConcatShapeImpl(c, c->num_inputs() - 1, 0, c->num_inputs() - 1);
                        }));
}

absl::Status GatherV2Shape(InferenceContext* c) {
  std::vector<int64_t> axis;
  if (!c->ConstantInts(2, &axis) || axis.size() != 1) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  MG_ASSIGN_OR_RETURN(int64_t batch_dims, c->GetAttr<int64_t>("batch_dims"));
  return GatherShapeImpl(c, axis[0], batch_dims);
}

absl::Status DenseBincountShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.rank_known() && in.rank() > 2) {
    return c->Error(absl::StrCat("input must be at most rank 2, got rank ", in.rank()));
  }
  int64_t size = -1;
  if (const Tensor* t = c->input_tensor(1); t && t->NumElements() == 1) {
    size = t->dtype() == DT_INT32 ? t->data<int32_t>()[0] : t->data<int64_t>()[0];
  }
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
  } else if (in.rank() == 2) {
    c->set_output(0, PartialShape({in.dim(0), size}));
  } else {
    c->set_output(0, PartialShape({size}));
  }
  return absl::OkStatus();
}

// The rank is the ragged rank plus the values' rank; dims come from
// `shape` where it gives them.
absl::Status RaggedTensorToTensorShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(std::vector<std::string> types,
                      c->GetAttr<std::vector<std::string>>("row_partition_types"));
  const PartialShape& values = c->input(1);
  if (types.empty() || !values.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int ragged_rank = static_cast<int>(types.size()) - (types[0] == "FIRST_DIM_SIZE" ? 1 : 0);
  std::vector<int64_t> dims(ragged_rank + values.rank(), -1);
  for (int d = 1; d < values.rank(); ++d) dims[ragged_rank + d] = values.dim(d);
  const Tensor* shape = c->input_tensor(0);
  if (shape != nullptr && shape->dims() == 1 &&
      shape->NumElements() == static_cast<int64_t>(dims.size())) {
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t v = shape->dtype() == DT_INT32 ? shape->data<int32_t>()[d]
                                                   : shape->data<int64_t>()[d];
      if (v >= 0) dims[d] = v;
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// Gathers, segment sums, bincounts and ragged-to-dense.
void RegisterGatherOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("Gather")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Output("output: Tparams")
                        .Attr("validate_indices: bool = true")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}")
                        .SetShapeFn([](InferenceContext* c) { return GatherShapeImpl(c, 0); }));
  MG_REGISTER_OP(r, OpDefBuilder("GatherV2")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Input("axis: Taxis")
                        .Output("output: Tparams")
                        .Attr("batch_dims: int = 0")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("Taxis: {int32, int64}")
                        .SetShapeFn(GatherV2Shape));
  MG_REGISTER_OP(r, OpDefBuilder("UnsortedSegmentSum")
                        .Input("data: T")
                        .Input("segment_ids: Tindices")
                        .Input("num_segments: Tnumsegments")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, int64}")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("Tnumsegments: {int32, int64} = int32")
                        .SetShapeFn(UnsortedSegmentShape));
  MG_REGISTER_OP(r, OpDefBuilder("DenseBincount")
                        .Input("input: Tidx")
                        .Input("size: Tidx")
                        .Input("weights: T")
                        .Output("output: T")
                        .Attr("Tidx: {int32, int64}")
                        .Attr("T: {int32, int64, float, double}")
                        .Attr("binary_output: bool = false")
                        .SetShapeFn(DenseBincountShape));
  MG_REGISTER_OP(
      r, OpDefBuilder("RaggedTensorToTensor")
             .Input("shape: Tshape")
             .Input("values: T")
             .Input("default_value: T")
             .Input("row_partition_tensors: num_row_partition_tensors * Tindex")
             .Output("result: T")
             .Attr("T: type")
             .Attr("Tindex: {int32, int64}")
             .Attr("Tshape: {int32, int64}")
             .Attr("num_row_partition_tensors: int >= 1")
             .Attr("row_partition_types: list(string)")
             .SetShapeFn(RaggedTensorToTensorShape));
}

// Selections, uniques and the indices of true elements.
void RegisterSelectionOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("SelectV2")
                        .Input("condition: bool")
                        .Input("t: T")
                        .Input("e: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape te,
                                              PartialShape::Broadcast(c->input(1), c->input(2)));
                          MG_ASSIGN_OR_RETURN(PartialShape all,
                                              PartialShape::Broadcast(c->input(0), te));
                          c->set_output(0, std::move(all));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ConcatOffset")
                        .Input("concat_dim: int32")
                        .Input("shape: N * shape_type")
                        .Output("offset: N * shape_type")
                        .Attr("N: int >= 2")
                        .Attr("shape_type: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          for (int i = 1; i < c->num_inputs(); ++i) {
                            c->set_output(i - 1, c->input(i));
                          }
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("GatherNd")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Output("output: Tparams")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("bad_indices_policy: string = \"\"")
                        .SetShapeFn(GatherNdShape));
  MG_REGISTER_OP(r, OpDefBuilder("UniqueWithCounts")
                        .Input("x: T")
                        .Output("y: T")
                        .Output("idx: out_idx")
                        .Output("count: out_idx")
                        .Attr("T: type")
                        .Attr("out_idx: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1}));
                          c->set_output(1, c->input(0));
                          c->set_output(2, PartialShape({-1}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("Unique")
                        .Input("x: T")
                        .Output("y: T")
                        .Output("idx: out_idx")
                        .Attr("T: type")
                        .Attr("out_idx: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1}));
                          c->set_output(1, c->input(0));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("Select")
                        .Input("condition: bool")
                        .Input("t: T")
                        .Input("e: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .SetShapeFn(SelectShape));
  MG_REGISTER_OP(r, OpDefBuilder("Where")
                        .Input("input: T")
                        .Output("index: int64")
                        .Attr("T: {bool, float, double, int32, int64} = bool")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1, c->input(0).rank()}));
                          return absl::OkStatus();
                        }));
}

// Broadcast arguments, dimensions, transposes and slices.
void RegisterDimensionOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("BroadcastGradientArgs")
                        .Input("s0: T")
                        .Input("s1: T")
                        .Output("r0: T")
                        .Output("r1: T")
                        .Attr("T: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1}));
                          c->set_output(1, PartialShape({-1}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ExpandDims")
                        .Input("input: T")
                        .Input("dim: Tdim")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tdim: {int32, int64} = int32")
                        .SetShapeFn(ExpandDimsShape));
  MG_REGISTER_OP(r, OpDefBuilder("Squeeze")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("squeeze_dims: list(int) >= 0 = []")
                        .SetShapeFn(SqueezeShape));
  MG_REGISTER_OP(r, OpDefBuilder("Transpose")
                        .Input("x: T")
                        .Input("perm: Tperm")
                        .Output("y: T")
                        .Attr("T: type")
                        .Attr("Tperm: {int32, int64} = int32")
                        .SetShapeFn(TransposeShape));
  MG_REGISTER_OP(r, OpDefBuilder("InvertPermutation")
                        .Input("x: T")
                        .Output("y: T")
                        .Attr("T: {int32, int64} = int32")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("Slice")
                        .Input("input: T")
                        .Input("begin: Index")
                        .Input("size: Index")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Index: {int32, int64}")
                        .SetShapeFn(SliceShape));
  for (const bool grad : {false, true}) {
    OpDefBuilder b(grad ? "StridedSliceGrad" : "StridedSlice");
    if (grad) b.Input("shape: Index");
    if (!grad) b.Input("input: T");
    b.Input("begin: Index").Input("end: Index").Input("strides: Index");
    if (grad) b.Input("dy: T");
    b.Output("output: T")
        .Attr("T: type")
        .Attr("Index: {int32, int64}")
        .Attr("begin_mask: int = 0")
        .Attr("end_mask: int = 0")
        .Attr("ellipsis_mask: int = 0")
        .Attr("new_axis_mask: int = 0")
        .Attr("shrink_axis_mask: int = 0")
        .SetShapeFn(grad ? +[](InferenceContext* c) { return ShapeFromConstInput(c, 0); }
                         : +[](InferenceContext* c) { return StridedSliceShape(c); });
    MG_REGISTER_OP(r, b);
  }
}

// Tiles, pads, reversals, splits, unpacking, ranges and one-hots.
void RegisterTilingOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("Tile")
                        .Input("input: T")
                        .Input("multiples: Tmultiples")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tmultiples: {int32, int64} = int32")
                        .SetShapeFn(TileShape));
  MG_REGISTER_OP(r, OpDefBuilder("Pad")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = int32")
                        .SetShapeFn(PadShape));
  MG_REGISTER_OP(r, OpDefBuilder("PadV2")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Input("constant_values: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = int32")
                        .SetShapeFn(PadShape));
  MG_REGISTER_OP(r, OpDefBuilder("MirrorPad")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = int32")
                        .Attr("mode: {\"REFLECT\", \"SYMMETRIC\"}")
                        .SetShapeFn(PadShape));
  MG_REGISTER_OP(r, OpDefBuilder("ReverseV2")
                        .Input("tensor: T")
                        .Input("axis: Tidx")
                        .Output("output: T")
                        .Attr("Tidx: {int32, int64} = int32")
                        .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, "
                              "bfloat16, half, float, double, complex64, complex128, string}")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("Split")
                        .Input("split_dim: int32")
                        .Input("value: T")
                        .Output("output: num_split * T")
                        .Attr("num_split: int >= 1")
                        .Attr("T: type")
                        .SetShapeFn([](InferenceContext* c) { return SplitShape(c, false); }));
  MG_REGISTER_OP(r, OpDefBuilder("SplitV")
                        .Input("value: T")
                        .Input("size_splits: Tlen")
                        .Input("split_dim: int32")
                        .Output("output: num_split * T")
                        .Attr("num_split: int >= 1")
                        .Attr("T: type")
                        .Attr("Tlen: {int8, int32, int64} = int64")
                        .SetShapeFn([](InferenceContext* c) { return SplitShape(c, true); }));
  MG_REGISTER_OP(r, OpDefBuilder("Unpack")
                        .Input("value: T")
                        .Output("output: num * T")
                        .Attr("num: int >= 0")
                        .Attr("T: type")
                        .Attr("axis: int = 0")
                        .SetShapeFn(UnpackShape));
  MG_REGISTER_OP(r, OpDefBuilder("ShapeN")
                        .Input("input: N * T")
                        .Output("output: N * out_type")
                        .Attr("N: int >= 1")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          for (int i = 0; i < c->num_outputs(); ++i) {
                            c->set_output(i, PartialShape({c->input(i).rank()}));
                          }
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("Range")
                        .Input("start: Tidx")
                        .Input("limit: Tidx")
                        .Input("delta: Tidx")
                        .Output("output: Tidx")
                        .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
                              "uint16, uint32} = int32")
                        .SetShapeFn(RangeShape));
  MG_REGISTER_OP(r, OpDefBuilder("OneHot")
                        .Input("indices: TI")
                        .Input("depth: int32")
                        .Input("on_value: T")
                        .Input("off_value: T")
                        .Output("output: T")
                        .Attr("axis: int = -1")
                        .Attr("T: type")
                        .Attr("TI: {uint8, int8, int32, int64} = int64")
                        .SetShapeFn(OneHotShape));
  MG_REGISTER_OP(r, OpDefBuilder("PreventGradient")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("message: string = \"\"")
                        .SetShapeFn(shape_fn::Unchanged));
}

}  // namespace

void RegisterArrayOps(OpRegistry* r) {
  RegisterConstantOps(r);
  RegisterShapeOps(r);
  RegisterGatherOps(r);
  RegisterSelectionOps(r);
  RegisterDimensionOps(r);
  RegisterTilingOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
