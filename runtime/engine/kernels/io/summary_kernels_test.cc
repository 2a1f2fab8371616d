// ScalarSummary, HistogramSummary and MergeSummary against TensorFlow's
// encoding.
#include <cfloat>

#include "core/proto/summary.pb.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Summary Parse(const Tensor& t) {
  Summary s;
  EXPECT_EQ(t.dims(), 0);
  EXPECT_TRUE(s.ParseFromString(t.scalar<std::string>()()));
  return s;
}

TEST(SummaryKernelsTest, ScalarSummaryOneValuePerTag) {
  Tensor tags = Tensor::Vector<std::string>({"loss", "accuracy"});
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunKernel("ScalarSummary", {{tags}, {Tensor::Vector<double>({0.25, 0.5})}}));
  Summary s = Parse(out[0]);
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "loss");
  EXPECT_EQ(s.value(0).simple_value(), 0.25f);
  EXPECT_EQ(s.value(1).tag(), "accuracy");
  EXPECT_EQ(s.value(1).simple_value(), 0.5f);
  EXPECT_THAT(RunKernel("ScalarSummary", {{Tensor::Scalar<std::string>("lr")},
                                           {Tensor::Vector<float>({1, 2})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tags and values not the same shape: [] != [2] (tag 'lr')")));
}

TEST(SummaryKernelsTest, HistogramSummaryUsesTensorFlowsBuckets) {
  Tensor values = Tensor::Vector<float>({0.0f, 1.0f, 1.0f, -2.0f, 3.5f});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("HistogramSummary",
                                           {{Tensor::Scalar<std::string>("w")}, {values}}));
  Summary s = Parse(out[0]);
  ASSERT_EQ(s.value_size(), 1);
  EXPECT_EQ(s.value(0).tag(), "w");
  const HistogramProto& h = s.value(0).histo();
  EXPECT_EQ(h.min(), -2.0);
  EXPECT_EQ(h.max(), 3.5);
  EXPECT_EQ(h.num(), 5.0);
  EXPECT_EQ(h.sum(), 3.5);
  EXPECT_EQ(h.sum_squares(), 18.25);
  // The limits TensorFlow uses: 1e-12 * 1.1^k, mirrored, 0 in the middle.
  std::vector<double> pos;
  for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) pos.push_back(v);
  auto first_above = [&](double x) {
    return *std::upper_bound(pos.begin(), pos.end(), x);
  };
  auto first_neg_above = [&](double x) {  // the limit just above a negative x
    auto it = std::lower_bound(pos.begin(), pos.end(), -x);  // |limit| >= |x|
    return -*(it - 1);
  };
  // Non-empty buckets, with each run of empty ones folded into the next
  // limit: ..., (-2 bucket), empty run, (0 bucket), empty run, (1), empty
  // run, (3.5), empty run to DBL_MAX.
  ASSERT_EQ(h.bucket_size(), h.bucket_limit_size());
  std::vector<std::pair<double, double>> nonempty;
  for (int i = 0; i < h.bucket_size(); ++i) {
    if (h.bucket(i) > 0) nonempty.push_back({h.bucket_limit(i), h.bucket(i)});
    if (i > 0) EXPECT_GT(h.bucket_limit(i), h.bucket_limit(i - 1));
    if (i > 0 && h.bucket(i) == 0) EXPECT_GT(h.bucket(i - 1), 0) << "empty runs are folded";
  }
  ASSERT_EQ(nonempty.size(), 4u);
  EXPECT_EQ(nonempty[0], std::make_pair(first_neg_above(-2.0), 1.0));
  EXPECT_EQ(nonempty[1], std::make_pair(pos[0], 1.0));  // 0 falls below 1e-12
  EXPECT_EQ(nonempty[2], std::make_pair(first_above(1.0), 2.0));
  EXPECT_EQ(nonempty[3], std::make_pair(first_above(3.5), 1.0));
  EXPECT_EQ(h.bucket_limit(h.bucket_limit_size() - 1), DBL_MAX);

  // NaN and infinity are errors naming the node.
  EXPECT_THAT(
      RunKernel("HistogramSummary",
                {{Tensor::Scalar<std::string>("w")}, {Tensor::Vector<float>({1, NAN})}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Nan in summary histogram for: ")));
  EXPECT_THAT(
      RunKernel("HistogramSummary",
                {{Tensor::Scalar<std::string>("w")}, {Tensor::Vector<float>({INFINITY})}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Infinity in summary histogram")));
}

TEST(SummaryKernelsTest, MergeSummaryConcatenatesAndRejectsDuplicateTags) {
  ASSERT_OK_AND_ASSIGN(auto a, RunKernel("ScalarSummary", {{Tensor::Scalar<std::string>("a")},
                                                            {Tensor::Scalar<float>(1)}}));
  ASSERT_OK_AND_ASSIGN(auto b, RunKernel("HistogramSummary", {{Tensor::Scalar<std::string>("b")},
                                                               {Tensor::Vector<float>({1, 2})}}));
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("MergeSummary", {{a[0], b[0]}}));
  Summary s = Parse(out[0]);
  ASSERT_EQ(s.value_size(), 2);
  EXPECT_EQ(s.value(0).tag(), "a");
  EXPECT_TRUE(s.value(1).has_histo());
  EXPECT_THAT(RunKernel("MergeSummary", {{a[0], a[0]}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Duplicate tag a found in summary inputs")));
  EXPECT_THAT(RunKernel("MergeSummary", {{Tensor::Scalar<std::string>("\xff\xff")}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Could not parse one of the summary inputs")));
}

}  // namespace
}  // namespace minigraph
