// TensorList kernels. A list is an immutable TensorList in a DT_VARIANT
// scalar; an op that changes it outputs a new list sharing the items' buffers
// (copying n tensor handles, not their data). An item never set reads as
// zeros of the list's element shape when that shape is fully known. The
// messages are TensorFlow's.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/list_math.h"
#include "runtime/engine/kernels/internal/optional_value.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class TensorList final : public VariantValue {
 public:
  TensorList(DataType dtype, PartialShape element_shape, std::vector<Tensor> items,
             int64_t max_size = -1)
      : dtype(dtype),
        element_shape(std::move(element_shape)),
        items(std::move(items)),
        max_size(max_size) {}
  std::string TypeName() const override { return "tensorflow::TensorList"; }
  std::string DebugString() const override {
    return absl::StrCat("TensorList<", DataTypeString(dtype), ">(", items.size(), " items of ",
                        element_shape.DebugString(), ")");
  }

  const DataType dtype;
  const PartialShape element_shape;
  // An item never set is an uninitialized Tensor.
  const std::vector<Tensor> items;
  const int64_t max_size;  // -1: no limit
};

void OutputList(OpKernelContext* ctx, int i, DataType dtype, PartialShape shape,
                std::vector<Tensor> items, int64_t max_size = -1) {
  ctx->set_output(i, Tensor::Scalar<Variant>(Variant(std::make_shared<const TensorList>(
                         dtype, std::move(shape), std::move(items), max_size))));
}

// The list input `i` holds, of `dtype`.
absl::StatusOr<std::shared_ptr<const TensorList>> ListInput(const OpKernelContext* ctx, int i,
                                                            DataType dtype) {
  const Tensor& t = ctx->input(i);
  std::shared_ptr<const TensorList> list;
  if (t.dtype() == DT_VARIANT && t.dims() == 0) {
    list = std::dynamic_pointer_cast<const TensorList>(t.data<Variant>()->value());
  }
  if (list == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input handle is not a list. Saw: '",
                     t.dtype() == DT_VARIANT && t.dims() == 0
                         ? t.data<Variant>()->DebugString()
                         : DataTypeString(t.dtype()) + " " + t.shape().DebugString(),
                     "'"));
  }
  if (dtype != DT_INVALID && list->dtype != dtype) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid data types; op elements ",
                                                   DataTypeString(dtype), " but list elements ",
                                                   DataTypeString(list->dtype)));
  }
  return list;
}

// An element_shape input: -1 (unknown rank) or a vector of sizes, -1 for
// an unknown one.
absl::StatusOr<PartialShape> ShapeInput(const Tensor& t) {
  if (t.dims() == 0 && t.NumElements() == 1) {
    const int64_t v = t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
    if (v == -1) return PartialShape();
  }
  if (t.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "element_shape must be -1 or a vector of sizes, got shape ", t.shape().DebugString()));
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int64_t d = t.dtype() == DT_INT64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
    if (d < -1) {
      return absl::InvalidArgumentError(absl::StrCat("element_shape has a dimension of size ", d));
    }
    dims.push_back(d);
  }
  return PartialShape(std::move(dims));
}

absl::StatusOr<int64_t> IntScalar(const Tensor& t, absl::string_view what) {
  if (t.NumElements() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an integer scalar, got shape ", t.shape().DebugString()));
  }
  return t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
}

absl::StatusOr<PartialShape> Merge(const PartialShape& a, const PartialShape& b) {
  absl::StatusOr<PartialShape> m = PartialShape::Merge(a, b);
  if (!m.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Incompatible shapes during merge: ", a.DebugString(), " vs. ", b.DebugString()));
  }
  return m;
}

// Zeros of `shape`, which must be fully defined, for an item never set.
absl::StatusOr<Tensor> Zeros(DataType dtype, const PartialShape& shape, absl::string_view what) {
  if (!shape.IsFullyDefined()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " but element_shape is not fully defined: ", shape.DebugString()));
  }
  MG_ASSIGN_OR_RETURN(TensorShape s, TensorShape::Build(shape.dims()));
  MG_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(dtype, s));
  if (DataTypeCanUseMemcpy(dtype) && t.TotalBytes() > 0)
    std::memset(t.raw_data(), 0, t.TotalBytes());
  return t;
}

class ListOpBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (c->def().attr().count("element_dtype") > 0) {
      MG_RETURN_IF_ERROR(c->GetAttr("element_dtype", &dtype_));
    }
    return absl::OkStatus();
  }

 protected:
  DataType dtype_ = DT_INVALID;
};

// EmptyTensorList and TensorListReserve.
class NewListOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(ctx->input(0)));
    MG_ASSIGN_OR_RETURN(int64_t n, IntScalar(ctx->input(1), "num_elements"));
    if (type_string() == "EmptyTensorList") {
      if (n < -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("max_num_elements expected to be -1 or a non negative number, got ", n));
      }
      OutputList(ctx, 0, dtype_, std::move(shape), {}, n);
      return absl::OkStatus();
    }
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("The num_elements to reserve must be a non negative number, but got ", n));
    }
    MG_RETURN_IF_ERROR(CheckScratchSize(n, sizeof(Tensor), "num_elements"));
    OutputList(ctx, 0, dtype_, std::move(shape), std::vector<Tensor>(n));
    return absl::OkStatus();
  }
};

class FromTensorOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    if (t.dims() < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tensor must be at least a vector, but saw shape: ", t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(PartialShape declared, ShapeInput(ctx->input(1)));
    TensorShape item_shape(t.shape().dim_sizes().subspan(1));
    if (!declared.IsCompatibleWith(item_shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Specified a list with shape ", declared.DebugString(),
                       " from a tensor with shape ", t.shape().DebugString()));
    }
    std::vector<Tensor> items;
    const int64_t n = item_shape.num_elements();
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      MG_ASSIGN_OR_RETURN(Tensor item, Tensor::Create(t.dtype(), item_shape));
      CopyElements(t, i * n, &item, 0, n);
      items.push_back(std::move(item));
    }
    OutputList(ctx, 0, dtype_, std::move(declared), std::move(items));
    return absl::OkStatus();
  }
};

class LengthOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, DT_INVALID));
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(list->items.size())));
    return absl::OkStatus();
  }
};

// The list's element shape: a vector with -1 for unknown dimensions, or the
// scalar -1 for an unknown rank (TensorFlow's TensorListElementShape).
class ElementShapeOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("shape_type", &shape_type_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, DT_INVALID));
    const PartialShape& s = list->element_shape;
    std::vector<int64_t> dims = s.rank_known() ? s.dims() : std::vector<int64_t>{-1};
    Tensor out(shape_type_, s.rank_known() ? TensorShape({static_cast<int64_t>(dims.size())})
                                           : TensorShape({}));
    for (size_t i = 0; i < dims.size(); ++i) {
      if (shape_type_ == DT_INT32) {
        out.data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
      } else {
        out.data<int64_t>()[i] = dims[i];
      }
    }
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  DataType shape_type_ = DT_INT32;
};

class GetItemOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, dtype_));
    MG_ASSIGN_OR_RETURN(int64_t index, IntScalar(ctx->input(1), "index"));
    const int64_t n = static_cast<int64_t>(list->items.size());
    if (index < 0 || index >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("Trying to access element ", index, " in a list with ", n, " elements."));
    }
    if (list->items[index].IsInitialized()) {
      ctx->set_output(0, list->items[index]);
      return absl::OkStatus();
    }
    MG_ASSIGN_OR_RETURN(PartialShape asked, ShapeInput(ctx->input(2)));
    MG_ASSIGN_OR_RETURN(PartialShape shape, Merge(list->element_shape, asked));
    MG_ASSIGN_OR_RETURN(Tensor zeros,
                        Zeros(dtype_, shape, "Trying to read an uninitialized tensor"));
    ctx->set_output(0, std::move(zeros));
    return absl::OkStatus();
  }
};

class SetItemOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(ListOpBase::Init(c));
    if (c->def().attr().count("resize_if_index_out_of_bounds") > 0) {
      MG_RETURN_IF_ERROR(c->GetAttr("resize_if_index_out_of_bounds", &resize_));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, dtype_));
    MG_ASSIGN_OR_RETURN(int64_t index, IntScalar(ctx->input(1), "index"));
    const Tensor& item = ctx->input(2);
    if (!list->element_shape.IsCompatibleWith(item.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tried to set a tensor with incompatible shape at a list index. Item element shape: ",
          item.shape().DebugString(), " list shape: ", list->element_shape.DebugString()));
    }
    const int64_t n = static_cast<int64_t>(list->items.size());
    if (index < 0 || (index >= n && !resize_)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Trying to modify element ", index, " in a list with ", n, " elements."));
    }
    MG_RETURN_IF_ERROR(CheckScratchSize(index + 1, sizeof(Tensor), "index"));
    std::vector<Tensor> items = list->items;
    if (index >= n) items.resize(index + 1);
    items[index] = item;
    OutputList(ctx, 0, dtype_, list->element_shape, std::move(items), list->max_size);
    return absl::OkStatus();
  }

 private:
  bool resize_ = false;
};

class PushBackOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, dtype_));
    const Tensor& item = ctx->input(1);
    if (!list->element_shape.IsCompatibleWith(item.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tried to push item with incompatible shape. Item element shape: ",
          item.shape().DebugString(), " list shape: ", list->element_shape.DebugString()));
    }
    if (list->max_size >= 0 && static_cast<int64_t>(list->items.size()) >= list->max_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tried to push item into a full list. List size: ", list->items.size(),
                       ", max number of elements: ", list->max_size));
    }
    std::vector<Tensor> items = list->items;
    items.push_back(item);
    OutputList(ctx, 0, dtype_, list->element_shape, std::move(items), list->max_size);
    return absl::OkStatus();
  }
};

class PopBackOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, dtype_));
    if (list->items.empty()) return absl::InvalidArgumentError("Trying to pop from an empty list.");
    Tensor last = list->items.back();
    if (!last.IsInitialized()) {
      MG_ASSIGN_OR_RETURN(PartialShape asked, ShapeInput(ctx->input(1)));
      MG_ASSIGN_OR_RETURN(PartialShape shape, Merge(list->element_shape, asked));
      MG_ASSIGN_OR_RETURN(last, Zeros(dtype_, shape, "Trying to read an uninitialized tensor"));
    }
    std::vector<Tensor> items(list->items.begin(), list->items.end() - 1);
    OutputList(ctx, 0, dtype_, list->element_shape, std::move(items), list->max_size);
    ctx->set_output(1, std::move(last));
    return absl::OkStatus();
  }
};

class StackOp final : public ListOpBase {
 public:
  using ListOpBase::ListOpBase;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(ListOpBase::Init(c));
    return c->GetAttr("num_elements", &num_elements_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, dtype_));
    const int64_t n = static_cast<int64_t>(list->items.size());
    if (num_elements_ != -1 && num_elements_ != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("Operation expected a list with ", num_elements_,
                       " elements but got a list with ", n, " elements."));
    }
    MG_ASSIGN_OR_RETURN(PartialShape asked, ShapeInput(ctx->input(1)));
    MG_ASSIGN_OR_RETURN(PartialShape shape, Merge(list->element_shape, asked));
    bool all_set = true;
    for (const Tensor& item : list->items) {
      if (!item.IsInitialized()) {
        all_set = false;
        continue;
      }
      MG_ASSIGN_OR_RETURN(shape, Merge(shape, PartialShape::FromShape(item.shape())));
    }
    if (!shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          n == 0 ? "Tried to stack elements of an empty list with non-fully-defined element_shape: "
                 : "Tried to stack list which only contains uninitialized tensors and has a "
                   "non-fully-defined element_shape: ",
          shape.DebugString()));
    }
    MG_ASSIGN_OR_RETURN(TensorShape item_shape, TensorShape::Build(shape.dims()));
    TensorShape out_shape;
    MG_RETURN_IF_ERROR(out_shape.AddDim(n));
    for (int64_t d : item_shape.dim_sizes()) MG_RETURN_IF_ERROR(out_shape.AddDim(d));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t k = item_shape.num_elements();
    Tensor zeros;
    if (!all_set) {
      MG_ASSIGN_OR_RETURN(zeros, Zeros(dtype_, shape, "stacking"));
    }
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& item = list->items[i].IsInitialized() ? list->items[i] : zeros;
      CopyElements(item, 0, out, i * k, k);
    }
    return absl::OkStatus();
  }

 private:
  int64_t num_elements_ = -1;
};

