// Sets along the last dimension (tf.sets): SetSize, and the union,
// intersection and differences of DenseToDenseSetOperation,
// DenseToSparseSetOperation and SparseToSparseSetOperation. A set is the
// distinct values of one group: the elements sharing all but the last
// coordinate. Results are SparseTensors whose rows hold each group's values
// in ascending order (bytes compared unsigned for strings), groups in
// row-major order, a group with an empty result absent, and the last
// dimension the largest result's size, as TensorFlow's set_kernels.cc.
// A sparse operand's groups are runs of consecutive entries, as there.
#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/sparse/sparse_input.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The leading dimensions (all but the last) of a set operand of shape
// `shape`; InvalidArgument naming k's op when it has fewer than two.
absl::StatusOr<std::vector<int64_t>> GroupShape(const OpKernel& k,
                                                const std::vector<int64_t>& shape) {
  if (shape.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": a set operand of shape [",
                                                   absl::StrJoin(shape, ","), "] has rank ",
                                                   shape.size(), " < 2"));
  }
  return std::vector<int64_t>(shape.begin(), shape.end() - 1);
}

std::vector<int64_t> DimsOf(const Tensor& t) {
  return std::vector<int64_t>(t.shape().dim_sizes().begin(), t.shape().dim_sizes().end());
}

// A sparse set operand, read and checked as TensorFlow's
// SparseTensorFromContext and CheckGroup check it.
absl::StatusOr<SparseInput> ReadSparseSet(const OpKernelContext* ctx, const OpKernel& k,
                                          int first, bool validate) {
  MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparse(ctx, k, first, /*in_range=*/false));
  MG_RETURN_IF_ERROR(GroupShape(k, sp.shape).status());
  MG_RETURN_IF_ERROR(TensorShape::Build(sp.shape).status());
  if (validate) MG_RETURN_IF_ERROR(CheckIndicesOrdered(sp, k));
  // Unvalidated, an index outside the shape is TensorFlow's Internal error.
  for (int64_t i = 0; i < sp.nnz; ++i) {
    for (int d = 0; d < sp.rank(); ++d) {
      if (sp.at(i)[d] < 0 || sp.at(i)[d] >= sp.shape[d]) {
        return absl::InternalError(absl::StrCat(k.type_string(), ": indices[", i, ", ", d,
                                                "] = ", sp.at(i)[d], " is outside [0, ",
                                                sp.shape[d], ")"));
      }
    }
  }
  return sp;
}

// The runs of consecutive entries of `sp` sharing their leading
// coordinates, as [begin, end) pairs.
std::vector<std::pair<int64_t, int64_t>> GroupRuns(const SparseInput& sp) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (int64_t begin = 0; begin < sp.nnz;) {
    int64_t end = begin + 1;
    while (end < sp.nnz && CompareIndex(sp.at(begin), sp.at(end), sp.rank() - 1) == 0) ++end;
    runs.emplace_back(begin, end);
    begin = end;
  }
  return runs;
}

// The distinct values of values[begin, end), ascending.
template <typename T>
std::vector<T> SetOf(const T* values, int64_t begin, int64_t end) {
  std::vector<T> set(values + begin, values + end);
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set;
}

// SetSize: the number of distinct values of each group of a SparseTensor
// (0 for a group with no entries), int32, shaped as its leading dimensions.
template <typename T>
class SetSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("validate_indices", &validate_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput sp, ReadSparseSet(ctx, *this, 0, validate_));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> groups, GroupShape(*this, sp.shape));
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(groups));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    int32_t* o = out->data<int32_t>();
    std::fill(o, o + out->NumElements(), 0);
    const T* values = ctx->input(1).data<T>();
    for (const auto& [begin, end] : GroupRuns(sp)) {
      int64_t flat = 0;
      for (size_t d = 0; d < groups.size(); ++d) flat = flat * groups[d] + sp.at(begin)[d];
      o[flat] = static_cast<int32_t>(SetOf(values, begin, end).size());
    }
    return absl::OkStatus();
  }

 private:
  bool validate_ = true;
};

enum class SetOperation { kAMinusB, kBMinusA, kIntersection, kUnion };

