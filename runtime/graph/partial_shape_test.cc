#include "runtime/graph/partial_shape.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PartialShapeTest, UnknownRankScalarAndDims) {
  const PartialShape unknown;
  EXPECT_FALSE(unknown.rank_known());
  EXPECT_EQ(unknown.rank(), -1);
  EXPECT_EQ(unknown.DebugString(), "?");
  EXPECT_FALSE(unknown.IsFullyDefined());

  const PartialShape scalar = PartialShape::Scalar();
  EXPECT_TRUE(scalar.rank_known());
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.DebugString(), "[]");
  EXPECT_TRUE(scalar.IsFullyDefined());

  const PartialShape rows({-1, 784});
  EXPECT_EQ(rows.rank(), 2);
  EXPECT_EQ(rows.dim(0), -1);
  EXPECT_EQ(rows.dim(1), 784);
  EXPECT_EQ(rows.DebugString(), "[?,784]");
  EXPECT_FALSE(rows.IsFullyDefined());
  EXPECT_EQ(PartialShape::UnknownOfRank(3).DebugString(), "[?,?,?]");
  EXPECT_EQ(PartialShape::FromShape(TensorShape({2, 3})).DebugString(), "[2,3]");
  EXPECT_TRUE(PartialShape::FromShape(TensorShape({2, 3})).IsFullyDefined());
}

TEST(PartialShapeTest, ALongShapeShowsItsFirstDimensionsOnly) {
  const PartialShape wide(std::vector<int64_t>(1000, 2));
  EXPECT_EQ(wide.DebugString(), "[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,... (1000 dimensions)]");
}

TEST(PartialShapeTest, IsCompatibleWith) {
  EXPECT_TRUE(PartialShape().IsCompatibleWith(TensorShape({7, 8, 9})));
  EXPECT_TRUE(PartialShape({-1, 784}).IsCompatibleWith(TensorShape({32, 784})));
  EXPECT_FALSE(PartialShape({-1, 784}).IsCompatibleWith(TensorShape({32, 783})));
  EXPECT_FALSE(PartialShape({-1, 784}).IsCompatibleWith(TensorShape({784})));
  EXPECT_TRUE(PartialShape::Scalar().IsCompatibleWith(TensorShape({})));
  EXPECT_FALSE(PartialShape::Scalar().IsCompatibleWith(TensorShape({1})));
}

TEST(PartialShapeTest, ProtoRoundTrip) {
  for (const PartialShape& s :
       {PartialShape(), PartialShape::Scalar(), PartialShape({-1, 3}), PartialShape({0, 5})}) {
    TensorShapeProto p;
    s.AsProto(&p);
    EXPECT_EQ(PartialShape::FromProto(p).DebugString(), s.DebugString());
  }
  TensorShapeProto unknown;
  PartialShape().AsProto(&unknown);
  EXPECT_TRUE(unknown.unknown_rank());
  // Any negative size is an unknown dimension, as TensorFlow reads it.
  TensorShapeProto negative;
  negative.add_dim()->set_size(-7);
  negative.add_dim()->set_size(4);
  EXPECT_EQ(PartialShape::FromProto(negative).DebugString(), "[?,4]");
}

TEST(PartialShapeTest, MergeKeepsWhatEitherKnows) {
  ASSERT_OK_AND_ASSIGN(PartialShape m, PartialShape::Merge(PartialShape({-1, 3}),
                                                           PartialShape({2, -1})));
  EXPECT_EQ(m.DebugString(), "[2,3]");
  ASSERT_OK_AND_ASSIGN(m, PartialShape::Merge(PartialShape(), PartialShape({2, -1})));
  EXPECT_EQ(m.DebugString(), "[2,?]");
  ASSERT_OK_AND_ASSIGN(m, PartialShape::Merge(PartialShape({5}), PartialShape()));
  EXPECT_EQ(m.DebugString(), "[5]");
}

TEST(PartialShapeTest, MergeOfIncompatibleShapesNamesBoth) {
  EXPECT_THAT(PartialShape::Merge(PartialShape({2, 3}), PartialShape({2, 4})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("[2,3]"), HasSubstr("[2,4]"), HasSubstr("incompatible"))));
  EXPECT_THAT(PartialShape::Merge(PartialShape({2}), PartialShape({2, 1})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[2,1]")));
}

// As TensorFlow's broadcast_static_shape: the lower rank is extended with
// 1s; a 1 takes the other side's dimension, an unknown one the other's
// known size above 1.
TEST(PartialShapeTest, BroadcastAsTensorFlow) {
  auto broadcast = [](const PartialShape& a, const PartialShape& b) {
    absl::StatusOr<PartialShape> s = PartialShape::Broadcast(a, b);
    return s.ok() ? s->DebugString() : std::string(s.status().message());
  };
  EXPECT_EQ(broadcast(PartialShape({-1, 1, 3}), PartialShape({4, 1})), "[?,4,3]");
  EXPECT_EQ(broadcast(PartialShape({2, 3}), PartialShape::Scalar()), "[2,3]");
  EXPECT_EQ(broadcast(PartialShape({-1}), PartialShape({1})), "[?]");
  EXPECT_EQ(broadcast(PartialShape({-1}), PartialShape({5})), "[5]");
  EXPECT_EQ(broadcast(PartialShape({-1}), PartialShape({-1})), "[?]");
  EXPECT_EQ(broadcast(PartialShape(), PartialShape({5})), "?");
  EXPECT_THAT(PartialShape::Broadcast(PartialShape({2, 3}), PartialShape({4, 3})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("broadcasting"), HasSubstr("[2,3]"), HasSubstr("[4,3]"))));
}

}  // namespace
}  // namespace minigraph
