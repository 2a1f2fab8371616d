// A lookup table (tf.lookup) as the table ops see it: a resource in the
// session's ResourceMgr that HashTableV2, MutableHashTableV2,
// MutableHashTableOfTensorsV2 (lookup_kernels.cc) and MutableDenseHashTableV2
// (dense_hash_table.cc) make, and LookupTableFindV2 and its siblings use.
//
// Thread safety: a table is shared by every step of its session, so
// implementations of Find, Initialize, Insert, Remove, Import, Export and
// Size must be safe to call concurrently (those here take a reader-writer
// mutex). The dtypes and shapes never change.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LOOKUP_TABLE_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LOOKUP_TABLE_H_

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "core/tensor.h"
#include "runtime/engine/resource_mgr.h"

namespace minigraph {
namespace kernels_internal {

// TensorFlow's type name of a table, as its "does not exist" errors print it.
inline constexpr char kLookupTypeName[] = "N10tensorflow6lookup15LookupInterfaceE";

class LookupTable : public Resource {
 public:
  LookupTable(DataType key, DataType value, bool is_mutable, TensorShape value_shape = {},
              TensorShape key_shape = {})
      : key_dtype_(key), value_dtype_(value), mutable_(is_mutable),
        value_shape_(std::move(value_shape)), key_shape_(std::move(key_shape)) {}
  std::string TypeName() const override { return kLookupTypeName; }

  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  bool is_mutable() const { return mutable_; }
  // Each key's value: a scalar, or a vector (MutableHashTableOfTensors and
  // MutableDenseHashTable).
  const TensorShape& value_shape() const { return value_shape_; }
  // Each key: a scalar, or a vector (MutableDenseHashTable).
  const TensorShape& key_shape() const { return key_shape_; }

  // What Find gives for `keys`: their shape without the key's dimensions,
  // then the value's.
  TensorShape FoundShape(const TensorShape& keys) const;

  // InvalidArgument unless `keys` ends with the key's shape.
  absl::Status CheckKeyShape(const TensorShape& keys) const;
  // TensorFlow's checks of a lookup's keys and default value, with its
  // messages; the table's dtypes are checked before.
  virtual absl::Status CheckFind(const Tensor& keys, const Tensor& default_value) const;
  // The same for an insert's or (`import`) a restore's keys and values.
  virtual absl::Status CheckFill(const Tensor& keys, const Tensor& values, bool import) const;

  // values = table[keys], or default_value where absent.
  virtual absl::Status Find(const Tensor& keys, const Tensor& default_value, Tensor* values) = 0;
  // A HashTable's one filling: again with the same entries is a no-op.
  virtual absl::Status Initialize(const Tensor& keys, const Tensor& values) = 0;
  virtual absl::Status Insert(const Tensor& keys, const Tensor& values) = 0;
  virtual absl::Status Remove(const Tensor& keys) = 0;
  // Replaces every entry (a mutable table's restore).
  virtual absl::Status Import(const Tensor& keys, const Tensor& values) = 0;
  // Tensors of their own: later changes to the table do not show in them.
  virtual std::pair<Tensor, Tensor> Export() = 0;
  virtual int64_t Size() = 0;

 private:
  const DataType key_dtype_, value_dtype_;
  const bool mutable_;
  const TensorShape value_shape_, key_shape_;
};

// The scalar resource handle of the table (container, name) on this
// process's CPU, as the table ops output it.
Tensor LookupTableHandle(const std::string& container, const std::string& name);

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_LOOKUP_TABLE_H_
