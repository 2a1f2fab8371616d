// The element of a DT_VARIANT tensor: an object of any C++ type a kernel
// makes (a tf.data dataset, a list of tensors), or, read from a TensorProto,
// the encoded VariantTensorDataProto TensorFlow wrote.
//
//   class MyList : public VariantValue { ... };
//   Tensor t(DT_VARIANT, TensorShape({}));
//   *t.data<Variant>() = Variant(std::make_shared<const MyList>(...));
//   const MyList* list = t.data<Variant>()->get<MyList>();  // null if not one
//
// Values are immutable and shared: copying a Variant (and so a tensor of
// them) copies a pointer, which is what TensorFlow's copy of an immutable
// value amounts to. A kernel that changes a value makes a new one.
//
// Thread-safe: a value may be read from any number of threads.

#ifndef MINIGRAPH_CORE_VARIANT_H_
#define MINIGRAPH_CORE_VARIANT_H_

#include <memory>
#include <string>
#include <utility>

#include "core/proto/tensor.pb.h"

namespace minigraph {

class VariantValue {
 public:
  virtual ~VariantValue() = default;

  // TensorFlow's name of the type ("tensorflow::data::DatasetBase" style
  // names are not required; it is shown in messages and encoded).
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const { return TypeName(); }

  // Writes the value's encoded form. The default writes only the type name:
  // objects such as datasets, which hold functions and files, have no
  // encoding in minigraph.
  virtual void Encode(VariantTensorDataProto* proto) const;
};

class Variant {
 public:
  // Empty: what a new DT_VARIANT tensor holds.
  Variant() = default;
  explicit Variant(std::shared_ptr<const VariantValue> value) : value_(std::move(value)) {}
  // Holds `encoded` as it is: what a TensorProto's variant_val decodes to.
  explicit Variant(const VariantTensorDataProto& encoded);

  bool empty() const { return value_ == nullptr; }
  // The value as a T, or null when it holds no T.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  const std::shared_ptr<const VariantValue>& value() const { return value_; }

  // "" when empty.
  std::string TypeName() const { return value_ ? value_->TypeName() : std::string(); }
  std::string DebugString() const;
  // An empty Variant encodes as an empty proto.
  VariantTensorDataProto Encode() const;

 private:
  std::shared_ptr<const VariantValue> value_;
};

// The encoded form, held as read (from a TensorProto or a function's
// constant); its type name is the encoded type_name.
class EncodedVariant : public VariantValue {
 public:
  explicit EncodedVariant(VariantTensorDataProto proto) : proto_(std::move(proto)) {}
  std::string TypeName() const override { return proto_.type_name(); }
  void Encode(VariantTensorDataProto* proto) const override { *proto = proto_; }
  const VariantTensorDataProto& proto() const { return proto_; }

 private:
  VariantTensorDataProto proto_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_VARIANT_H_
