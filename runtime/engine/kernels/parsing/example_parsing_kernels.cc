// ParseExampleV2, TensorFlow 1's ParseExample (the keys one scalar input
// each, serialized a vector, no ragged features) and ParseSingleExample (one
// Example, the keys in attrs): serialized tf.train.Examples (protobuf parses
// them) into dense, sparse and ragged tensors, with TensorFlow's semantics
// and messages:
//   dense   [batch] + dense_shape; a missing feature takes its default, or is
//           an error when the default is empty; a dense_shape whose first
//           dimension is unknown is variable-length: rows padded with the
//           (scalar) default to the batch's longest;
//   sparse  indices [n, 2] (example, position), values [n], shape
//           [batch, longest];
//   ragged  values [n] and row splits [batch + 1].
// A scalar `serialized` is one Example: no batch dimension (sparse indices
// [n, 1], no row splits).
#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/example.pb.h"
#include "runtime/engine/kernels/internal/example_features.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
absl::Status FindFeature(const Features& features, const std::string& key, DataType dt,
                         const std::string& name, const Feature** f) {
  *f = nullptr;
  auto it = features.feature().find(key);
  if (it == features.feature().end() || it->second.kind_case() == Feature::KIND_NOT_SET) {
    return absl::OkStatus();
  }
  if (CountOf(it->second, dt) < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Name: ", name, ", Feature: ", key, ".  Data types don't match. Data type: ",
        FeatureKindName(it->second), " but expected type: ", KindName(dt)));
  }
  *f = &it->second;
  return absl::OkStatus();
}

absl::Status WriteSparse(OpKernelContext* ctx, std::array<int, 3> outputs, DataType dt,
                         const std::vector<const Feature*>& features, bool scalar) {
  const int64_t batch = static_cast<int64_t>(features.size());
  int64_t total = 0, longest = 0;
  for (const Feature* f : features) {
    const int64_t n = f == nullptr ? 0 : CountOf(*f, dt);
    total += n;
    longest = std::max(longest, n);
  }
  const int64_t rank = scalar ? 1 : 2;
  Tensor *indices, *values, *shape;
  MG_RETURN_IF_ERROR(ctx->allocate_output(outputs[0], TensorShape({total, rank}), &indices));
  MG_RETURN_IF_ERROR(ctx->allocate_output(outputs[1], TensorShape({total}), &values));
  MG_RETURN_IF_ERROR(ctx->allocate_output(outputs[2], TensorShape({rank}), &shape));
  int64_t* idx = indices->data<int64_t>();
  int64_t at = 0;
  for (int64_t i = 0; i < batch; ++i) {
    if (features[i] == nullptr) continue;
    const int64_t n = CountOf(*features[i], dt);
    CopyValues(*features[i], dt, values, at);
    for (int64_t k = 0; k < n; ++k, ++at) {
      if (!scalar) *idx++ = i;
      *idx++ = k;
    }
  }
  int64_t* s = shape->data<int64_t>();
  if (!scalar) *s++ = batch;
  *s = longest;
  return absl::OkStatus();
}

