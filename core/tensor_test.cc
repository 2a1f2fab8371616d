#include "core/tensor.h"

#include <cmath>
#include <limits>
#include <random>

#include "core/status_matchers.h"
#include "core/tensor_proto.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(TensorShapeTest, BuildAndDebugString) {
  ASSERT_OK_AND_ASSIGN(TensorShape s, TensorShape::Build({69, 20}));
  EXPECT_EQ(s.dims(), 2);
  EXPECT_EQ(s.num_elements(), 1380);
  EXPECT_EQ(s.DebugString(), "[69,20]");
  EXPECT_EQ(TensorShape().DebugString(), "[]");
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape({3, 0, 5}).num_elements(), 0);
}

TEST(TensorShapeTest, OverflowNegativeAndRankAreErrors) {
  EXPECT_THAT(TensorShape::Build({int64_t{1} << 40, int64_t{1} << 30}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overflow")));
  EXPECT_THAT(TensorShape::Build({2, -1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative")));
  EXPECT_THAT(TensorShape::Build({1, 1, 1, 1, 1, 1, 1, 1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank")));
  EXPECT_OK(TensorShape::Build({1, 1, 1, 1, 1, 1, 1, 1}));
  // Overflow is detected even past a zero dimension's neighbours.
  EXPECT_THAT(TensorShape::Build({std::numeric_limits<int64_t>::max(), 2}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  TensorShapeProto p;
  p.set_unknown_rank(true);
  EXPECT_THAT(TensorShape::FromProto(p), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TensorTest, BufferIsAlignedAndCopiesAlias) {
  Tensor t(DT_FLOAT, TensorShape({3, 5}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
  t.flat<float>().setConstant(2.0f);
  Tensor alias = t;
  alias.matrix<float>()(1, 2) = 7.0f;
  EXPECT_EQ(t.data<float>()[1 * 5 + 2], 7.0f);
  EXPECT_TRUE(alias.SharesBufferWith(t));
  Tensor copy = tensor::DeepCopy(t);
  EXPECT_FALSE(copy.SharesBufferWith(t));
  copy.data<float>()[0] = -1.0f;
  EXPECT_EQ(t.data<float>()[0], 2.0f);
  EXPECT_EQ(copy.data<float>()[7], 7.0f);
}

TEST(TensorTest, LargeBuffersComeFromHugePagesAndAreAligned) {
  Tensor t(DT_FLOAT, TensorShape({1 << 20}));  // 4 MiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % (2 << 20), 0u);
  t.flat<float>().setConstant(1.0f);
  EXPECT_EQ(t.data<float>()[(1 << 20) - 1], 1.0f);
}

TEST(TensorTest, MaxTensorBytesRefusesBeforeAllocating) {
  const size_t saved = MaxTensorBytes();
  EXPECT_GE(saved, size_t{1} << 30);  // the machine's memory by default
  SetMaxTensorBytes(4096);
  EXPECT_OK(Tensor::Create(DT_FLOAT, TensorShape({1024})).status());
  EXPECT_THAT(Tensor::Create(DT_FLOAT, TensorShape({1025})),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("1025 float elements needs 4100 bytes, more than the limit of "
                                 "4096 (max_tensor_bytes)")));
  // A TensorProto asking for a terabyte of zeros is refused, not attempted.
  TensorProto huge;
  huge.set_dtype(DT_FLOAT);
  huge.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 38);
  EXPECT_THAT(TensorFromProto(huge), StatusIs(absl::StatusCode::kResourceExhausted));
  SetMaxTensorBytes(saved);
}

TEST(TensorTest, BadDtypeAndRankAccessAreErrors) {
  Tensor t(DT_INT32, TensorShape({2, 2}));
  EXPECT_THAT(t.TryFlat<float>(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("dtype int32, accessed as float")));
  EXPECT_THAT((t.TryTensor<int32_t, 3>()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank 2")));
  EXPECT_OK(t.TryMatrix<int32_t>());
  EXPECT_DEATH(t.flat<float>(), "accessed as float");
  EXPECT_DEATH(t.scalar<int32_t>(), "scalar");
}

TEST(TensorTest, ReshapedSharesBufferAndChecksCount) {
  Tensor t(DT_INT64, TensorShape({2, 3}));
  ASSERT_OK_AND_ASSIGN(Tensor r, t.Reshaped(TensorShape({3, 2})));
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_THAT(t.Reshaped(TensorShape({4})), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TensorTest, StringsAndEmptyTensors) {
  Tensor s(DT_STRING, TensorShape({3}));
  EXPECT_EQ(s.data<std::string>()[0], "");
  s.data<std::string>()[1] = std::string(1000, 'x');
  Tensor c = tensor::DeepCopy(s);
  EXPECT_EQ(c.data<std::string>()[1].size(), 1000u);
  Tensor empty(DT_FLOAT, TensorShape({0, 4}));
  EXPECT_EQ(empty.NumElements(), 0);
  EXPECT_TRUE(empty.IsInitialized());
  EXPECT_EQ(tensor::DeepCopy(empty).shape(), empty.shape());
  EXPECT_FALSE(Tensor().IsInitialized());
}

TEST(TensorTest, CreateReportsUnsupportedDtype) {
  EXPECT_THAT(Tensor::Create(DT_QINT8, TensorShape({2})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DT_QINT8")));
}

TEST(TensorTest, DebugStringSummarizes) {
  Tensor t = Tensor::Vector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_EQ(t.DebugString(3), "Tensor<type: int32 shape: [8] values: 1 2 3...>");
  EXPECT_EQ(Tensor::Scalar<bool>(true).SummarizeValue(10), "1");
}

// Fills `t` with random values of its dtype.
void FillRandom(Tensor* t, std::mt19937* rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  switch (t->dtype()) {
    case DT_STRING:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->flat<std::string>()(i) = std::string(i % 5, static_cast<char>('a' + i % 26));
      }
      return;
    case DT_RESOURCE:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->flat<ResourceHandle>()(i).set_name(absl::StrCat("var", i));
      }
      return;
    case DT_VARIANT:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        VariantTensorDataProto v;
        v.set_type_name(absl::StrCat("type", i));
        t->flat<Variant>()(i) = Variant(v);
      }
      return;
    case DT_BOOL:
      for (int64_t i = 0; i < t->NumElements(); ++i) t->flat<bool>()(i) = byte(*rng) & 1;
      return;
    case DT_HALF:
      for (int64_t i = 0; i < t->NumElements(); ++i) t->flat<half>()(i) = half(byte(*rng) / 8.0f);
      return;
    case DT_BFLOAT16:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->flat<bfloat16>()(i) = bfloat16(byte(*rng) / 8.0f);
      }
      return;
    case DT_FLOAT:
      for (int64_t i = 0; i < t->NumElements(); ++i) t->flat<float>()(i) = byte(*rng) / 3.0f;
      return;
    case DT_DOUBLE:
      for (int64_t i = 0; i < t->NumElements(); ++i) t->flat<double>()(i) = byte(*rng) / 3.0;
      return;
    case DT_COMPLEX64:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->flat<complex64>()(i) = complex64(byte(*rng), -byte(*rng));
      }
      return;
    case DT_COMPLEX128:
      for (int64_t i = 0; i < t->NumElements(); ++i) {
        t->flat<complex128>()(i) = complex128(byte(*rng), -byte(*rng));
      }
      return;
    default: {
      // Integer types: random bytes are valid values.
      auto* p = static_cast<unsigned char*>(t->raw_data());
      for (size_t i = 0; i < t->TotalBytes(); ++i) p[i] = byte(*rng);
    }
  }
}

void ExpectSameValues(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  if (DataTypeCanUseMemcpy(a.dtype())) {
    EXPECT_EQ(a.tensor_data(), b.tensor_data()) << DataTypeName(a.dtype());
  } else {
    EXPECT_EQ(a.SummarizeValue(1 << 20), b.SummarizeValue(1 << 20));
  }
}

class TensorProtoRoundTripTest : public ::testing::TestWithParam<DataType> {};

TEST_P(TensorProtoRoundTripTest, ContentAndFieldForms) {
  std::mt19937 rng(GetParam());
  for (const TensorShape& shape :
       {TensorShape(), TensorShape({7}), TensorShape({3, 4}), TensorShape({2, 0, 3})}) {
    Tensor t(GetParam(), shape);
    FillRandom(&t, &rng);
    TensorProto content, field;
    TensorToProto(t, &content);
    TensorToProtoField(t, &field);
    EXPECT_EQ(field.tensor_content(), "");
    ASSERT_OK_AND_ASSIGN(Tensor from_content, TensorFromProto(content));
    ASSERT_OK_AND_ASSIGN(Tensor from_field, TensorFromProto(field));
    ExpectSameValues(t, from_content);
    ExpectSameValues(t, from_field);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryDtype, TensorProtoRoundTripTest,
    ::testing::Values(DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8,
                      DT_STRING, DT_COMPLEX64, DT_INT64, DT_BOOL, DT_BFLOAT16,
                      DT_UINT16, DT_COMPLEX128, DT_HALF, DT_RESOURCE, DT_VARIANT,
                      DT_UINT32, DT_UINT64),
    [](const ::testing::TestParamInfo<DataType>& info) {
      return DataTypeName(info.param);
    });

TEST(TensorProtoTest, TypedFieldRepeatsLastValueAsTensorFlowDoes) {
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(4);
  p.add_float_val(1.5f);
  p.add_float_val(2.5f);
  ASSERT_OK_AND_ASSIGN(Tensor t, TensorFromProto(p));
  EXPECT_EQ(t.SummarizeValue(10), "1.5 2.5 2.5 2.5");
  p.clear_float_val();
  ASSERT_OK_AND_ASSIGN(Tensor zeros, TensorFromProto(p));
  EXPECT_EQ(zeros.SummarizeValue(10), "0 0 0 0");
}

TEST(TensorProtoTest, HalfUsesBitPatternsInHalfVal) {
  Tensor t = Tensor::Vector<half>({half(1.0f), half(-2.0f)});
  TensorProto p;
  TensorToProtoField(t, &p);
  ASSERT_EQ(p.half_val_size(), 2);
  EXPECT_EQ(p.half_val(0), 0x3c00);
  EXPECT_EQ(p.half_val(1), 0xc000);
}

TEST(TensorProtoTest, BoolBytesOtherThanZeroAndOneReadAsTrue) {
  // Found by tensor_proto_fuzzer (tests/fuzz/regressions): reading a bool
  // byte 45 was undefined behaviour.
  TensorProto p;
  p.set_dtype(DT_BOOL);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string("\x2d\x00\x01", 3));
  ASSERT_OK_AND_ASSIGN(Tensor t, TensorFromProto(p));
  EXPECT_EQ(t.SummarizeValue(3), "1 0 1");
  EXPECT_EQ(static_cast<const uint8_t*>(t.raw_data())[0], 1);
}

TEST(TensorProtoTest, RepeatingAHeavyLastValuePastTheLimitIsRefused) {
  // Found by tensor_proto_fuzzer (an out-of-memory): a typed field fills the
  // tensor by repeating its last value, so a few bytes of proto could ask
  // for gigabytes of strings, resource handles or variants.
  const size_t saved = MaxTensorBytes();
  SetMaxTensorBytes(size_t{1} << 20);
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(1000);
  p.add_string_val(std::string(4096, 'x'));  // 4 MB once repeated
  EXPECT_THAT(TensorFromProto(p),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("TensorProto of 1000 string elements (1 given, the last "
                                 "repeated) would hold more than the limit of 1048576 bytes")));
  p.mutable_tensor_shape()->mutable_dim(0)->set_size(100);  // 400 KB: fine
  ASSERT_OK_AND_ASSIGN(Tensor t, TensorFromProto(p));
  EXPECT_EQ(t.data<std::string>()[99].size(), 4096u);
  SetMaxTensorBytes(saved);
}

TEST(TensorProtoTest, StringsInTensorContentAsTensorFlowsCppWritesThem) {
  // TensorFlow 2.21's client sends string constants so (report_uninitialized
  // _variables' names): every length as a varint32, then the bytes.
  TensorProto p;
  p.set_dtype(DT_STRING);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  const std::string long_one(300, 'z');  // a two-byte varint
  p.set_tensor_content(std::string("\x01\x00\xac\x02", 4) + "a" + long_one);
  ASSERT_OK_AND_ASSIGN(Tensor t, TensorFromProto(p));
  EXPECT_EQ(t.data<std::string>()[0], "a");
  EXPECT_EQ(t.data<std::string>()[1], "");
  EXPECT_EQ(t.data<std::string>()[2], long_one);

  p.set_tensor_content(std::string("\x01\x00\xac\x02", 4) + "a" + long_one + "!");
  EXPECT_THAT(TensorFromProto(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("add up to 301 bytes, but 302 follow")));
  p.set_tensor_content(std::string("\x01\x00\xac", 3));
  EXPECT_THAT(TensorFromProto(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("ends inside the strings' lengths")));
  p.mutable_tensor_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
  EXPECT_THAT(TensorFromProto(p), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("fewer than one per string's length")));
}

TEST(TensorProtoTest, TensorToProtoContentWritesStringsAsTensorFlowsCppDoes) {
  Tensor t(DT_STRING, TensorShape({3}));
  const std::string long_one(300, 'z');
  t.data<std::string>()[0] = "a";
  t.data<std::string>()[2] = long_one;
  TensorProto p;
  TensorToProtoContent(t, &p);
  EXPECT_EQ(p.string_val_size(), 0);
  EXPECT_EQ(p.tensor_content(), std::string("\x01\x00\xac\x02", 4) + "a" + long_one);
  ASSERT_OK_AND_ASSIGN(Tensor back, TensorFromProto(p));
  EXPECT_EQ(back.data<std::string>()[2], long_one);
  // Other dtypes as TensorToProto writes them.
  TensorProto floats;
  TensorToProtoContent(Tensor::Vector<float>({1.5f}), &floats);
  EXPECT_EQ(floats.tensor_content().size(), sizeof(float));
}

TEST(TensorProtoTest, BadProtosAreInvalidArgument) {
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string(11, '\0'));
  EXPECT_THAT(TensorFromProto(p),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("11 bytes")));
  p.mutable_tensor_shape()->mutable_dim(0)->set_size(-1);
  EXPECT_THAT(TensorFromProto(p),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("shape")));
  TensorProto q;
  q.set_dtype(DT_QINT32);
  EXPECT_THAT(TensorFromProto(q),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DT_QINT32")));
  TensorProto s;
  s.set_dtype(DT_STRING);
  s.set_tensor_content("abcd");
  EXPECT_THAT(TensorFromProto(s), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

// A C++ object in a DT_VARIANT tensor: found again by type, shared by
// copies, shown and encoded by its type name; an encoded value read from a
// TensorProto comes back as it was written.
class Counter : public VariantValue {
 public:
  explicit Counter(int n) : n(n) {}
  std::string TypeName() const override { return "test::Counter"; }
  std::string DebugString() const override { return absl::StrCat("Counter(", n, ")"); }
  const int n;
};

TEST(VariantTest, HoldsObjectsAndEncodedValues) {
  Tensor t(DT_VARIANT, TensorShape({2}));
  EXPECT_TRUE(t.data<Variant>()[0].empty());
  t.data<Variant>()[0] = Variant(std::make_shared<const Counter>(7));
  const Counter* c = t.data<Variant>()[0].get<Counter>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->n, 7);
  EXPECT_EQ(t.data<Variant>()[0].get<EncodedVariant>(), nullptr);
  EXPECT_EQ(t.data<Variant>()[0].DebugString(), "Counter(7)");

  Tensor copy = tensor::DeepCopy(t);
  EXPECT_EQ(copy.data<Variant>()[0].get<Counter>(), c) << "immutable values are shared";
  EXPECT_EQ(t.SummarizeValue(2), "<variant test::Counter> <variant >");

  TensorProto proto;
  TensorToProtoField(t, &proto);
  ASSERT_EQ(proto.variant_val_size(), 2);
  EXPECT_EQ(proto.variant_val(0).type_name(), "test::Counter");
  proto.mutable_variant_val(1)->set_metadata("bytes");
  ASSERT_OK_AND_ASSIGN(Tensor back, TensorFromProto(proto));
  const EncodedVariant* e = back.data<Variant>()[1].get<EncodedVariant>();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->proto().metadata(), "bytes");
  EXPECT_EQ(back.data<Variant>()[1].Encode().metadata(), "bytes");
}

}  // namespace
}  // namespace minigraph
