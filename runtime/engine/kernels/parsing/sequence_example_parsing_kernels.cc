// ParseSequenceExampleV2, TensorFlow 1's ParseSequenceExample (keys in
// attrs, no ragged features) and ParseSingleSequenceExample (one example,
// keys as inputs): serialized tf.train.SequenceExamples into tensors, with
// TensorFlow's semantics. The context is parsed as an Example's features
// (example_features.h); each feature list is a sequence of steps:
//   dense   [batch, longest] + shape (padded with zeros), and the number of
//           steps of each example; a list an example lacks is an error
//           unless it is assumed empty;
//   sparse  indices [n, 3] (example, step, position), values [n], shape
//           [batch, most steps, most values in a step];
//   ragged  values [n], splits of the examples into steps [batch + 1], of
//           the steps into values [steps + 1].
// A scalar `serialized` is one SequenceExample: no batch dimension.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/example.pb.h"
#include "runtime/engine/kernels/internal/example_features.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The keys and types of one kind of feature (context or feature list).
struct Kind {
  std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
  std::vector<DataType> sparse_types, dense_types, ragged_types, split_types;
  std::vector<PartialShape> dense_shapes;
};

class ParseSequenceExampleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = type_string();
    version_ = op == "ParseSequenceExample" ? kV1 : op == "ParseSingleSequenceExample" ? kSingle
                                                                                       : kV2;
    MG_RETURN_IF_ERROR(c->GetAttr("context_sparse_types", &context_.sparse_types));
    MG_RETURN_IF_ERROR(c->GetAttr("Tcontext_dense", &context_.dense_types));
    MG_RETURN_IF_ERROR(c->GetAttr("feature_list_sparse_types", &lists_.sparse_types));
    MG_RETURN_IF_ERROR(c->GetAttr("feature_list_dense_types", &lists_.dense_types));
    MG_RETURN_IF_ERROR(Shapes(c, "context_dense_shapes", &context_.dense_shapes));
    MG_RETURN_IF_ERROR(Shapes(c, "feature_list_dense_shapes", &lists_.dense_shapes));
    if (version_ == kV2) {
      MG_RETURN_IF_ERROR(c->GetAttr("context_ragged_value_types", &context_.ragged_types));
      MG_RETURN_IF_ERROR(c->GetAttr("context_ragged_split_types", &context_.split_types));
      MG_RETURN_IF_ERROR(c->GetAttr("feature_list_ragged_value_types", &lists_.ragged_types));
      MG_RETURN_IF_ERROR(c->GetAttr("feature_list_ragged_split_types", &lists_.split_types));
    }
    if (version_ == kV1) {
      MG_RETURN_IF_ERROR(c->GetAttr("context_sparse_keys", &context_.sparse_keys));
      MG_RETURN_IF_ERROR(c->GetAttr("context_dense_keys", &context_.dense_keys));
      MG_RETURN_IF_ERROR(c->GetAttr("feature_list_sparse_keys", &lists_.sparse_keys));
      MG_RETURN_IF_ERROR(c->GetAttr("feature_list_dense_keys", &lists_.dense_keys));
      std::vector<std::string> empty;
      MG_RETURN_IF_ERROR(c->GetAttr("feature_list_dense_missing_assumed_empty", &empty));
      assumed_empty_attr_.insert(empty.begin(), empty.end());
    }
    if (context_.dense_shapes.size() != context_.dense_types.size() ||
        lists_.dense_shapes.size() != lists_.dense_types.size() ||
        context_.split_types.size() != context_.ragged_types.size() ||
        lists_.split_types.size() != lists_.ragged_types.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, "'s attrs disagree: each dense type needs a shape, each ragged type a split type"));
    }
    for (const PartialShape& s : lists_.dense_shapes) {
      if (!s.IsFullyDefined()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "feature_list_dense_shapes must be fully defined, got ", s.DebugString()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& serialized = ctx->input(0);
    if (version_ == kSingle ? serialized.dims() != 0 : serialized.dims() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected serialized to be a ", version_ == kSingle ? "scalar" : "scalar or vector",
          ", got shape: ", serialized.shape().DebugString()));
    }
    const bool scalar = serialized.dims() == 0;
    const int64_t batch = serialized.NumElements();
    Kind context = context_, lists = lists_;
    std::vector<bool> assumed_empty;
    MG_RETURN_IF_ERROR(ReadKeys(ctx, &context, &lists, &assumed_empty));
    const Tensor& names = ctx->input(version_ == kSingle ? ctx->num_inputs() - 1 : 1);
    if (names.NumElements() != 0 && names.NumElements() != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "debug_name must be empty or have one name per serialized example: ",
          names.NumElements(), " names for ", batch));
    }
    const ExampleName name = [&](int64_t i) {
      return names.NumElements() == 0 ? std::string("<unknown>") : names.data<std::string>()[i];
    };
    std::vector<SequenceExample> examples(batch);
    for (int64_t i = 0; i < batch; ++i) {
      if (!examples[i].ParseFromString(serialized.data<std::string>()[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Name: ", name(i), ", Could not parse serialized SequenceExample, index ", i));
      }
    }
    Outputs out(context, lists, version_);
    MG_RETURN_IF_ERROR(Context(ctx, context, examples, scalar, name, out));
    return FeatureLists(ctx, lists, assumed_empty, examples, scalar, name, out);
  }

 private:
  // Where each output list starts.
  struct Outputs {
    Outputs(const Kind& c, const Kind& l, int version) {
      const int cs = static_cast<int>(c.sparse_types.size());
      const int cd = static_cast<int>(c.dense_types.size());
      const int cr = static_cast<int>(c.ragged_types.size());
      const int ls = static_cast<int>(l.sparse_types.size());
      const int ld = static_cast<int>(l.dense_types.size());
      const int lr = static_cast<int>(l.ragged_types.size());
      context_sparse = 0;
      context_dense = 3 * cs;
      context_ragged = context_dense + cd;
      list_sparse = context_ragged + 2 * cr;
      list_dense = list_sparse + 3 * ls;
      lengths = version == kSingle ? -1 : list_dense + ld;
      list_ragged = list_dense + (version == kSingle ? 1 : 2) * ld;
      n_context_sparse = cs;
      n_context_ragged = cr;
      n_list_sparse = ls;
      n_list_ragged = lr;
    }
    int context_sparse, context_dense, context_ragged, list_sparse, list_dense, lengths,
        list_ragged;
    int n_context_sparse, n_context_ragged, n_list_sparse, n_list_ragged;
  };

  static absl::Status Shapes(OpKernelConstruction* c, const char* attr,
                             std::vector<PartialShape>* out) {
    auto it = c->def().attr().find(attr);
    if (it == c->def().attr().end()) return absl::OkStatus();
    for (const TensorShapeProto& s : it->second.list().shape()) {
      out->push_back(PartialShape::FromProto(s));
    }
    return absl::OkStatus();
  }

  static absl::Status Vector(const Tensor& t, size_t want, const char* what,
                             std::vector<std::string>* keys) {
    if (t.dims() > 1 || static_cast<size_t>(t.NumElements()) != want) {
      return absl::InvalidArgumentError(absl::StrCat("Expected ", what, " to be a vector of ",
                                                     want, " keys, got shape ",
                                                     t.shape().DebugString()));
    }
    keys->assign(t.data<std::string>(), t.data<std::string>() + want);
    return absl::OkStatus();
  }

  // The keys, from inputs (V2, single) or attrs (V1), checked for a key of
  // two kinds; and which dense feature lists may be missing.
  absl::Status ReadKeys(OpKernelContext* ctx, Kind* context, Kind* lists,
                        std::vector<bool>* assumed_empty) const {
    const size_t ld = lists->dense_types.size();
    if (version_ == kV2) {
      MG_RETURN_IF_ERROR(Vector(ctx->input(2), context->sparse_types.size(),
                                "context_sparse_keys", &context->sparse_keys));
      MG_RETURN_IF_ERROR(Vector(ctx->input(3), context->dense_types.size(),
                                "context_dense_keys", &context->dense_keys));
      MG_RETURN_IF_ERROR(Vector(ctx->input(4), context->ragged_types.size(),
                                "context_ragged_keys", &context->ragged_keys));
      MG_RETURN_IF_ERROR(Vector(ctx->input(5), lists->sparse_types.size(),
                                "feature_list_sparse_keys", &lists->sparse_keys));
      MG_RETURN_IF_ERROR(Vector(ctx->input(6), ld, "feature_list_dense_keys",
                                &lists->dense_keys));
      MG_RETURN_IF_ERROR(Vector(ctx->input(7), lists->ragged_types.size(),
                                "feature_list_ragged_keys", &lists->ragged_keys));
      const Tensor& empty = ctx->input(8);
      if (static_cast<size_t>(empty.NumElements()) != ld) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected feature_list_dense_missing_assumed_empty to have ", ld,
            " elements, got ", empty.NumElements()));
      }
      assumed_empty->assign(empty.data<bool>(), empty.data<bool>() + ld);
    } else {
      std::set<std::string> empty = assumed_empty_attr_;
      if (version_ == kSingle) {
        int at = 2;
        auto scalars = [&](size_t n, std::vector<std::string>* keys) -> absl::Status {
          keys->clear();
          for (size_t j = 0; j < n; ++j, ++at) {
            const Tensor& k = ctx->input(at);
            if (k.dims() != 0) {
              return absl::InvalidArgumentError(absl::StrCat(
                  "Expected keys to be scalars, got shape ", k.shape().DebugString()));
            }
            keys->push_back(*k.data<std::string>());
          }
          return absl::OkStatus();
        };
        MG_RETURN_IF_ERROR(scalars(context->sparse_types.size(), &context->sparse_keys));
        MG_RETURN_IF_ERROR(scalars(context->dense_types.size(), &context->dense_keys));
        MG_RETURN_IF_ERROR(scalars(lists->sparse_types.size(), &lists->sparse_keys));
        MG_RETURN_IF_ERROR(scalars(ld, &lists->dense_keys));
        const Tensor& e = ctx->input(1);
        if (e.dims() != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Expected feature_list_dense_missing_assumed_empty to be a vector, got shape: ",
              e.shape().DebugString()));
        }
        empty.insert(e.data<std::string>(), e.data<std::string>() + e.NumElements());
      }
      if (context->sparse_keys.size() != context->sparse_types.size() ||
          context->dense_keys.size() != context->dense_types.size() ||
          lists->sparse_keys.size() != lists->sparse_types.size() ||
          lists->dense_keys.size() != ld) {
        return absl::InvalidArgumentError(
            absl::StrCat(type_string(), "'s keys and types disagree in number"));
      }
      for (const std::string& k : lists->dense_keys) assumed_empty->push_back(empty.count(k) > 0);
    }
    for (const auto& [kind, what] : {std::pair<const Kind*, const char*>{context, "Context"},
                                     {lists, "Sequence"}}) {
      for (const std::string& k : kind->ragged_keys) {
        const auto in = [&](const std::vector<std::string>& v) {
          return std::find(v.begin(), v.end(), k) != v.end();
        };
        if (in(kind->sparse_keys)) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, " feature ", k, " cannot be both ragged and sparse"));
        }
        if (in(kind->dense_keys)) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, " feature ", k, " cannot be both ragged and dense"));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Context(OpKernelContext* ctx, const Kind& kind,
                       const std::vector<SequenceExample>& examples, bool scalar,
                       const ExampleName& name, const Outputs& out) const {
    std::vector<const Feature*> found(examples.size());
    auto collect = [&](const std::string& key, DataType dt) -> absl::Status {
      for (size_t i = 0; i < examples.size(); ++i) {
        MG_RETURN_IF_ERROR(FindFeature(examples[i].context(), key, dt, name(i), &found[i]));
      }
      return absl::OkStatus();
    };
    const int cs = out.n_context_sparse, cr = out.n_context_ragged;
    for (int j = 0; j < cs; ++j) {
      MG_RETURN_IF_ERROR(collect(kind.sparse_keys[j], kind.sparse_types[j]));
      MG_RETURN_IF_ERROR(WriteSparse(ctx, {j, cs + j, 2 * cs + j}, kind.sparse_types[j], found,
                                     scalar));
    }
    const int defaults = version_ == kV2 ? 9
                         : version_ == kV1
                             ? 2
                             : 2 + static_cast<int>(kind.sparse_types.size() +
                                                    kind.dense_types.size() +
                                                    lists_.sparse_types.size() +
                                                    lists_.dense_types.size());
    for (size_t j = 0; j < kind.dense_types.size(); ++j) {
      MG_RETURN_IF_ERROR(collect(kind.dense_keys[j], kind.dense_types[j]));
      MG_RETURN_IF_ERROR(WriteDense(ctx, out.context_dense + static_cast<int>(j),
                                    kind.dense_types[j], kind.dense_shapes[j],
                                    ctx->input(defaults + static_cast<int>(j)), found, scalar,
                                    kind.dense_keys[j], static_cast<int>(j), name));
    }
    for (int j = 0; j < cr; ++j) {
      MG_RETURN_IF_ERROR(collect(kind.ragged_keys[j], kind.ragged_types[j]));
      MG_RETURN_IF_ERROR(WriteRagged(ctx, {out.context_ragged + j, out.context_ragged + cr + j},
                                     kind.ragged_types[j], kind.split_types[j], found, scalar));
    }
    return absl::OkStatus();
  }

  // The steps of feature list `key` in each example (null: absent), their
  // values' type checked.
  static absl::Status Lists(const std::vector<SequenceExample>& examples, const std::string& key,
                            DataType dt, const ExampleName& name,
                            std::vector<const FeatureList*>* found) {
    found->assign(examples.size(), nullptr);
    for (size_t i = 0; i < examples.size(); ++i) {
      const auto& map = examples[i].feature_lists().feature_list();
      auto it = map.find(key);
      if (it == map.end()) continue;
      for (int s = 0; s < it->second.feature_size(); ++s) {
        if (CountOf(it->second.feature(s), dt) < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Name: ", name(i), ", Feature list: ", key, ", Index: ", s,
              ".  Data types don't match. Expected type: ", KindName(dt),
              ", Actual type: ", FeatureKindName(it->second.feature(s))));
        }
      }
      (*found)[i] = &it->second;
    }
    return absl::OkStatus();
  }

  absl::Status FeatureLists(OpKernelContext* ctx, const Kind& kind,
                            const std::vector<bool>& assumed_empty,
                            const std::vector<SequenceExample>& examples, bool scalar,
                            const ExampleName& name, const Outputs& out) const {
    const int64_t batch = static_cast<int64_t>(examples.size());
    std::vector<const FeatureList*> found;
    const int ls = out.n_list_sparse, lr = out.n_list_ragged;
    for (int j = 0; j < ls; ++j) {
      const DataType dt = kind.sparse_types[j];
      MG_RETURN_IF_ERROR(Lists(examples, kind.sparse_keys[j], dt, name, &found));
      int64_t total = 0, steps = 0, longest = 0;
      for (const FeatureList* l : found) {
        if (l == nullptr) continue;
        steps = std::max<int64_t>(steps, l->feature_size());
        for (const Feature& f : l->feature()) {
          total += CountOf(f, dt);
          longest = std::max(longest, CountOf(f, dt));
        }
      }
      const int64_t rank = scalar ? 2 : 3;
      Tensor *indices, *values, *shape;
      MG_RETURN_IF_ERROR(ctx->allocate_output(out.list_sparse + j, TensorShape({total, rank}),
                                              &indices));
      MG_RETURN_IF_ERROR(
          ctx->allocate_output(out.list_sparse + ls + j, TensorShape({total}), &values));
      MG_RETURN_IF_ERROR(
          ctx->allocate_output(out.list_sparse + 2 * ls + j, TensorShape({rank}), &shape));
      int64_t* idx = indices->data<int64_t>();
      int64_t at = 0;
      for (int64_t i = 0; i < batch; ++i) {
        if (found[i] == nullptr) continue;
        for (int s = 0; s < found[i]->feature_size(); ++s) {
          const Feature& f = found[i]->feature(s);
          CopyValues(f, dt, values, at);
          for (int64_t k = 0; k < CountOf(f, dt); ++k, ++at) {
            if (!scalar) *idx++ = i;
            *idx++ = s;
            *idx++ = k;
          }
        }
      }
      int64_t* sh = shape->data<int64_t>();
      if (!scalar) *sh++ = batch;
      *sh++ = steps;
      *sh = longest;
    }
    for (size_t j = 0; j < kind.dense_types.size(); ++j) {
      MG_RETURN_IF_ERROR(DenseList(ctx, kind, static_cast<int>(j), assumed_empty[j], examples,
                                   scalar, name, out));
    }
    for (int j = 0; j < lr; ++j) {
      const DataType dt = kind.ragged_types[j];
      MG_RETURN_IF_ERROR(Lists(examples, kind.ragged_keys[j], dt, name, &found));
      int64_t total = 0, steps = 0;
      for (const FeatureList* l : found) {
        if (l == nullptr) continue;
        steps += l->feature_size();
        for (const Feature& f : l->feature()) total += CountOf(f, dt);
      }
      Tensor *values, *outer, *inner;
      MG_RETURN_IF_ERROR(ctx->allocate_output(out.list_ragged + j, TensorShape({total}), &values));
      MG_RETURN_IF_ERROR(ctx->allocate_output(out.list_ragged + lr + j,
                                              TensorShape({scalar ? 0 : batch + 1}), &outer));
      MG_RETURN_IF_ERROR(
          ctx->allocate_output(out.list_ragged + 2 * lr + j, TensorShape({steps + 1}), &inner));
      int64_t step = 0, at = 0;
      SetSplit(inner, 0, 0);
      for (int64_t i = 0; i < batch; ++i) {
        if (!scalar) SetSplit(outer, i, step);
        if (found[i] == nullptr) continue;
        for (const Feature& f : found[i]->feature()) {
          CopyValues(f, dt, values, at);
          at += CountOf(f, dt);
          SetSplit(inner, ++step, at);
        }
      }
      if (!scalar) SetSplit(outer, batch, step);
    }
    return absl::OkStatus();
  }

  absl::Status DenseList(OpKernelContext* ctx, const Kind& kind, int j, bool assumed_empty,
                         const std::vector<SequenceExample>& examples, bool scalar,
                         const ExampleName& name, const Outputs& out) const {
    const int64_t batch = static_cast<int64_t>(examples.size());
    const DataType dt = kind.dense_types[j];
    const std::string& key = kind.dense_keys[j];
    const PartialShape& shape = kind.dense_shapes[j];
    int64_t row = 1;
    for (int64_t d : shape.dims()) row *= d;
    std::vector<const FeatureList*> found;
    MG_RETURN_IF_ERROR(Lists(examples, key, dt, name, &found));
    int64_t longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      if (found[i] == nullptr) {
        if (!assumed_empty) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Name: ", name(i), ", Feature list '", key,
              "' is required but could not be found.  Did you mean to include it in "
              "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?"));
        }
        continue;
      }
      for (int s = 0; s < found[i]->feature_size(); ++s) {
        const int64_t n = CountOf(found[i]->feature(s), dt);
        if (n != row) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Name: ", name(i), ", Key: ", key, ", Index: ", s, ".  Number of ", KindName(dt),
              " values != expected.  values size: ", n, " but output shape: ",
              shape.DebugString()));
        }
      }
      longest = std::max<int64_t>(longest, found[i]->feature_size());
    }
    std::vector<int64_t> dims = shape.dims();
    dims.insert(dims.begin(), longest);
    if (!scalar) dims.insert(dims.begin(), batch);
    MG_ASSIGN_OR_RETURN(TensorShape values_shape, TensorShape::Build(dims));
    Tensor* values;
    MG_RETURN_IF_ERROR(ctx->allocate_output(out.list_dense + j, values_shape, &values));
    Tensor* lengths = nullptr;
    if (out.lengths >= 0) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(
          out.lengths + j, scalar ? TensorShape({}) : TensorShape({batch}), &lengths));
    }
    static const Tensor* const kNone = new Tensor(DT_FLOAT, TensorShape({0}));
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t steps = found[i] == nullptr ? 0 : found[i]->feature_size();
      const int64_t base = i * longest * row;
      for (int64_t s = 0; s < steps; ++s) {
        CopyValues(found[i]->feature(static_cast<int>(s)), dt, values, base + s * row);
      }
      FillFrom(*kNone, true, dt, values, base + steps * row, (longest - steps) * row, 0);
      if (lengths != nullptr) lengths->data<int64_t>()[i] = steps;
    }
    return absl::OkStatus();
  }

  enum Version { kV2, kV1, kSingle };
  Version version_ = kV2;
  Kind context_, lists_;  // types and shapes (and V1's keys) from the attrs
  std::set<std::string> assumed_empty_attr_;
};

}  // namespace

void RegisterSequenceExampleParsingKernels(KernelRegistry* r) {
  for (const char* op :
       {"ParseSequenceExampleV2", "ParseSequenceExample", "ParseSingleSequenceExample"}) {
    r->Register(op, MakeFactory<ParseSequenceExampleOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
