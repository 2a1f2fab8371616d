#include "runtime/engine/kernels/internal/dataset.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/allocator.h"
#include "core/status_macros.h"

namespace minigraph {
namespace data {

std::string Dataset::DebugString() const { return absl::StrCat("<dataset '", node_, "'>"); }

std::string TypesString(const std::vector<DataType>& types) {
  return absl::StrCat(
      "[",
      absl::StrJoin(types, ", ",
                    [](std::string* out, DataType t) { absl::StrAppend(out, DataTypeString(t)); }),
      "]");
}

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  return absl::StrCat("[",
                      absl::StrJoin(shapes, ", ",
                                    [](std::string* out, const PartialShape& s) {
                                      absl::StrAppend(out, s.DebugString());
                                    }),
                      "]");
}

absl::Status CheckStep(const OpKernelContext* ctx, const std::string& dataset) {
  if (ctx->cancelled()) return absl::CancelledError("the step was cancelled");
  if (absl::Now() > ctx->step_context().deadline) {
    return absl::DeadlineExceededError(absl::StrCat("step timed out in dataset '", dataset, "'"));
  }
  return absl::OkStatus();
}

size_t ElementBytes(const Element& e) {
  size_t bytes = 0;
  for (const Tensor& t : e) {
    bytes += sizeof(Tensor) + 64 + t.TotalBytes();
    if (t.dtype() == DT_STRING) {
      for (int64_t i = 0; i < t.NumElements(); ++i) bytes += t.data<std::string>()[i].size();
    }
  }
  return bytes;
}

absl::Status CheckGathered(size_t bytes, const std::string& dataset, absl::string_view what) {
  if (bytes <= MaxTensorBytes()) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("dataset '", dataset, "': its ", what,
                                                   " holds more than ", MaxTensorBytes(),
                                                   " bytes (max_tensor_bytes)"));
}

absl::Status CheckElement(const Element& e, const std::vector<DataType>& dtypes,
                          const std::vector<PartialShape>& shapes, absl::string_view what) {
  if (e.size() != dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " produced ", e.size(),
                                                   " components; its output_types list ",
                                                   dtypes.size(), ": ", TypesString(dtypes)));
  }
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i].dtype() != dtypes[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " produced ", DataTypeString(e[i].dtype()), " for component ", i,
                       ", which output_types declares ", DataTypeString(dtypes[i])));
    }
    if (i < shapes.size() && !shapes[i].IsCompatibleWith(e[i].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " produced shape ", e[i].shape().DebugString(), " for component ", i,
                       ", which output_shapes declares ", shapes[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

std::shared_ptr<const Dataset> DatasetIn(const Tensor& t) {
  if (t.dtype() != DT_VARIANT || t.dims() != 0) return nullptr;
  return std::dynamic_pointer_cast<const Dataset>(t.data<Variant>()->value());
}

absl::Status ElementSpec(OpKernelConstruction* c, const char* types_attr,
                         std::vector<DataType>* dtypes, std::vector<PartialShape>* shapes) {
  const auto& attrs = c->def().attr();
  if (attrs.count(types_attr) == 0) return absl::OkStatus();
  MG_RETURN_IF_ERROR(c->GetAttr(types_attr, dtypes));
  shapes->clear();
  auto it = attrs.find("output_shapes");
  if (it != attrs.end()) {
    for (const TensorShapeProto& s : it->second.list().shape()) {
      shapes->push_back(PartialShape::FromProto(s));
    }
  }
  if (!shapes->empty() && shapes->size() != dtypes->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(c->def().op(), " '", c->def().name(), "': ", types_attr, " lists ",
                     dtypes->size(), " types but output_shapes ", shapes->size(), " shapes"));
  }
  shapes->resize(dtypes->size());
  return absl::OkStatus();
}

absl::Status DatasetOpKernel::Init(OpKernelConstruction* c) {
  return ElementSpec(c, "output_types", &dtypes_, &shapes_);
}

absl::Status DatasetOpKernel::Compute(OpKernelContext* ctx) const {
  MG_ASSIGN_OR_RETURN(std::shared_ptr<const Dataset> d, MakeDataset(ctx));
  ctx->set_output(0, Tensor::Scalar<Variant>(Variant(std::move(d))));
  return absl::OkStatus();
}

std::string DatasetOpKernel::Where() const {
  return absl::StrCat(type_string(), " '", name(), "'");
}

absl::StatusOr<std::shared_ptr<const Dataset>> DatasetOpKernel::InputDataset(
    const OpKernelContext* ctx, int i, bool same_spec) const {
  const Tensor& t = ctx->input(i);
  std::shared_ptr<const Dataset> d = DatasetIn(t);
  if (d == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(Where(), ": input ", i, " must be a dataset (a variant scalar), got ",
                     DataTypeString(t.dtype()), " ", t.shape().DebugString(),
                     t.dtype() == DT_VARIANT && t.dims() == 0
                         ? absl::StrCat(" holding ", t.data<Variant>()->DebugString())
                         : ""));
  }
  if (same_spec && d->dtypes() != dtypes_) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(), ": its output_types ", TypesString(dtypes_), " differ from its input's ",
        TypesString(d->dtypes()), " (dataset '", d->node(), "')"));
  }
  return d;
}

absl::StatusOr<int64_t> DatasetOpKernel::ScalarInput(const OpKernelContext* ctx, int i,
                                                     absl::string_view what) const {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0 || (t.dtype() != DT_INT64 && t.dtype() != DT_INT32)) {
    return absl::InvalidArgumentError(absl::StrCat(
        Where(), ": ", what, " must be an integer scalar, got shape ", t.shape().DebugString()));
  }
  return t.dtype() == DT_INT64 ? *t.data<int64_t>() : *t.data<int32_t>();
}

}  // namespace data
}  // namespace minigraph