// What the three SetOperation ops share: the operation, the walk's
// output, and the SparseTensor it becomes.
template <typename T>
class SetOperationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string name;
    MG_RETURN_IF_ERROR(c->GetAttr("set_operation", &name));
    MG_RETURN_IF_ERROR(c->GetAttr("validate_indices", &validate_));
    absl::AsciiStrToLower(&name);
    if (name == "a-b") {
      op_ = SetOperation::kAMinusB;
    } else if (name == "b-a") {
      op_ = SetOperation::kBMinusA;
    } else if (name == "intersection") {
      op_ = SetOperation::kIntersection;
    } else if (name != "union") {
      return absl::InvalidArgumentError(
          absl::StrCat(type_string(), ": set_operation '", name,
                       "' is none of a-b, b-a, intersection and union"));
    }
    return absl::OkStatus();
  }

 protected:
  // The sets of the groups, as the walk over both operands finds them.
  struct Result {
    std::vector<int64_t> group_shape;
    std::vector<int64_t> coords;  // each non-empty result's group, row-major
    std::vector<std::vector<T>> sets;
  };

  absl::StatusOr<Result> Begin(const std::vector<int64_t>& shape1,
                               const std::vector<int64_t>& shape2) const {
    Result r;
    MG_ASSIGN_OR_RETURN(r.group_shape, GroupShape(*this, shape1));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> group2, GroupShape(*this, shape2));
    if (r.group_shape != group2) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), ": the sets' leading dimensions differ: [",
          absl::StrJoin(shape1, ","), "] against [", absl::StrJoin(shape2, ","), "]"));
    }
    return r;
  }

  // Adds the operation's result on sets a and b of the group at `coords`.
  void Apply(const std::vector<T>& a, const std::vector<T>& b, const int64_t* coords,
             Result* r) const {
    std::vector<T> set;
    auto into = std::back_inserter(set);
    switch (op_) {
      case SetOperation::kAMinusB:
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(), into);
        break;
      case SetOperation::kBMinusA:
        std::set_difference(b.begin(), b.end(), a.begin(), a.end(), into);
        break;
      case SetOperation::kIntersection:
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), into);
        break;
      case SetOperation::kUnion:
        std::set_union(a.begin(), a.end(), b.begin(), b.end(), into);
        break;
    }
    if (set.empty()) return;
    r->coords.insert(r->coords.end(), coords, coords + r->group_shape.size());
    r->sets.push_back(std::move(set));
  }

  // Outputs r as a SparseTensor.
  absl::Status Finish(OpKernelContext* ctx, const Result& r) const {
    const int64_t rank = static_cast<int64_t>(r.group_shape.size()) + 1;
    int64_t nnz = 0, widest = 0;
    for (const std::vector<T>& set : r.sets) {
      nnz += static_cast<int64_t>(set.size());
      widest = std::max(widest, static_cast<int64_t>(set.size()));
    }
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({nnz, rank}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({nnz}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({rank}), &shape));
    int64_t* ix = indices->data<int64_t>();
    T* v = values->data<T>();
    for (size_t g = 0; g < r.sets.size(); ++g) {
      for (size_t j = 0; j < r.sets[g].size(); ++j) {
        ix = std::copy_n(r.coords.begin() + g * (rank - 1), rank - 1, ix);
        *ix++ = static_cast<int64_t>(j);
        *v++ = r.sets[g][j];
      }
    }
    std::copy(r.group_shape.begin(), r.group_shape.end(), shape->data<int64_t>());
    shape->data<int64_t>()[rank - 1] = widest;
    return absl::OkStatus();
  }

  bool validate_ = true;

 private:
  SetOperation op_ = SetOperation::kUnion;
};

// The coordinates of group `flat` of `group_shape` (row-major).
std::vector<int64_t> GroupCoords(int64_t flat, const std::vector<int64_t>& group_shape) {
  std::vector<int64_t> coords(group_shape.size());
  for (size_t d = group_shape.size(); d-- > 0;) {
    coords[d] = flat % group_shape[d];
    flat /= group_shape[d];
  }
  return coords;
}

// Both operands dense: group g of each is its g-th innermost row.
template <typename T>
class DenseToDenseSetOperationOp : public SetOperationOp<T> {
 public:
  using SetOperationOp<T>::SetOperationOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    using Result = typename SetOperationOp<T>::Result;
    MG_ASSIGN_OR_RETURN(Result r, this->Begin(DimsOf(a), DimsOf(b)));
    const int64_t n_a = a.dim_size(a.dims() - 1), n_b = b.dim_size(b.dims() - 1);
    int64_t groups = 1;
    for (int64_t d : r.group_shape) groups *= d;
    for (int64_t g = 0; g < groups; ++g) {
      const std::vector<int64_t> coords = GroupCoords(g, r.group_shape);
      this->Apply(SetOf(a.data<T>(), g * n_a, (g + 1) * n_a),
                  SetOf(b.data<T>(), g * n_b, (g + 1) * n_b), coords.data(), &r);
    }
    return this->Finish(ctx, r);
  }
};

