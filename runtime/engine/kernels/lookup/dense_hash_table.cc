// MutableDenseHashTableV2 (tf.lookup.experimental.DenseHashTable): open
// addressing over two tensors, the keys' buckets and the values', probed
// quadratically from the key's hash. Its hash, probe sequence and growth are
// TensorFlow's, because the buckets themselves are the table's saved form:
// LookupTableExportV2 gives them (what a checkpoint keeps under NAME-keys and
// NAME-values) and LookupTableImportV2 takes them back as they are, so a
// table restored from either runtime's checkpoint must find each key where
// the other put it, and the same inserts write the same bytes.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/internal/endian.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/lookup_table.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow's Hash64 of a string: MurmurHash2's 64-bit MurmurHash64A with
// the seed 0xDECAFCAFFE. Written here because a string key's bucket in a
// saved table depends on this exact function, which no library here has.
uint64_t TensorFlowHash64(absl::string_view s) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0xDECAFCAFFEULL ^ (n * kMul);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t k = absl::little_endian::Load64(p);
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;) h ^= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

uint64_t HashScalar(int32_t k) { return static_cast<uint64_t>(k); }
uint64_t HashScalar(int64_t k) { return static_cast<uint64_t>(k); }
uint64_t HashScalar(const std::string& k) { return TensorFlowHash64(k); }

uint64_t Hash64Combine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7800ULL + (a << 10) + (a >> 4));
}

// The shape `keys` must have to hold `n` keys of `key_shape`.
std::string KeysShape(int64_t n, const TensorShape& key_shape) {
  std::vector<int64_t> dims = {n};
  dims.insert(dims.end(), key_shape.dim_sizes().begin(), key_shape.dim_sizes().end());
  return TensorShape(dims).DebugString();
}

// What DenseTableOp needs beyond a LookupTable: the first buckets.
class DenseTable : public LookupTable {
 public:
  using LookupTable::LookupTable;
  // `buckets` empty buckets; InvalidArgument for a number TensorFlow
  // refuses, or when the empty and the deleted key are the same.
  virtual absl::Status Start(int64_t buckets) = 0;
};

template <typename K, typename V>
class DenseHashTable final : public DenseTable {
 public:
  DenseHashTable(const Tensor& empty_key, const Tensor& deleted_key, TensorShape value_shape,
                 float max_load_factor)
      : DenseTable(DataTypeToEnum<K>::value, DataTypeToEnum<V>::value, /*is_mutable=*/true,
                   std::move(value_shape), empty_key.shape()),
        key_size_(empty_key.NumElements()),
        value_size_(this->value_shape().num_elements()),
        max_load_factor_(max_load_factor),
        empty_(empty_key.data<K>(), empty_key.data<K>() + key_size_),
        deleted_(deleted_key.data<K>(), deleted_key.data<K>() + key_size_),
        empty_hash_(Hash(empty_.data())),
        deleted_hash_(Hash(deleted_.data())) {}

  absl::Status Start(int64_t buckets) override {
    if (empty_ == deleted_) {
      return absl::InvalidArgumentError("Empty and deleted keys cannot be equal");
    }
    absl::MutexLock l(&mu_);
    return AllocateLocked(buckets);
  }

