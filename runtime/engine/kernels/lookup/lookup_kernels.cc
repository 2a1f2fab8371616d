// Lookup tables: HashTableV2 (filled once by InitializeTableV2,
// InitializeTableFromTextFileV2 or LookupTableImportV2, then read-only),
// MutableHashTableV2 and MutableHashTableOfTensorsV2 (vector values), keyed
// by int64 or string, and the ops on every table (MutableDenseHashTableV2's
// too). A table lives in the session's ResourceMgr under (container,
// shared_name), like a resource variable.
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/lookup_table.h"

namespace minigraph {
namespace kernels_internal {

TensorShape LookupTable::FoundShape(const TensorShape& keys) const {
  std::vector<int64_t> dims(keys.dim_sizes().begin(),
                            keys.dim_sizes().end() - std::min(keys.dims(), key_shape_.dims()));
  dims.insert(dims.end(), value_shape_.dim_sizes().begin(), value_shape_.dim_sizes().end());
  return TensorShape(dims);
}

absl::Status LookupTable::CheckKeyShape(const TensorShape& keys) const {
  const int n = key_shape_.dims();
  if (keys.dims() < n || !std::equal(key_shape_.dim_sizes().begin(), key_shape_.dim_sizes().end(),
                                     keys.dim_sizes().end() - n)) {
    return absl::InvalidArgumentError(absl::StrCat("Input key shape ", keys.DebugString(),
                                                   " must end with the table's key shape ",
                                                   key_shape_.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckFind(const Tensor& keys, const Tensor& default_value) const {
  MG_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  const TensorShape& dflt = default_value.shape();
  if (value_shape_.dims() == 0 && dflt.num_elements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("default_value must be a scalar, got shape ", dflt.DebugString()));
  }
  if (value_shape_.dims() > 0 && dflt != value_shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected shape ", value_shape_.DebugString(), " for default value, got ",
        dflt.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckFill(const Tensor& keys, const Tensor& values,
                                    bool /*import*/) const {
  MG_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  const TensorShape want = FoundShape(keys.shape());
  if (values.shape() == want) return absl::OkStatus();
  return absl::InvalidArgumentError(
      value_shape_.dims() == 0 && key_shape_.dims() == 0
          ? absl::StrCat("keys and values must have the same shape, got ",
                         keys.shape().DebugString(), " and ", values.shape().DebugString())
          : absl::StrCat("Expected shape ", want.DebugString(), " for value, got ",
                         values.shape().DebugString()));
}

Tensor LookupTableHandle(const std::string& container, const std::string& name) {
  Tensor t = Tensor::Scalar<ResourceHandle>(ResourceHandle());
  ResourceHandle& h = t.data<ResourceHandle>()[0];
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container(container.empty() ? ResourceMgr::kDefaultContainer : container);
  h.set_name(name);
  h.set_maybe_type_name(kLookupTypeName);
  return t;
}

namespace {

template <typename K, typename V>
class HashTable final : public LookupTable {
 public:
  using LookupTable::LookupTable;

  absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor* values) override {
    absl::ReaderMutexLock l(&mu_);
    if (!is_mutable() && !initialized_) {
      return absl::FailedPreconditionError("Table not initialized.");
    }
    const K* k = keys.data<K>();
    V* v = values->data<V>();
    const V& dflt = default_value.data<V>()[0];
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      auto it = map_.find(k[i]);
      v[i] = it == map_.end() ? dflt : it->second;
    }
    return absl::OkStatus();
  }

  absl::Status Initialize(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    if (initialized_) {
      bool same = keys.NumElements() == static_cast<int64_t>(map_.size());
      for (int64_t i = 0; same && i < keys.NumElements(); ++i) {
        auto it = map_.find(keys.data<K>()[i]);
        same = it != map_.end() && it->second == values.data<V>()[i];
      }
      if (!same) {
        return absl::FailedPreconditionError("Table was already initialized with different data.");
      }
      return absl::OkStatus();
    }
    MG_RETURN_IF_ERROR(InsertLocked(keys, values, /*overwrite=*/false));
    initialized_ = true;
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    return InsertLocked(keys, values, /*overwrite=*/true);
  }

  absl::Status Remove(const Tensor& keys) override {
    if (!is_mutable()) {
      return absl::UnimplementedError(
          "Remove not supported by InitializableLookupTable implementations");
    }
    absl::MutexLock l(&mu_);
    for (int64_t i = 0; i < keys.NumElements(); ++i) map_.erase(keys.data<K>()[i]);
    return absl::OkStatus();
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    map_.clear();
    MG_RETURN_IF_ERROR(InsertLocked(keys, values, /*overwrite=*/true));
    initialized_ = true;
    return absl::OkStatus();
  }

  std::pair<Tensor, Tensor> Export() override {
    absl::ReaderMutexLock l(&mu_);
    const int64_t n = static_cast<int64_t>(map_.size());
    Tensor keys(key_dtype(), TensorShape({n})), values(value_dtype(), TensorShape({n}));
    int64_t i = 0;
    for (const auto& [k, v] : map_) {
      keys.data<K>()[i] = k;
      values.data<V>()[i++] = v;
    }
    return {keys, values};
  }

  int64_t Size() override {
    absl::ReaderMutexLock l(&mu_);
    return static_cast<int64_t>(map_.size());
  }

 private:
  absl::Status InsertLocked(const Tensor& keys, const Tensor& values, bool overwrite)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      const K& k = keys.data<K>()[i];
      const V& v = values.data<V>()[i];
      auto [it, fresh] = map_.try_emplace(k, v);
      if (fresh || it->second == v) continue;
      if (overwrite) {
        it->second = v;
        continue;
      }
      return absl::FailedPreconditionError(
          absl::StrCat("HashTable has different value for same key. Key ", Show(k), " has ",
                       Show(it->second), " and trying to add value ", Show(v)));
    }
    return absl::OkStatus();
  }
  template <typename T>
  static std::string Show(const T& x) {
    if constexpr (std::is_same_v<T, std::string>) {
      return x;
    } else {
      return absl::StrCat(x);
    }
  }

  absl::Mutex mu_;
  absl::flat_hash_map<K, V> map_ ABSL_GUARDED_BY(mu_);
  bool initialized_ ABSL_GUARDED_BY(mu_) = false;
};

// MutableHashTableOfTensors: each key's value a vector of `value_shape`,
// stored in one flat array (its rows reused as keys come and go).
template <typename K, typename V>
class TensorsTable final : public LookupTable {
 public:
  using LookupTable::LookupTable;

  absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor* values) override {
    absl::ReaderMutexLock l(&mu_);
    const int64_t n = value_shape().num_elements();
    const K* k = keys.data<K>();
    V* v = values->data<V>();
    const V* dflt = default_value.data<V>();
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      auto it = map_.find(k[i]);
      const V* from = it == map_.end() ? dflt : it->second.data();
      std::copy(from, from + n, v + i * n);
    }
    return absl::OkStatus();
  }
  absl::Status Initialize(const Tensor& keys, const Tensor& values) override {
    return Insert(keys, values);
  }
  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    InsertLocked(keys, values);
    return absl::OkStatus();
  }
  absl::Status Remove(const Tensor& keys) override {
    absl::MutexLock l(&mu_);
    for (int64_t i = 0; i < keys.NumElements(); ++i) map_.erase(keys.data<K>()[i]);
    return absl::OkStatus();
  }
  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    map_.clear();
    InsertLocked(keys, values);
    return absl::OkStatus();
  }
  std::pair<Tensor, Tensor> Export() override {
    absl::ReaderMutexLock l(&mu_);
    const int64_t size = static_cast<int64_t>(map_.size()), n = value_shape().num_elements();
    Tensor keys(key_dtype(), TensorShape({size}));
    Tensor values(value_dtype(), TensorShape({size, n}));
    int64_t i = 0;
    for (const auto& [k, v] : map_) {
      keys.data<K>()[i] = k;
      std::copy(v.begin(), v.end(), values.data<V>() + i++ * n);
    }
    return {keys, values};
  }
  int64_t Size() override {
    absl::ReaderMutexLock l(&mu_);
    return static_cast<int64_t>(map_.size());
  }

