// The Fourier transforms against a direct sum, round trips, and refusals.
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Tensor RandomComplex(const TensorShape& shape, std::mt19937* rng) {
  std::normal_distribution<double> normal;
  Tensor t(DT_COMPLEX128, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<complex128>()[i] = complex128(normal(*rng), normal(*rng));
  }
  return t;
}

TEST(FftTest, EveryLengthAgainstTheDirectSum) {
  std::mt19937 rng(1);
  // Powers of two, kissfft's radices (3, 5), a prime and one point, in a
  // batch of two.
  for (int64_t n : {1, 2, 3, 5, 8, 12, 13, 30}) {
    SCOPED_TRACE(n);
    Tensor x = RandomComplex(TensorShape({2, n}), &rng);
    ASSERT_OK_AND_ASSIGN(auto y, RunKernel("FFT", {{x}}));
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t k = 0; k < n; ++k) {
        complex128 want = 0;
        for (int64_t j = 0; j < n; ++j) {
          want += x.data<complex128>()[b * n + j] * std::polar(1.0, -2 * M_PI * j * k / n);
        }
        EXPECT_NEAR(std::abs(y[0].data<complex128>()[b * n + k] - want), 0, 1e-12);
      }
    }
    ASSERT_OK_AND_ASSIGN(auto back, RunKernel("IFFT", {{y[0]}}));
    for (int64_t i = 0; i < 2 * n; ++i) {
      EXPECT_NEAR(std::abs(back[0].data<complex128>()[i] - x.data<complex128>()[i]), 0, 1e-12);
    }
  }
}

TEST(FftTest, RealTransformsRoundTripAndCrop) {
  std::mt19937 rng(2);
  std::normal_distribution<double> normal;
  // 3 x 9 points, of which RFFT2D reads the leading 2 x 8.
  Tensor x(DT_DOUBLE, TensorShape({3, 9}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<double>()[i] = normal(rng);
  const std::map<std::string, AttrValue> types = {{"Treal", MakeAttrValue(DT_DOUBLE)},
                                                  {"Tcomplex", MakeAttrValue(DT_COMPLEX128)}};
  Tensor lengths = Tensor::Vector<int32_t>({2, 8});
  ASSERT_OK_AND_ASSIGN(auto spectrum, RunKernel("RFFT2D", {{x}, {lengths}}, types));
  EXPECT_EQ(spectrum[0].shape(), TensorShape({2, 5}));
  ASSERT_OK_AND_ASSIGN(auto back, RunKernel("IRFFT2D", {{spectrum[0]}, {lengths}}, types));
  ASSERT_EQ(back[0].shape(), TensorShape({2, 8}));
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 8; ++c) {
      EXPECT_NEAR(back[0].data<double>()[r * 8 + c], x.data<double>()[r * 9 + c], 1e-12);
    }
  }
}

TEST(FftTest, RefusesWhatTensorFlowRefuses) {
  Tensor x(DT_FLOAT, TensorShape({2, 4}));
  for (int i = 0; i < 8; ++i) x.data<float>()[i] = 1;
  EXPECT_THAT(RunKernel("RFFT", {{x}, {Tensor::Vector<int32_t>({6})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input dimension 1 must have length of at least 6 but got: 4")));
  EXPECT_THAT(RunKernel("RFFT", {{x}, {Tensor::Vector<int32_t>({-1})}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must >= 0")));
  EXPECT_THAT(RunKernel("RFFT", {{x}, {Tensor::Vector<int32_t>({2, 2})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fft_length must have shape")));
  // (The shape function refuses it first, as TensorFlow's.)
  Tensor z(DT_COMPLEX64, TensorShape({4}));
  EXPECT_THAT(RunKernel("FFT2D", {{z}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least rank 2")));
  // A length of 0 gives an empty output (TensorFlow aborts the process).
  ASSERT_OK_AND_ASSIGN(auto empty, RunKernel("RFFT", {{x}, {Tensor::Vector<int32_t>({0})}}));
  EXPECT_EQ(empty[0].shape(), TensorShape({2, 0}));
}

}  // namespace
}  // namespace minigraph
