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
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/example.pb.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

const char* KindName(DataType dt) {
  return dt == DT_FLOAT ? "float" : dt == DT_INT64 ? "int64" : "string";
}

// The number of values of `f` if they are of `dt`, else -1.
int64_t CountOf(const Feature& f, DataType dt) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return dt == DT_FLOAT ? f.float_list().value_size() : -1;
    case Feature::kInt64List:
      return dt == DT_INT64 ? f.int64_list().value_size() : -1;
    case Feature::kBytesList:
      return dt == DT_STRING ? f.bytes_list().value_size() : -1;
    default:
      return 0;  // no kind: an empty list of any type
  }
}

const char* FeatureKindName(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return "float";
    case Feature::kInt64List:
      return "int64";
    default:
      return "string";
  }
}

// Copies the values of `f` (of `dt`, checked) into `out` at `at`.
void CopyValues(const Feature& f, DataType dt, Tensor* out, int64_t at) {
  if (dt == DT_FLOAT) {
    const auto& v = f.float_list().value();
    std::copy(v.begin(), v.end(), out->data<float>() + at);
  } else if (dt == DT_INT64) {
    const auto& v = f.int64_list().value();
    std::copy(v.begin(), v.end(), out->data<int64_t>() + at);
  } else {
    const auto& v = f.bytes_list().value();
    std::copy(v.begin(), v.end(), out->data<std::string>() + at);
  }
}

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
    auto name = [&](int64_t i) {
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
    // The feature `key` of example i, or null; its type checked.
    auto find = [&](int64_t i, const std::string& key, DataType dt,
                    const Feature** f) -> absl::Status {
      *f = nullptr;
      const auto& map = examples[i].features().feature();
      auto it = map.find(key);
      if (it == map.end() || it->second.kind_case() == Feature::KIND_NOT_SET) {
        return absl::OkStatus();
      }
      if (CountOf(it->second, dt) < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Name: ", name(i), ", Feature: ", key, ".  Data types don't match. Data type: ",
            FeatureKindName(it->second), " but expected type: ", KindName(dt)));
      }
      *f = &it->second;
      return absl::OkStatus();
    };

    const int64_t ns = num_sparse_;
    for (int64_t j = 0; j < ns; ++j) {
      MG_RETURN_IF_ERROR(Sparse(ctx, j, sparse_keys[j], sparse_types_[j], scalar, batch, find));
    }
    for (size_t j = 0; j < dense_types_.size(); ++j) {
      MG_RETURN_IF_ERROR(Dense(ctx, static_cast<int>(j), dense_keys[j], scalar, batch, name, find));
    }
    for (size_t j = 0; j < ragged_types_.size(); ++j) {
      MG_RETURN_IF_ERROR(Ragged(ctx, static_cast<int>(j), ragged_keys[j], scalar, batch, find));
    }
    return absl::OkStatus();
  }

 private:
  using Find = std::function<absl::Status(int64_t, const std::string&, DataType, const Feature**)>;

  static absl::StatusOr<std::vector<std::string>> Keys(OpKernelContext* ctx, int input,
                                                       int64_t want, const char* what) {
    const Tensor& t = ctx->input(input);
    if (t.NumElements() != want) {
      return absl::InvalidArgumentError(absl::StrCat("expected ", want, " ", what, " keys, got ",
                                                     t.NumElements()));
    }
    return std::vector<std::string>(t.data<std::string>(), t.data<std::string>() + want);
  }

  absl::Status Sparse(OpKernelContext* ctx, int64_t j, const std::string& key, DataType dt,
                      bool scalar, int64_t batch, const Find& find) const {
    std::vector<const Feature*> features(batch);
    int64_t total = 0, longest = 0;
    for (int64_t i = 0; i < batch; ++i) {
      MG_RETURN_IF_ERROR(find(i, key, dt, &features[i]));
      const int64_t n = features[i] == nullptr ? 0 : CountOf(*features[i], dt);
      total += n;
      longest = std::max(longest, n);
    }
    const int64_t rank = scalar ? 1 : 2;
    const int ns = static_cast<int>(num_sparse_);
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(static_cast<int>(j), TensorShape({total, rank}),
                                            &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(ns + static_cast<int>(j), TensorShape({total}),
                                            &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2 * ns + static_cast<int>(j), TensorShape({rank}),
                                            &shape));
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

  template <typename NameFn>
  absl::Status Dense(OpKernelContext* ctx, int j, const std::string& key, bool scalar,
                     int64_t batch, const NameFn& name, const Find& find) const {
    const DataType dt = dense_types_[j];
    const PartialShape& shape = dense_shapes_[j];
    const Tensor& def = ctx->input(defaults_ + j);
    const bool variable = shape.rank() > 0 && shape.dim(0) < 0;
    int64_t row = 1;  // elements per step of the first dimension (variable) or per example
    for (int d = variable ? 1 : 0; d < shape.rank(); ++d) row *= shape.dim(d);
    std::vector<const Feature*> features(batch);
    int64_t rows = 0;  // the longest variable-length feature, in rows
    for (int64_t i = 0; i < batch; ++i) {
      MG_RETURN_IF_ERROR(find(i, key, dt, &features[i]));
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
    const int index = static_cast<int>(3 * num_sparse_) + j;
    MG_RETURN_IF_ERROR(ctx->allocate_output(index, out_shape, &out));
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t base = i * per;
      int64_t filled = 0;
      if (features[i] != nullptr) {
        CopyValues(*features[i], dt, out, base);
        filled = CountOf(*features[i], dt);
      }
      // The rest from the default: all of it (fixed) or the padding (variable).
      for (int64_t k = filled; k < per; ++k) {
        const int64_t from = variable ? 0 : k;
        if (dt == DT_FLOAT) {
          out->data<float>()[base + k] = def.NumElements() ? def.data<float>()[from] : 0.0f;
        } else if (dt == DT_INT64) {
          out->data<int64_t>()[base + k] = def.NumElements() ? def.data<int64_t>()[from] : 0;
        } else {
          out->data<std::string>()[base + k] =
              def.NumElements() ? def.data<std::string>()[from] : std::string();
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Ragged(OpKernelContext* ctx, int j, const std::string& key, bool scalar,
                      int64_t batch, const Find& find) const {
    const DataType dt = ragged_types_[j];
    std::vector<const Feature*> features(batch);
    int64_t total = 0;
    for (int64_t i = 0; i < batch; ++i) {
      MG_RETURN_IF_ERROR(find(i, key, dt, &features[i]));
      if (features[i] != nullptr) total += CountOf(*features[i], dt);
    }
    const int base = static_cast<int>(3 * num_sparse_ + dense_types_.size());
    const int n_ragged = static_cast<int>(ragged_types_.size());
    Tensor *values, *splits;
    MG_RETURN_IF_ERROR(ctx->allocate_output(base + j, TensorShape({total}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(base + n_ragged + j,
                                            TensorShape({scalar ? 0 : batch + 1}), &splits));
    int64_t at = 0;
    for (int64_t i = 0; i <= batch; ++i) {
      if (!scalar) {
        if (split_types_[j] == DT_INT32) {
          splits->data<int32_t>()[i] = static_cast<int32_t>(at);
        } else {
          splits->data<int64_t>()[i] = at;
        }
      }
      if (i == batch || features[i] == nullptr) continue;
      CopyValues(*features[i], dt, values, at);
      at += CountOf(*features[i], dt);
    }
    return absl::OkStatus();
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

}  // namespace minigraph
