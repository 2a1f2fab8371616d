#include "core/tensor_slice.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(TensorSliceTest, ParsesAndPrintsTensorFlowsTextForm) {
  ASSERT_OK_AND_ASSIGN(TensorSlice s, TensorSlice::Parse("0,5:-"));
  EXPECT_EQ(s.dims(), 2);
  EXPECT_FALSE(s.IsFullAt(0));
  EXPECT_TRUE(s.IsFullAt(1));
  EXPECT_EQ(s.DebugString(), "0,5:-");
  EXPECT_EQ(s.SliceShape(TensorShape({10, 3})), TensorShape({5, 3}));
  EXPECT_FALSE(s.Covers(TensorShape({10, 3})));
  EXPECT_TRUE(s.Covers(TensorShape({5, 3})));
  EXPECT_EQ(TensorSlice::FromExtents({2, 0}, {3, TensorSlice::kFullExtent}).DebugString(), "2,3:-");
  ASSERT_OK_AND_ASSIGN(TensorSlice scalar, TensorSlice::Parse(""));
  EXPECT_EQ(scalar.dims(), 0);
  EXPECT_THAT(TensorSlice::Parse("0,5:x").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dimension 1 is \"x\"")));
  EXPECT_THAT(TensorSlice::Parse("-1,2").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("both >= 0")));
}

TEST(TensorSliceTest, ShapeAndSliceEntriesAsSaversWriteThem) {
  ASSERT_OK_AND_ASSIGN(auto entry, ParseShapeAndSlice("10 20 0,5:-"));
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->full, TensorShape({10, 20}));
  EXPECT_EQ(entry->slice.SliceShape(entry->full), TensorShape({5, 20}));
  EXPECT_TRUE(entry->partial());
  EXPECT_EQ(ShapeAndSliceString(entry->full, entry->slice), "10 20 0,5:-");
  ASSERT_OK_AND_ASSIGN(auto whole, ParseShapeAndSlice(""));
  EXPECT_FALSE(whole.has_value());
  ASSERT_OK_AND_ASSIGN(auto all, ParseShapeAndSlice("4 -"));
  EXPECT_FALSE(all->partial());
  EXPECT_THAT(
      ParseShapeAndSlice("10 x 0,5:-").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"x\" is not a dimension size")));
  EXPECT_THAT(ParseShapeAndSlice("10 20 8,5:-").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("reaches past the shape")));
  EXPECT_THAT(ParseShapeAndSlice("10 0,5:-").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 2 dimensions")));
}

}  // namespace
}  // namespace minigraph
