#include "runtime/graph/shape_inference.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minigraph {

InferenceContext::InferenceContext(const NodeDef* node, std::vector<DataType> input_types,
                                   std::vector<PartialShape> input_shapes,
                                   std::vector<const Tensor*> input_tensors, int num_outputs,
                                   int graph_def_version)
    : node_(node),
      input_types_(std::move(input_types)),
      input_shapes_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      output_shapes_(num_outputs),
      graph_def_version_(graph_def_version) {}

bool InferenceContext::ConstantInts(int i, std::vector<int64_t>* out) const {
  const Tensor* t = input_tensors_[i];
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) return false;
  out->clear();
  for (int64_t k = 0; k < t->NumElements(); ++k) {
    out->push_back(t->dtype() == DT_INT32 ? t->data<int32_t>()[k] : t->data<int64_t>()[k]);
  }
  return true;
}

absl::StatusOr<PartialShape> InferenceContext::WithRank(int i, int rank) const {
  const PartialShape& s = input_shapes_[i];
  if (!s.rank_known()) return PartialShape::UnknownOfRank(rank);
  if (s.rank() != rank) {
    return Error(absl::StrCat("input ", i, " must have rank ", rank, ", but has shape ",
                              s.DebugString()));
  }
  return s;
}

absl::Status InferenceContext::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(message);
}

namespace shape_fn {

absl::Status Unknown(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialShape());
  return absl::OkStatus();
}

absl::Status OutputShapesAttr(InferenceContext* c) {
  auto it = c->node_def().attr().find("output_shapes");
  const bool known =
      it != c->node_def().attr().end() && it->second.list().shape_size() == c->num_outputs();
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, known ? PartialShape::FromProto(it->second.list().shape(i)) : PartialShape());
  }
  return absl::OkStatus();
}

absl::Status Scalar(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status Unchanged(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status BroadcastBinary(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape s, PartialShape::Broadcast(c->input(0), c->input(1)));
  c->set_output(0, std::move(s));
  return absl::OkStatus();
}

absl::Status MergeAllInputs(InferenceContext* c) {
  PartialShape s;
  for (int i = 0; i < c->num_inputs(); ++i) {
    MG_ASSIGN_OR_RETURN(s, PartialShape::Merge(s, c->input(i)));
  }
  c->set_output(0, std::move(s));
  return absl::OkStatus();
}

}  // namespace shape_fn
}  // namespace minigraph