  absl::Status CheckFind(const Tensor& keys, const Tensor& default_value) const override {
    MG_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
    const TensorShape& dflt = default_value.shape();
    const TensorShape full = FoundShape(keys.shape());
    if (dflt != value_shape() && dflt != full) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected shape ", value_shape().DebugString(), " or ", full.DebugString(),
          " for default value, got ", dflt.DebugString()));
    }
    return absl::OkStatus();
  }

  // A restore's keys and values are the buckets: each key and value a
  // vector, even a scalar one.
  absl::Status CheckFill(const Tensor& keys, const Tensor& values, bool import) const override {
    if (!import) return LookupTable::CheckFill(keys, values, import);
    MG_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
    const TensorShape& k = keys.shape();
    const int key_dims = std::min(k.dims(), std::max(key_shape().dims(), 1));
    std::vector<int64_t> want(k.dim_sizes().begin(), k.dim_sizes().end() - key_dims);
    want.push_back(value_size_);
    if (values.shape() != TensorShape(want)) {
      return absl::InvalidArgumentError(absl::StrCat("Expected shape ",
                                                     TensorShape(want).DebugString(),
                                                     " for value, got ",
                                                     values.shape().DebugString()));
    }
    if (k.dims() != 2 || k.dim_size(1) != key_size_ || k.dim_size(0) < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "A MutableDenseHashTable restores from its buckets: keys of shape [N,", key_size_,
          "] with N >= 1, got ", k.DebugString()));
    }
    return absl::OkStatus();
  }

  absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor* values) override {
    MG_ASSIGN_OR_RETURN(const int64_t n, Rows(keys));
    const K* k = keys.data<K>();
    const V* dflt = default_value.data<V>();
    V* out = values->data<V>();
    absl::ReaderMutexLock l(&mu_);
    const K* bucket_keys = keys_.data<K>();
    const V* bucket_values = values_.data<V>();
    for (int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      MG_ASSIGN_OR_RETURN(const uint64_t hash, UsableHash(key));
      MG_ASSIGN_OR_RETURN(const int64_t b, Probe(key, hash, "lookup"));
      const V* from = Equal(bucket_keys + b * key_size_, key) ? bucket_values + b * value_size_
                                                              : dflt;
      std::copy(from, from + value_size_, out + i * value_size_);
    }
    return absl::OkStatus();
  }

  absl::Status Initialize(const Tensor& keys, const Tensor& values) override {
    return Insert(keys, values);
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values) override {
    MG_ASSIGN_OR_RETURN(const int64_t n, Rows(keys));
    absl::MutexLock l(&mu_);
    // As TensorFlow: every key counts as new, so a batch of updates may grow
    // the table too.
    const int64_t pending = entries_ + n;
    if (pending > buckets_ * max_load_factor_) {
      int64_t grown = buckets_;
      do {
        grown <<= 1;
      } while (pending > grown * max_load_factor_);
      Tensor old_keys = keys_, old_values = values_;
      const int64_t old_buckets = buckets_;
      MG_RETURN_IF_ERROR(AllocateLocked(grown));
      MG_RETURN_IF_ERROR(InsertLocked(old_keys.data<K>(), old_values.data<V>(), old_buckets,
                                      /*skip_free=*/true));
    }
    return InsertLocked(keys.data<K>(), values.data<V>(), n, /*skip_free=*/false);
  }

  absl::Status Remove(const Tensor& keys) override {
    MG_ASSIGN_OR_RETURN(const int64_t n, Rows(keys));
    absl::MutexLock l(&mu_);
    K* bucket_keys = keys_.data<K>();
    for (int64_t i = 0; i < n; ++i) {
      const K* key = keys.data<K>() + i * key_size_;
      MG_ASSIGN_OR_RETURN(const uint64_t hash, UsableHash(key));
      MG_ASSIGN_OR_RETURN(const int64_t b, Probe(key, hash, "remove"));
      K* at = bucket_keys + b * key_size_;
      if (!Equal(at, key)) continue;
      std::copy(deleted_.begin(), deleted_.end(), at);
      --entries_;
    }
    return absl::OkStatus();
  }

  // The buckets as they are (their number need not be a power of 2: the
  // probes stay within them, as TensorFlow's do).
  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock l(&mu_);
    keys_ = tensor::DeepCopy(keys);
    values_ = tensor::DeepCopy(values);
    buckets_ = keys.dim_size(0);
    entries_ = 0;
    for (int64_t b = 0; b < buckets_; ++b) {
      const K* at = keys_.data<K>() + b * key_size_;
      if (!Equal(at, empty_.data()) && !Equal(at, deleted_.data())) ++entries_;
    }
    return absl::OkStatus();
  }

  std::pair<Tensor, Tensor> Export() override {
    absl::ReaderMutexLock l(&mu_);
    return {tensor::DeepCopy(keys_), tensor::DeepCopy(values_)};
  }

  int64_t Size() override {
    absl::ReaderMutexLock l(&mu_);
    return entries_;
  }

 private:
  uint64_t Hash(const K* key) const {
    if (key_size_ == 1) return HashScalar(key[0]);
    uint64_t h = 0;
    for (int64_t i = 0; i < key_size_; ++i) h = Hash64Combine(h, HashScalar(key[i]));
    return h;
  }
  bool Equal(const K* a, const K* b) const { return std::equal(a, a + key_size_, b); }

  // How many keys `keys` holds: its first dimension (1 for a scalar).
  absl::StatusOr<int64_t> Rows(const Tensor& keys) const {
    const int64_t n = keys.dims() == 0 ? 1 : keys.dim_size(0);
    if (keys.NumElements() != n * key_size_) {
      return absl::InvalidArgumentError(absl::StrCat("Expected key shape ",
                                                     KeysShape(n, key_shape()), " got ",
                                                     keys.shape().DebugString()));
    }
    return n;
  }

  // The key's hash, or InvalidArgument for the empty or the deleted key.
  absl::StatusOr<uint64_t> UsableHash(const K* key) const {
    const uint64_t h = Hash(key);
    if (h == empty_hash_ && Equal(key, empty_.data())) {
      return absl::InvalidArgumentError("Using the empty_key as a table key is not allowed");
    }
    if (h == deleted_hash_ && Equal(key, deleted_.data())) {
      return absl::InvalidArgumentError("Using the deleted_key as a table key is not allowed");
    }
    return h;
  }

  // The bucket holding `key`, or the empty one where its probes end.
  // Internal when every bucket is taken by other keys (a restored table
  // can be so full).
  absl::StatusOr<int64_t> Probe(const K* key, uint64_t hash, const char* what) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    const K* bucket_keys = keys_.data<K>();
    const uint64_t mask = static_cast<uint64_t>(buckets_ - 1);
    int64_t b = static_cast<int64_t>(hash & mask);
    for (int64_t probes = 0;;) {
      const K* at = bucket_keys + b * key_size_;
      if (Equal(at, key) || Equal(at, empty_.data())) return b;
      ++probes;
      b = static_cast<int64_t>((b + probes) & mask);  // quadratic probing
      if (probes >= buckets_) {
        return absl::InternalError(
            absl::StrCat("Internal error in MutableDenseHashTable ", what));
      }
    }
  }

  // Puts `n` keys and their values in, each in its own bucket or the first
  // empty or deleted one on its probes. `skip_free`: the empty and deleted
  // keys among them (the old buckets of a growth) are left out instead of
  // refused.
  absl::Status InsertLocked(const K* keys, const V* values, int64_t n, bool skip_free)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    K* bucket_keys = keys_.data<K>();
    V* bucket_values = values_.data<V>();
    const uint64_t mask = static_cast<uint64_t>(buckets_ - 1);
    for (int64_t i = 0; i < n; ++i) {
      const K* key = keys + i * key_size_;
      const V* value = values + i * value_size_;
      absl::StatusOr<uint64_t> hash = UsableHash(key);
      if (!hash.ok()) {
        if (skip_free) continue;
        return hash.status();
      }
      int64_t b = static_cast<int64_t>(*hash & mask);
      for (int64_t probes = 0;;) {
        K* at = bucket_keys + b * key_size_;
        const bool same = Equal(at, key);
        if (same || Equal(at, empty_.data()) || Equal(at, deleted_.data())) {
          if (!same) {
            std::copy(key, key + key_size_, at);
            ++entries_;
          }
          std::copy(value, value + value_size_, bucket_values + b * value_size_);
          break;
        }
        ++probes;
        b = static_cast<int64_t>((b + probes) & mask);
        if (probes >= buckets_) {
          return absl::InternalError("Internal error in MutableDenseHashTable insert");
        }
      }
    }
    return absl::OkStatus();
  }

  // `buckets` empty buckets, their values the type's zero.
  absl::Status AllocateLocked(int64_t buckets) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (buckets < 4 || (buckets & (buckets - 1)) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of buckets must be at least 4 and a power of 2, got: ", buckets));
    }
    MG_ASSIGN_OR_RETURN(TensorShape key_shape, TensorShape::Build({buckets, key_size_}));
    MG_ASSIGN_OR_RETURN(TensorShape value_shape, TensorShape::Build({buckets, value_size_}));
    MG_ASSIGN_OR_RETURN(Tensor keys, Tensor::Create(key_dtype(), key_shape));
    MG_ASSIGN_OR_RETURN(Tensor values, Tensor::Create(value_dtype(), value_shape));
    for (int64_t b = 0; b < buckets; ++b) {
      std::copy(empty_.begin(), empty_.end(), keys.data<K>() + b * key_size_);
    }
    std::fill(values.data<V>(), values.data<V>() + buckets * value_size_, V());
    keys_ = std::move(keys);
    values_ = std::move(values);
    buckets_ = buckets;
    entries_ = 0;
    return absl::OkStatus();
  }

  const int64_t key_size_, value_size_;
  const float max_load_factor_;
  const std::vector<K> empty_, deleted_;
  const uint64_t empty_hash_, deleted_hash_;

  mutable absl::Mutex mu_;
  Tensor keys_ ABSL_GUARDED_BY(mu_);    // [buckets_, key_size_]
  Tensor values_ ABSL_GUARDED_BY(mu_);  // [buckets_, value_size_]
  int64_t buckets_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t entries_ ABSL_GUARDED_BY(mu_) = 0;
};