absl::Status WriteDense(OpKernelContext* ctx, int output, DataType dt, const PartialShape& shape,
                        const Tensor& def, const std::vector<const Feature*>& features,
                        bool scalar, const std::string& key, int j, const ExampleName& name) {
  const int64_t batch = static_cast<int64_t>(features.size());
  const bool variable = shape.rank() > 0 && shape.dim(0) < 0;
  int64_t row = 1;  // elements per step of the first dimension (variable) or per example
  for (int d = variable ? 1 : 0; d < shape.rank(); ++d) row *= shape.dim(d);
  int64_t rows = 0;  // the longest variable-length feature, in rows
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t n = features[i] == nullptr ? -1 : CountOf(*features[i], dt);
    if (n < 0) {
      if (!variable && def.NumElements() == 0) {
        return absl::InvalidArgumentError(absl::StrCat("Name: ", name(i), ", Feature: ", key,
                                                       " (data type: ", KindName(dt),
                                                       ") is required but could not be found."));
      }
      continue;
    }
    if (variable ? (row == 0 ? n != 0 : n % row != 0) : n != row) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Name: ", name(i), ", Key: ", key, ", Index: ", i, ".  Number of ", KindName(dt),
          " values != expected.  values size: ", n, " but output shape: ",
          shape.DebugString()));
    }
    if (variable && row > 0) rows = std::max(rows, n / row);
  }
  std::vector<int64_t> dims = shape.dims();
  if (variable) dims[0] = rows;
  if (!scalar) dims.insert(dims.begin(), batch);
  MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(dims));
  const int64_t per = variable ? rows * row : row;  // elements per example
  if (!variable && def.NumElements() != 0 && def.NumElements() != per) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dense_defaults[", j, "] for ", key, " has ", def.NumElements(),
        " values; it must be empty or have the ", per, " of ", shape.DebugString()));
  }
  if (variable && def.NumElements() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dense_defaults[", j, "] for the variable-length ", key,
        " must be a scalar (the padding) or empty, got ", def.shape().DebugString()));
  }
  Tensor* out;
  MG_RETURN_IF_ERROR(ctx->allocate_output(output, out_shape, &out));
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t base = i * per;
    int64_t filled = 0;
    if (features[i] != nullptr) {
      CopyValues(*features[i], dt, out, base);
      filled = CountOf(*features[i], dt);
    }
    // The rest from the default: all of it (fixed) or the padding (variable).
    FillFrom(def, variable, dt, out, base + filled, per - filled, filled);
  }
  return absl::OkStatus();
}

void FillFrom(const Tensor& def, bool first_only, DataType dt, Tensor* out, int64_t at,
              int64_t n, int64_t from) {
  for (int64_t k = 0; k < n; ++k) {
    const int64_t d = first_only ? 0 : from + k;
    if (dt == DT_FLOAT) {
      out->data<float>()[at + k] = def.NumElements() ? def.data<float>()[d] : 0.0f;
    } else if (dt == DT_INT64) {
      out->data<int64_t>()[at + k] = def.NumElements() ? def.data<int64_t>()[d] : 0;
    } else {
      out->data<std::string>()[at + k] =
          def.NumElements() ? def.data<std::string>()[d] : std::string();
    }
  }
}

void SetSplit(Tensor* splits, int64_t i, int64_t v) {
  if (splits->dtype() == DT_INT32) {
    splits->data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    splits->data<int64_t>()[i] = v;
  }
}

absl::Status WriteRagged(OpKernelContext* ctx, std::array<int, 2> outputs, DataType dt,
                         DataType split_dt, const std::vector<const Feature*>& features,
                         bool scalar) {
  const int64_t batch = static_cast<int64_t>(features.size());
  int64_t total = 0;
  for (const Feature* f : features) total += f == nullptr ? 0 : CountOf(*f, dt);
  Tensor *values, *splits;
  MG_RETURN_IF_ERROR(ctx->allocate_output(outputs[0], TensorShape({total}), &values));
  MG_RETURN_IF_ERROR(
      ctx->allocate_output(outputs[1], TensorShape({scalar ? 0 : batch + 1}), &splits));
  if (splits->dtype() != split_dt) return absl::InternalError("ragged split type mismatch");
  int64_t at = 0;
  for (int64_t i = 0; i <= batch; ++i) {
    if (!scalar) SetSplit(splits, i, at);
    if (i == batch || features[i] == nullptr) continue;
    CopyValues(*features[i], dt, values, at);
    at += CountOf(*features[i], dt);
  }
  return absl::OkStatus();
}