 private:
  void InsertLocked(const Tensor& keys, const Tensor& values) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const int64_t n = value_shape().num_elements();
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      const V* row = values.data<V>() + i * n;
      map_[keys.data<K>()[i]].assign(row, row + n);
    }
  }

  absl::Mutex mu_;
  // InlinedVector: a real array of bools too (std::vector<bool> is not).
  absl::flat_hash_map<K, absl::InlinedVector<V, 4>> map_ ABSL_GUARDED_BY(mu_);
};

template <typename K>
std::unique_ptr<LookupTable> NewTableFor(DataType value, bool is_mutable,
                                         const TensorShape* value_shape) {
  switch (value) {
#define MG_CASE(V)                                                                            \
  case DataTypeToEnum<V>::value:                                                              \
    if (value_shape != nullptr) {                                                             \
      return std::make_unique<TensorsTable<K, V>>(DataTypeToEnum<K>::value, value, true,     \
                                                  *value_shape);                              \
    }                                                                                         \
    return std::make_unique<HashTable<K, V>>(DataTypeToEnum<K>::value, value, is_mutable);
    MG_CASE(int64_t)
    MG_CASE(int32_t)
    MG_CASE(float)
    MG_CASE(double)
    MG_CASE(bool)
    MG_CASE(std::string)
#undef MG_CASE
    default:
      return nullptr;
  }
}

