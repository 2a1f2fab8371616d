// RecvTensorResponse written without copying the tensor is TensorFlow's
// message byte for byte, and the reader takes any valid one.
#include "session/distributed/internal/recv_tensor_coding.h"

#include "core/proto/worker.pb.h"
#include "core/status_matchers.h"
#include "core/tensor_proto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace distributed_internal {
namespace {

std::string Flatten(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(b.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices)
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

grpc::ByteBuffer FromString(const std::string& s) {
  grpc::Slice slice(s);
  return grpc::ByteBuffer(&slice, 1);
}

Tensor Floats(int n) {
  Tensor t(DT_FLOAT, TensorShape({2, n / 2}));
  for (int i = 0; i < n; ++i) t.data<float>()[i] = 0.5f * i;
  return t;
}

TEST(RecvTensorCodingTest, TheZeroCopyEncodingIsTheProtobufMessage) {
  const Tensor t = Floats(1000);
  grpc::ByteBuffer encoded = EncodeRecvTensorResponse(t, false);
  tensorflow::RecvTensorResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(Flatten(encoded)));
  tensorflow::RecvTensorResponse expected;
  TensorToProto(t, expected.mutable_tensor());
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
  Tensor back;
  bool dead = true;
  ASSERT_OK(DecodeRecvTensorResponse(&encoded, &back, &dead));
  EXPECT_FALSE(dead);
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(back.tensor_data(), t.tensor_data());
}

TEST(RecvTensorCodingTest, DecodesAnyValidResponse) {
  // Typed values instead of tensor_content, as other senders may write.
  tensorflow::RecvTensorResponse typed;
  typed.mutable_tensor()->set_dtype(DT_INT32);
  typed.mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(3);
  typed.mutable_tensor()->add_int_val(7);
  typed.set_send_start_micros(123);
  grpc::ByteBuffer b = FromString(typed.SerializeAsString());
  Tensor t;
  bool dead = true;
  ASSERT_OK(DecodeRecvTensorResponse(&b, &t, &dead));
  ASSERT_EQ(t.NumElements(), 3);
  EXPECT_EQ(t.data<int32_t>()[2], 7);  // the last value repeats
  // Strings, and a dead value.
  Tensor s(DT_STRING, TensorShape({2}));
  s.data<std::string>()[0] = "a";
  s.data<std::string>()[1] = std::string(1000, 'b');
  grpc::ByteBuffer sb = EncodeRecvTensorResponse(s, false);
  ASSERT_OK(DecodeRecvTensorResponse(&sb, &t, &dead));
  EXPECT_EQ(t.data<std::string>()[1], std::string(1000, 'b'));
  grpc::ByteBuffer db = EncodeRecvTensorResponse(Tensor(), true);
  ASSERT_OK(DecodeRecvTensorResponse(&db, &t, &dead));
  EXPECT_TRUE(dead);
}

TEST(RecvTensorCodingTest, BadBytesAreDataLossAndWrongSizesInvalidArgument) {
  std::string good = Flatten(EncodeRecvTensorResponse(Floats(8), false));
  grpc::ByteBuffer cut = FromString(good.substr(0, good.size() - 3));
  Tensor t;
  bool dead;
  EXPECT_THAT(DecodeRecvTensorResponse(&cut, &t, &dead), StatusIs(absl::StatusCode::kDataLoss));
  tensorflow::RecvTensorResponse wrong;
  TensorToProto(Floats(8), wrong.mutable_tensor());
  wrong.mutable_tensor()->mutable_tensor_shape()->mutable_dim(1)->set_size(5);
  grpc::ByteBuffer w = FromString(wrong.SerializeAsString());
  EXPECT_THAT(DecodeRecvTensorResponse(&w, &t, &dead),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("tensor_content")));
}

}  // namespace
}  // namespace distributed_internal
}  // namespace minigraph
