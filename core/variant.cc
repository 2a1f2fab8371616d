#include "core/variant.h"

#include "absl/strings/str_cat.h"

namespace minigraph {

void VariantValue::Encode(VariantTensorDataProto* proto) const {
  proto->Clear();
  proto->set_type_name(TypeName());
}

Variant::Variant(const VariantTensorDataProto& encoded)
    : value_(std::make_shared<const EncodedVariant>(encoded)) {}

std::string Variant::DebugString() const {
  return value_ ? value_->DebugString() : std::string("<empty variant>");
}

VariantTensorDataProto Variant::Encode() const {
  VariantTensorDataProto proto;
  if (value_) value_->Encode(&proto);
  return proto;
}

}  // namespace minigraph