// `value_shape`: a MutableHashTableOfTensors' (null: scalar values).
std::unique_ptr<LookupTable> NewTable(DataType key, DataType value, bool is_mutable,
                                      const TensorShape* value_shape = nullptr) {
  if (key == DT_INT64) return NewTableFor<int64_t>(value, is_mutable, value_shape);
  if (key == DT_STRING) return NewTableFor<std::string>(value, is_mutable, value_shape);
  return nullptr;
}

// HashTableV2 and MutableHashTableV2: the table's handle; the table itself
// is made on the first run.
class TableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    mutable_ = c->def().op() != "HashTableV2";
    if (c->def().op() == "MutableHashTableOfTensorsV2") {
      PartialShape shape;
      MG_RETURN_IF_ERROR(c->GetAttr("value_shape", &shape));
      if (!shape.IsFullyDefined() || shape.rank() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Default value must be a vector, got shape ", shape.DebugString()));
      }
      value_shape_ = TensorShape(shape.dims());
      tensors_ = true;
    }
    MG_RETURN_IF_ERROR(c->GetAttr("key_dtype", &key_dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("value_dtype", &value_dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    // Without a shared_name the table is the node's, by its name. (Without
    // use_node_name_sharing TensorFlow makes it private to the kernel
    // instance; that differs only between sessions sharing a local://
    // target, which here share it.)
    if (name_.empty()) name_ = c->def().name();
    if (NewTable(key_dtype_, value_dtype_, mutable_, Shape()) == nullptr) {
      return absl::UnimplementedError(absl::StrCat(c->def().op(), " '", c->def().name(),
                                                   "': no table from ", DataTypeString(key_dtype_),
                                                   " to ", DataTypeString(value_dtype_),
                                                   " (keys: int64 or string; values: int64, int32, "
                                                   "float, double, bool or string)"));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(
        std::shared_ptr<Resource> r,
        ctx->resource_manager()->LookupOrCreateResource(container_, name_, [&] {
          return std::unique_ptr<Resource>(NewTable(key_dtype_, value_dtype_, mutable_, Shape()));
        }));
    auto* table = dynamic_cast<LookupTable*>(r.get());
    if (table == nullptr || table->key_dtype() != key_dtype_ ||
        table->value_dtype() != value_dtype_ || table->is_mutable() != mutable_ ||
        table->value_shape() != value_shape_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource ", name_, " exists and is not a ", DataTypeString(key_dtype_), " -> ",
          DataTypeString(value_dtype_), " ", mutable_ ? "MutableHashTable" : "HashTable"));
    }
    ctx->set_output(0, LookupTableHandle(container_, name_));
    return absl::OkStatus();
  }

 private:
  const TensorShape* Shape() const { return tensors_ ? &value_shape_ : nullptr; }

  bool mutable_ = false, tensors_ = false;
  TensorShape value_shape_;
  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
  std::string container_, name_;
};

// The table input 0 names, with its key and value dtypes checked against
// the tensors `keys` and `values` (either may be null).
absl::StatusOr<LookupTable*> TableOf(OpKernelContext* ctx, const Tensor* keys, const Tensor* values,
                                     std::shared_ptr<Resource>* hold) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1) {
    return absl::InvalidArgumentError("table_handle must be a scalar resource handle");
  }
  const ResourceHandle& h = t.data<ResourceHandle>()[0];
  *hold = ctx->resource_manager()->FindResource(h.container(), h.name());
  auto* table = dynamic_cast<LookupTable*>(hold->get());
  if (table == nullptr) {
    return absl::NotFoundError(absl::StrCat("Resource ", h.container(), "/", h.name(), "/",
                                            kLookupTypeName, " does not exist."));
  }
  if (keys != nullptr && keys->dtype() != table->key_dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("Key must be type ",
                                                   DataTypeString(table->key_dtype()), " but got ",
                                                   DataTypeString(keys->dtype())));
  }
  if (values != nullptr && values->dtype() != table->value_dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("Value must be type ",
                                                   DataTypeString(table->value_dtype()),
                                                   " but got ", DataTypeString(values->dtype())));
  }
  return table;
}

class LookupTableFindOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& keys = ctx->input(1);
    const Tensor& dflt = ctx->input(2);
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, &keys, &dflt, &hold));
    MG_RETURN_IF_ERROR(table->CheckFind(keys, dflt));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, table->FoundShape(keys.shape()), &out));
    return table->Find(keys, dflt, out);
  }
};

class LookupTableRemoveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& keys = ctx->input(1);
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, &keys, nullptr, &hold));
    MG_RETURN_IF_ERROR(table->CheckKeyShape(keys.shape()));
    return table->Remove(keys);
  }
};

// InitializeTableV2, LookupTableInsertV2 and LookupTableImportV2.
class LookupTableFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = c->def().op();
    kind_ = op == "InitializeTableV2" ? kInit : op == "LookupTableInsertV2" ? kInsert : kImport;
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, &keys, &values, &hold));
    MG_RETURN_IF_ERROR(table->CheckFill(keys, values, kind_ == kImport));
    switch (kind_) {
      case kInit:
        if (table->is_mutable()) {
          return absl::InvalidArgumentError(
              "InitializeTableV2 needs a HashTable, not a MutableHashTable");
        }
        return table->Initialize(keys, values);
      case kInsert:
        if (!table->is_mutable()) {
          return absl::UnimplementedError("Insert not supported by InitializableLookupTable");
        }
        return table->Insert(keys, values);
      case kImport:
        return table->is_mutable() ? table->Import(keys, values) : table->Initialize(keys, values);
    }
    return absl::OkStatus();
  }

 private:
  enum Kind { kInit, kInsert, kImport } kind_ = kInit;
};