namespace {

class ParseExampleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = c->def().op();
    version_ = op == "ParseExample" ? kV1 : op == "ParseSingleExample" ? kSingle : kV2;
    MG_RETURN_IF_ERROR(c->GetAttr("Tdense", &dense_types_));
    MG_RETURN_IF_ERROR(c->GetAttr(version_ == kV1 ? "Nsparse" : "num_sparse", &num_sparse_));
    MG_RETURN_IF_ERROR(c->GetAttr("sparse_types", &sparse_types_));
    if (version_ == kV2) {
      MG_RETURN_IF_ERROR(c->GetAttr("ragged_value_types", &ragged_types_));
      MG_RETURN_IF_ERROR(c->GetAttr("ragged_split_types", &split_types_));
    }
    if (version_ == kSingle) {
      MG_RETURN_IF_ERROR(c->GetAttr("sparse_keys", &attr_sparse_keys_));
      MG_RETURN_IF_ERROR(c->GetAttr("dense_keys", &attr_dense_keys_));
      if (static_cast<int64_t>(attr_sparse_keys_.size()) != num_sparse_ ||
          attr_dense_keys_.size() != dense_types_.size()) {
        return absl::InvalidArgumentError(
            "ParseSingleExample's attrs disagree: sparse_keys must have num_sparse keys, "
            "dense_keys one per Tdense");
      }
    }
    // Where dense_defaults start among the inputs.
    defaults_ = version_ == kV2       ? 5
                : version_ == kSingle ? 1
                                      : 2 + static_cast<int>(num_sparse_ + dense_types_.size());
    for (const TensorShapeProto& s : c->def().attr().at("dense_shapes").list().shape()) {
      dense_shapes_.push_back(PartialShape::FromProto(s));
    }
    if (dense_shapes_.size() != dense_types_.size() ||
        static_cast<int64_t>(sparse_types_.size()) != num_sparse_ ||
        split_types_.size() != ragged_types_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          c->def().op(), "'s attrs disagree: Tdense and dense_shapes, num_sparse and "
             "sparse_types, ragged_value_types and ragged_split_types must have equal "
             "lengths"));
    }
    for (size_t j = 0; j < dense_shapes_.size(); ++j) {
      const PartialShape& s = dense_shapes_[j];
      bool unknown_after_first = !s.rank_known();
      for (int d = 1; s.rank_known() && d < s.rank(); ++d) unknown_after_first |= s.dim(d) < 0;
      if (unknown_after_first) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dense_shapes[", j, "] ", s.DebugString(),
            " may leave only its first dimension unknown (a variable-length feature)"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& serialized = ctx->input(0);
    static const Tensor* const kNoNames = new Tensor(DT_STRING, TensorShape({0}));
    const Tensor& names = version_ == kSingle ? *kNoNames : ctx->input(1);
    if (version_ == kV1 && serialized.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected serialized to be a vector, got shape: ", serialized.shape().DebugString()));
    }
    if (version_ == kSingle && serialized.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected serialized to be a scalar, got shape: ", serialized.shape().DebugString()));
    }
    if (serialized.dims() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "serialized must be a scalar or a vector, got ", serialized.shape().DebugString()));
    }
    const bool scalar = serialized.dims() == 0;
    const int64_t batch = serialized.NumElements();
    if (names.NumElements() != 0 && names.NumElements() != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "names must be empty or have one name per serialized Example: ",
          names.NumElements(), " names for ", batch));
    }
    const ExampleName name = [&](int64_t i) {
      return names.NumElements() == 0 ? std::string("<unknown>") : names.data<std::string>()[i];
    };
    std::vector<Example> examples(batch);
    for (int64_t i = 0; i < batch; ++i) {
      if (!examples[i].ParseFromString(serialized.data<std::string>()[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("Name: ", name(i), ", Could not parse example input, index ", i));
      }
    }
    std::vector<std::string> sparse_keys = attr_sparse_keys_, dense_keys = attr_dense_keys_;
    std::vector<std::string> ragged_keys;
    const int64_t nd = static_cast<int64_t>(dense_types_.size());
    if (version_ == kV2) {
      MG_ASSIGN_OR_RETURN(sparse_keys, Keys(ctx, 2, num_sparse_, "sparse"));
      MG_ASSIGN_OR_RETURN(dense_keys, Keys(ctx, 3, nd, "dense"));
      MG_ASSIGN_OR_RETURN(ragged_keys,
                          Keys(ctx, 4, static_cast<int64_t>(ragged_types_.size()), "ragged"));
    } else if (version_ == kV1) {
      for (int64_t j = 0; j < num_sparse_ + nd; ++j) {
        const Tensor& key = ctx->input(2 + static_cast<int>(j));
        if (key.NumElements() != 1) {
          const bool sparse = j < num_sparse_;
          return absl::InvalidArgumentError(absl::StrCat(
              sparse ? "sparse_keys[" : "dense_keys[", sparse ? j : j - num_sparse_,
              "] must be a scalar, got shape ", key.shape().DebugString()));
        }
        (j < num_sparse_ ? sparse_keys : dense_keys).push_back(*key.data<std::string>());
      }
    }
    // The feature `key` of each example, or null; its type checked.
    auto collect = [&](const std::string& key, DataType dt,
                       std::vector<const Feature*>* found) -> absl::Status {
      found->assign(batch, nullptr);
      for (int64_t i = 0; i < batch; ++i) {
        MG_RETURN_IF_ERROR(
            FindFeature(examples[i].features(), key, dt, name(i), &(*found)[i]));
      }
      return absl::OkStatus();
    };
    std::vector<const Feature*> found;
    const int ns = static_cast<int>(num_sparse_);
    for (int j = 0; j < ns; ++j) {
      MG_RETURN_IF_ERROR(collect(sparse_keys[j], sparse_types_[j], &found));
      MG_RETURN_IF_ERROR(
          WriteSparse(ctx, {j, ns + j, 2 * ns + j}, sparse_types_[j], found, scalar));
    }
    for (int j = 0; j < static_cast<int>(nd); ++j) {
      MG_RETURN_IF_ERROR(collect(dense_keys[j], dense_types_[j], &found));
      MG_RETURN_IF_ERROR(WriteDense(ctx, 3 * ns + j, dense_types_[j], dense_shapes_[j],
                                    ctx->input(defaults_ + j), found, scalar, dense_keys[j], j,
                                    name));
    }
    const int base = 3 * ns + static_cast<int>(nd), nr = static_cast<int>(ragged_types_.size());
    for (int j = 0; j < nr; ++j) {
      MG_RETURN_IF_ERROR(collect(ragged_keys[j], ragged_types_[j], &found));
      MG_RETURN_IF_ERROR(WriteRagged(ctx, {base + j, base + nr + j}, ragged_types_[j],
                                     split_types_[j], found, scalar));
    }
    return absl::OkStatus();
  }

 private:
  static absl::StatusOr<std::vector<std::string>> Keys(OpKernelContext* ctx, int input,
                                                       int64_t want, const char* what) {
    const Tensor& t = ctx->input(input);
    if (t.NumElements() != want) {
      return absl::InvalidArgumentError(absl::StrCat("expected ", want, " ", what, " keys, got ",
                                                     t.NumElements()));
    }
    return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + want);
  }

  std::vector<DataType> dense_types_, sparse_types_, ragged_types_, split_types_;
  std::vector<PartialShape> dense_shapes_;
  int64_t num_sparse_ = 0;
  enum Version { kV2, kV1, kSingle } version_ = kV2;
  std::vector<std::string> attr_sparse_keys_, attr_dense_keys_;  // ParseSingleExample's
  int defaults_ = 5;  // the input index of dense_defaults[0]
};

}  // namespace

void RegisterExampleParsingKernels(KernelRegistry* r) {
  r->Register("ParseExampleV2", MakeFactory<ParseExampleOp>());
  r->Register("ParseExample", MakeFactory<ParseExampleOp>());
  r->Register("ParseSingleExample", MakeFactory<ParseExampleOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