// A new table of K to `value` with TensorFlow's kernels' dtypes, or null
// for another.
template <typename K>
std::unique_ptr<DenseTable> NewDenseTableFor(DataType value, const Tensor& empty,
                                             const Tensor& deleted, const TensorShape& shape,
                                             float load) {
  switch (value) {
#define MG_CASE(V)               \
  case DataTypeToEnum<V>::value: \
    return std::make_unique<DenseHashTable<K, V>>(empty, deleted, shape, load);
    MG_CASE(bool)
    MG_CASE(int32_t)
    MG_CASE(int64_t)
    MG_CASE(float)
    MG_CASE(double)
#undef MG_CASE
    default:
      return nullptr;
  }
}

// MutableDenseHashTableV2: the table's handle; the table is made on the
// first run, from that run's empty and deleted keys.
class DenseTableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("key_dtype", &key_dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("value_dtype", &value_dtype_));
    MG_RETURN_IF_ERROR(c->GetAttr("container", &container_));
    MG_RETURN_IF_ERROR(c->GetAttr("shared_name", &name_));
    MG_RETURN_IF_ERROR(c->GetAttr("initial_num_buckets", &initial_buckets_));
    MG_RETURN_IF_ERROR(c->GetAttr("max_load_factor", &max_load_factor_));
    PartialShape shape;
    MG_RETURN_IF_ERROR(c->GetAttr("value_shape", &shape));
    if (!shape.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MutableDenseHashTableV2 '", c->def().name(), "': value_shape ", shape.DebugString(),
          " is not fully defined"));
    }
    value_shape_ = TensorShape(shape.dims());
    if (name_.empty()) name_ = c->def().name();  // as TableOp (lookup_kernels.cc)
    const bool pair = (key_dtype_ == DT_INT32 && (value_dtype_ == DT_INT32 ||
                                                  value_dtype_ == DT_FLOAT ||
                                                  value_dtype_ == DT_DOUBLE)) ||
                      ((key_dtype_ == DT_INT64 || key_dtype_ == DT_STRING) &&
                       (value_dtype_ == DT_BOOL || value_dtype_ == DT_INT32 ||
                        value_dtype_ == DT_INT64 || value_dtype_ == DT_FLOAT ||
                        value_dtype_ == DT_DOUBLE));
    if (!pair) {
      return absl::UnimplementedError(absl::StrCat(
          "MutableDenseHashTableV2 '", c->def().name(), "': no table from ",
          DataTypeString(key_dtype_), " to ", DataTypeString(value_dtype_),
          " (keys int32: values int32, float or double; keys int64 or string: values bool, "
          "int32, int64, float or double)"));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    absl::Status made;
    absl::StatusOr<std::shared_ptr<Resource>> r =
        ctx->resource_manager()->LookupOrCreateResource(container_, name_, [&] {
          absl::StatusOr<std::unique_ptr<DenseTable>> table = Make(ctx);
          if (table.ok()) return std::unique_ptr<Resource>(std::move(*table));
          made = table.status();
          return std::unique_ptr<Resource>();
        });
    MG_RETURN_IF_ERROR(made);
    MG_RETURN_IF_ERROR(r.status());
    auto* table = dynamic_cast<DenseTable*>(r->get());
    if (table == nullptr || table->key_dtype() != key_dtype_ ||
        table->value_dtype() != value_dtype_ || table->value_shape() != value_shape_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "resource ", name_, " exists and is not a ", DataTypeString(key_dtype_), " -> ",
          DataTypeString(value_dtype_), " MutableDenseHashTable"));
    }
    ctx->set_output(0, LookupTableHandle(container_, name_));
    return absl::OkStatus();
  }

 private:
  // TensorFlow's checks, in its order and with its messages.
  absl::StatusOr<std::unique_ptr<DenseTable>> Make(OpKernelContext* ctx) const {
    if (!(max_load_factor_ > 0 && max_load_factor_ < 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_load_factor must be between 0 and 1, got: ", max_load_factor_));
    }
    if (value_shape_.dims() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Empty value must be a scalar or a vector, got shape ", value_shape_.DebugString()));
    }
    const Tensor& empty = ctx->input(0);
    const Tensor& deleted = ctx->input(1);
    if (empty.dims() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Empty key must be a scalar or a vector, got shape ", empty.shape().DebugString()));
    }
    if (empty.shape() != deleted.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Empty and deleted keys must have same shape, got shapes: ",
                       empty.shape().DebugString(), " and ", deleted.shape().DebugString()));
    }
    std::unique_ptr<DenseTable> table =
        key_dtype_ == DT_INT32
            ? NewDenseTableFor<int32_t>(value_dtype_, empty, deleted, value_shape_,
                                        max_load_factor_)
        : key_dtype_ == DT_INT64
            ? NewDenseTableFor<int64_t>(value_dtype_, empty, deleted, value_shape_,
                                        max_load_factor_)
            : NewDenseTableFor<std::string>(value_dtype_, empty, deleted, value_shape_,
                                            max_load_factor_);
    MG_RETURN_IF_ERROR(table->Start(initial_buckets_));
    return table;
  }

  DataType key_dtype_ = DT_INVALID, value_dtype_ = DT_INVALID;
  std::string container_, name_;
  int64_t initial_buckets_ = 0;
  float max_load_factor_ = 0;
  TensorShape value_shape_;
};

}  // namespace

void RegisterDenseHashTableKernels(KernelRegistry* r) {
  r->Register("MutableDenseHashTableV2", MakeFactory<DenseTableOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