// TensorFlow's InitializeTableFromTextFile: line i of the file (up to
// vocab_size lines) gives one entry, its key and value each column k of the
// line split at the delimiter (one character), the line number plus
// offset (-1) or the whole line (-2).
class InitializeTableFromTextFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  static constexpr int64_t kLineNumber = -1, kWholeLine = -2;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("key_index", &key_index_));
    MG_RETURN_IF_ERROR(c->GetAttr("value_index", &value_index_));
    MG_RETURN_IF_ERROR(c->GetAttr("vocab_size", &vocab_size_));
    MG_RETURN_IF_ERROR(c->GetAttr("delimiter", &delimiter_));
    if (delimiter_.size() != 1) {
      return absl::InvalidArgumentError("delimiter should be only 1 char");
    }
    return c->GetAttr("offset", &offset_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& name = ctx->input(1);
    if (name.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat("filename should be a single string, but got ",
                                                     name.shape().DebugString()));
    }
    const std::string& file = *name.data<std::string>();
    if (file.empty()) return absl::InvalidArgumentError("filename cannot be empty.");
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, nullptr, nullptr, &hold));
    if (table->is_mutable()) {
      return absl::InvalidArgumentError(
          "InitializeTableFromTextFileV2 needs a HashTable, not a MutableHashTable");
    }
    MG_RETURN_IF_ERROR(CheckIndex(key_index_, table->key_dtype(), "key"));
    MG_RETURN_IF_ERROR(CheckIndex(value_index_, table->value_dtype(), "value"));
    MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(ctx->env(), file));
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the last newline
    const int64_t n = vocab_size_ < 0 ? static_cast<int64_t>(lines.size())
                                      : std::min<int64_t>(vocab_size_, lines.size());
    if (vocab_size_ >= 0 && static_cast<int64_t>(lines.size()) < vocab_size_) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid vocab_size in ", file, ": expected ",
                                                     vocab_size_, " got ", lines.size()));
    }
    Tensor keys(table->key_dtype(), TensorShape({n}));
    Tensor values(table->value_dtype(), TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      absl::string_view line = absl::StripSuffix(lines[i], "\r");
      if (line.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid content in ", file,
                                                       ": empty line found at position ", i,
                                                       "."));
      }
      std::vector<absl::string_view> fields = absl::StrSplit(line, delimiter_[0]);
      const int64_t need = std::max(key_index_, value_index_) + 1;
      if (static_cast<int64_t>(fields.size()) < need) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid number of columns in ", file,
                                                       " line ", i, " (", line, ") : expected ",
                                                       need, " got ", fields.size()));
      }
      MG_RETURN_IF_ERROR(Set(key_index_, line, fields, i, file, &keys, i));
      MG_RETURN_IF_ERROR(Set(value_index_, line, fields, i, file, &values, i));
    }
    return table->Initialize(keys, values);
  }

 private:
  // `what`: "key" or "value".
  static absl::Status CheckIndex(int64_t index, DataType dt, const std::string& what) {
    const std::string What = what == "key" ? "Key" : "Value";
    if (index == kLineNumber && dt != DT_INT64) {
      return absl::InvalidArgumentError(absl::StrCat(What, " index for line number requires table ",
                                                     what, " dtype of int64, got ",
                                                     DataTypeString(dt)));
    }
    if (index == kWholeLine && dt != DT_STRING && dt != DT_INT64) {
      return absl::InvalidArgumentError(absl::StrCat(What, " index for whole line requires string "
                                                     "or integer table ", what, " dtype, got ",
                                                     DataTypeString(dt)));
    }
    return absl::OkStatus();
  }

  // Element `at` of `out` from column `index` of line `i`.
  absl::Status Set(int64_t index, absl::string_view line,
                   const std::vector<absl::string_view>& fields, int64_t i,
                   const std::string& file, Tensor* out, int64_t at) const {
    if (index == kLineNumber) {
      out->data<int64_t>()[at] = i + offset_;
      return absl::OkStatus();
    }
    const absl::string_view field = index == kWholeLine ? line : fields[index];
    bool ok = true;
    switch (out->dtype()) {
      case DT_STRING:
        out->data<std::string>()[at] = std::string(field);
        break;
      case DT_INT64:
        ok = absl::SimpleAtoi(field, &out->data<int64_t>()[at]);
        break;
      case DT_INT32:
        ok = absl::SimpleAtoi(field, &out->data<int32_t>()[at]);
        break;
      case DT_FLOAT:
        ok = absl::SimpleAtof(field, &out->data<float>()[at]);
        break;
      case DT_DOUBLE:
        ok = absl::SimpleAtod(field, &out->data<double>()[at]);
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat("Data type ",
                                                       DataTypeString(out->dtype()),
                                                       " not supported."));
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat("Field ", field, " in line ", i, " of ", file,
                                                     " is not a valid ",
                                                     DataTypeString(out->dtype()), "."));
    }
    return absl::OkStatus();
  }

  int64_t key_index_ = 0, value_index_ = 0, vocab_size_ = -1, offset_ = 0;
  std::string delimiter_;
};

class LookupTableExportOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, nullptr, nullptr, &hold));
    if (ctx->expected_output_dtype(0) != table->key_dtype() ||
        ctx->expected_output_dtype(1) != table->value_dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "LookupTableExportV2 exports ", DataTypeString(ctx->expected_output_dtype(0)), " -> ",
          DataTypeString(ctx->expected_output_dtype(1)), " from a table of ",
          DataTypeString(table->key_dtype()), " -> ", DataTypeString(table->value_dtype())));
    }
    auto [keys, values] = table->Export();
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
    return absl::OkStatus();
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::shared_ptr<Resource> hold;
    MG_ASSIGN_OR_RETURN(LookupTable * table, TableOf(ctx, nullptr, nullptr, &hold));
    ctx->set_output(0, Tensor::Scalar<int64_t>(table->Size()));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterLookupKernels(KernelRegistry* r) {
  r->Register("HashTableV2", MakeFactory<TableOp>());
  r->Register("MutableHashTableV2", MakeFactory<TableOp>());
  r->Register("MutableHashTableOfTensorsV2", MakeFactory<TableOp>());
  r->Register("LookupTableFindV2", MakeFactory<LookupTableFindOp>());
  r->Register("LookupTableRemoveV2", MakeFactory<LookupTableRemoveOp>());
  r->Register("InitializeTableV2", MakeFactory<LookupTableFillOp>());
  r->Register("InitializeTableFromTextFileV2", MakeFactory<InitializeTableFromTextFileOp>());
  r->Register("LookupTableInsertV2", MakeFactory<LookupTableFillOp>());
  r->Register("LookupTableImportV2", MakeFactory<LookupTableFillOp>());
  r->Register("LookupTableExportV2", MakeFactory<LookupTableExportOp>());
  r->Register("LookupTableSizeV2", MakeFactory<LookupTableSizeOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