// ZerosLike of a variant. A list: as long, every item unset. An Optional:
// none stays none, a value becomes zeros of its components' dtypes and
// shapes (TensorFlow's OptionalZerosLike).
class ZerosLikeListOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.dtype() == DT_VARIANT && in.dims() == 0) {
      if (const auto* o = in.data<Variant>()->get<OptionalValue>(); o != nullptr) {
        return ZerosLikeOptional(ctx, *o);
      }
    }
    MG_ASSIGN_OR_RETURN(auto list, ListInput(ctx, 0, DT_INVALID));
    OutputList(ctx, 0, list->dtype, list->element_shape, std::vector<Tensor>(list->items.size()),
               list->max_size);
    return absl::OkStatus();
  }

 private:
  static absl::Status ZerosLikeOptional(OpKernelContext* ctx, const OptionalValue& o) {
    std::optional<std::vector<Tensor>> zeros;
    if (o.value) {
      zeros.emplace();
      for (const Tensor& t : *o.value) {
        if (!DataTypeCanUseMemcpy(t.dtype())) {
          return absl::UnimplementedError(absl::StrCat(
              "ZerosLike of an Optional holding ", DataTypeString(t.dtype()), " tensors"));
        }
        Tensor z(t.dtype(), t.shape());
        if (z.TotalBytes() > 0) std::memset(z.raw_data(), 0, z.TotalBytes());
        zeros->push_back(std::move(z));
      }
    }
    ctx->set_output(0, Tensor::Scalar<Variant>(
                           Variant(std::make_shared<const OptionalValue>(std::move(zeros)))));
    return absl::OkStatus();
  }
};

template <typename T>
void AddInto(const Tensor& x, Tensor* sum) {
  const T* in = x.data<T>();
  T* out = sum->data<T>();
  for (int64_t i = 0; i < sum->NumElements(); ++i) out[i] += in[i];
}

// AddN of lists of one length and dtype: item by item, unset items as
// zeros (an item no input sets stays unset).
class AddNListOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<std::shared_ptr<const TensorList>> lists;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      MG_ASSIGN_OR_RETURN(lists.emplace_back(), ListInput(ctx, i, DT_INVALID));
      if (lists[i]->dtype != lists[0]->dtype || lists[i]->items.size() != lists[0]->items.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Trying to add two lists of tensors with different lengths or dtypes: ",
                         lists[0]->DebugString(), " and ", lists[i]->DebugString()));
      }
    }
    const DataType dtype = lists[0]->dtype;
    std::vector<Tensor> items(lists[0]->items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      for (const auto& list : lists) {
        const Tensor& item = list->items[k];
        if (!item.IsInitialized()) continue;
        if (!items[k].IsInitialized()) {
          items[k] = item;
          continue;
        }
        if (item.shape() != items[k].shape()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Trying to add two tensors with incompatible element shapes at list "
              "index ",
              k, ": ", items[k].shape().DebugString(), " and ", item.shape().DebugString()));
        }
        // A fresh sum, since the first item may be shared.
        MG_ASSIGN_OR_RETURN(Tensor sum, Tensor::Create(dtype, item.shape()));
        CopyElements(items[k], 0, &sum, 0, sum.NumElements());
        if (dtype == DT_FLOAT) {
          AddInto<float>(item, &sum);
        } else if (dtype == DT_DOUBLE) {
          AddInto<double>(item, &sum);
        } else {
          return absl::UnimplementedError(absl::StrCat("adding lists of ", DataTypeString(dtype),
                                                       " (only float and double lists add)"));
        }
        items[k] = std::move(sum);
      }
    }
    OutputList(ctx, 0, dtype, lists[0]->element_shape, std::move(items), lists[0]->max_size);
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> MakeZerosLikeListKernel(OpKernelConstruction* c) {
  return MakeFactory<ZerosLikeListOp>()(c);
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeAddNListKernel(OpKernelConstruction* c) {
  return MakeFactory<AddNListOp>()(c);
}

void RegisterListKernels(KernelRegistry* r) {
  r->Register("EmptyTensorList", MakeFactory<NewListOp>());
  r->Register("TensorListReserve", MakeFactory<NewListOp>());
  r->Register("TensorListFromTensor", MakeFactory<FromTensorOp>());
  r->Register("TensorListLength", MakeFactory<LengthOp>());
  r->Register("TensorListElementShape", MakeFactory<ElementShapeOp>());
  r->Register("TensorListGetItem", MakeFactory<GetItemOp>());
  r->Register("TensorListSetItem", MakeFactory<SetItemOp>());
  r->Register("TensorListPushBack", MakeFactory<PushBackOp>());
  r->Register("TensorListPopBack", MakeFactory<PopBackOp>());
  r->Register("TensorListStack", MakeFactory<StackOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