// A dense first operand and a sparse second: each group of the first
// meets the second's next run if that run is the same group.
template <typename T>
class DenseToSparseSetOperationOp : public SetOperationOp<T> {
 public:
  using SetOperationOp<T>::SetOperationOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    MG_ASSIGN_OR_RETURN(SparseInput b, ReadSparseSet(ctx, *this, 1, this->validate_));
    using Result = typename SetOperationOp<T>::Result;
    MG_ASSIGN_OR_RETURN(Result r, this->Begin(DimsOf(a), b.shape));
    const int64_t n_a = a.dim_size(a.dims() - 1);
    const T* b_values = ctx->input(2).data<T>();
    const auto runs = GroupRuns(b);
    size_t run = 0;
    int64_t groups = 1;
    for (int64_t d : r.group_shape) groups *= d;
    for (int64_t g = 0; g < groups; ++g) {
      const std::vector<int64_t> coords = GroupCoords(g, r.group_shape);
      std::vector<T> b_set;
      if (run < runs.size() &&
          CompareIndex(b.at(runs[run].first), coords.data(), b.rank() - 1) == 0) {
        b_set = SetOf(b_values, runs[run].first, runs[run].second);
        ++run;
      }
      this->Apply(SetOf(a.data<T>(), g * n_a, (g + 1) * n_a), b_set, coords.data(), &r);
    }
    return this->Finish(ctx, r);
  }
};

// Both operands sparse: their runs merged in row-major order of their
// groups, a group only one has meeting the empty set.
template <typename T>
class SparseToSparseSetOperationOp : public SetOperationOp<T> {
 public:
  using SetOperationOp<T>::SetOperationOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(SparseInput a, ReadSparseSet(ctx, *this, 0, this->validate_));
    MG_ASSIGN_OR_RETURN(SparseInput b, ReadSparseSet(ctx, *this, 3, this->validate_));
    using Result = typename SetOperationOp<T>::Result;
    MG_ASSIGN_OR_RETURN(Result r, this->Begin(a.shape, b.shape));
    const T* a_values = ctx->input(1).data<T>();
    const T* b_values = ctx->input(4).data<T>();
    const auto a_runs = GroupRuns(a), b_runs = GroupRuns(b);
    const int group_rank = a.rank() - 1;
    for (size_t i = 0, j = 0; i < a_runs.size() || j < b_runs.size();) {
      const int order = i == a_runs.size()   ? 1
                        : j == b_runs.size() ? -1
                                             : CompareIndex(a.at(a_runs[i].first),
                                                            b.at(b_runs[j].first), group_rank);
      std::vector<T> a_set, b_set;
      const int64_t* coords = nullptr;
      if (order <= 0) {
        a_set = SetOf(a_values, a_runs[i].first, a_runs[i].second);
        coords = a.at(a_runs[i++].first);
      }
      if (order >= 0) {
        b_set = SetOf(b_values, b_runs[j].first, b_runs[j].second);
        coords = b.at(b_runs[j++].first);
      }
      this->Apply(a_set, b_set, coords, &r);
    }
    return this->Finish(ctx, r);
  }
};

}  // namespace

void RegisterSetKernels(KernelRegistry* r) {
  r->Register("SetSize", TypedFactory<SetSizeOp, int8_t, int16_t, int32_t, int64_t, uint8_t,
                                      uint16_t, std::string>());
  r->Register("DenseToDenseSetOperation",
              TypedFactory<DenseToDenseSetOperationOp, int8_t, int16_t, int32_t, int64_t, uint8_t,
                           uint16_t, std::string>());
  r->Register("DenseToSparseSetOperation",
              TypedFactory<DenseToSparseSetOperationOp, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t, std::string>());
  r->Register("SparseToSparseSetOperation",
              TypedFactory<SparseToSparseSetOperationOp, int8_t, int16_t, int32_t, int64_t,
                           uint8_t, uint16_t, std::string>());
}

}  // namespace kernels_internal
}  // namespace minigraph
