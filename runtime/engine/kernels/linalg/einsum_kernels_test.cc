// Einsum against a brute-force sum over every assignment of its labels,
// and its refusals.
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// out[output labels] = sum over the other labels of the inputs' product,
// for an equation without an ellipsis; `dims` gives each label's size (and
// may name labels the equation does not use).
Tensor BruteForce(const std::string& equation, const std::vector<Tensor>& inputs,
                  const std::map<char, int64_t>& dims) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> subs;
  std::string in = equation.substr(0, arrow);
  for (size_t comma; (comma = in.find(',')) != std::string::npos; in = in.substr(comma + 1)) {
    subs.push_back(in.substr(0, comma));
  }
  subs.push_back(in);
  const std::string out_sub = equation.substr(arrow + 2);
  std::vector<int64_t> out_dims;
  for (char c : out_sub) out_dims.push_back(dims.at(c));
  Tensor out(DT_DOUBLE, TensorShape(out_dims));
  for (int64_t i = 0; i < out.NumElements(); ++i) out.data<double>()[i] = 0;
  std::vector<char> labels;  // the equation's
  for (const auto& [c, d] : dims) {
    if (equation.find(c) != std::string::npos) labels.push_back(c);
  }
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  auto offset = [&](const std::string& sub, const TensorShape& shape) {
    int64_t o = 0;
    for (size_t a = 0; a < sub.size(); ++a) o = o * shape.dim_size(a) + at[sub[a]];
    return o;
  };
  while (true) {
    // (An output with a repeated label is written on its diagonal only.)
    double product = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      product *= inputs[i].data<double>()[offset(subs[i], inputs[i].shape())];
    }
    out.data<double>()[offset(out_sub, out.shape())] += product;
    size_t d = 0;
    for (; d < labels.size() && ++at[labels[d]] == dims.at(labels[d]); ++d) at[labels[d]] = 0;
    if (d == labels.size()) break;
  }
  return out;
}

TEST(EinsumTest, AgainstBruteForce) {
  std::mt19937 rng(3);
  const std::map<char, int64_t> dims = {{'a', 2}, {'b', 3}, {'c', 4}, {'d', 2}, {'e', 5}};
  for (const std::string equation :
       {"ab,bc->ac", "abc,cde->abde", "abcd,cde->abe", "aecd,abcd->acbe", "acbe,aecd->abcd",
        "ab,ab->ab", "abc,abc->ab", "bbc,cd->db", "abc,cd->ad", "ba,ca->cb", "a,b->ab",
        "ab->ba", "bb->b", "bb->", "abc->", "abc->ca", "c->cc", "abc,c->"}) {
    SCOPED_TRACE(equation);
    std::vector<Tensor> inputs;
    std::vector<std::vector<Tensor>> args(1);
    const std::string in = equation.substr(0, equation.find("->"));
    for (const std::string& sub : {in.substr(0, in.find(',')),
                                   in.find(',') == std::string::npos
                                       ? std::string()
                                       : in.substr(in.find(',') + 1)}) {
      if (sub.empty()) continue;
      std::vector<int64_t> shape;
      for (char c : sub) shape.push_back(dims.at(c));
      inputs.push_back(RandomUniform<double>(TensorShape(shape), &rng, -2, 2));
      args[0].push_back(inputs.back());
    }
    ASSERT_OK_AND_ASSIGN(auto out,
                         RunKernel("Einsum", args, {{"equation", MakeAttrValue(equation)}}));
    ExpectTensorNear<double>(out[0], BruteForce(equation, inputs, dims), 1e-12);
  }
}

TEST(EinsumTest, BroadcastsTheEllipsis) {
  std::mt19937 rng(4);
  Tensor x = RandomUniform<double>(TensorShape({3, 1, 2, 4}), &rng, -2, 2);
  Tensor y = RandomUniform<double>(TensorShape({5, 4, 2}), &rng, -2, 2);
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Einsum", {{x, y}},
                                           {{"equation", MakeAttrValue("...ij,...jk->...ik")}}));
  ASSERT_EQ(out[0].shape(), TensorShape({3, 5, 2, 2}));
  for (int64_t a = 0; a < 3; ++a) {
    for (int64_t b = 0; b < 5; ++b) {
      for (int64_t i = 0; i < 2; ++i) {
        for (int64_t k = 0; k < 2; ++k) {
          double want = 0;
          for (int64_t j = 0; j < 4; ++j) {
            want += x.data<double>()[(a * 2 + i) * 4 + j] * y.data<double>()[(b * 4 + j) * 2 + k];
          }
          EXPECT_NEAR(out[0].data<double>()[((a * 5 + b) * 2 + i) * 2 + k], want, 1e-12);
        }
      }
    }
  }
}

TEST(EinsumTest, ManySmallProductsRunOnThePool) {
  // 64 products of 16x8 by 8x16 (attention's shape): GemmBatch shares them
  // between the intra-op threads; each must still be its own.
  std::mt19937 rng(5);
  Tensor q = RandomUniform<double>(TensorShape({8, 16, 8, 8}), &rng, -1, 1);
  Tensor k = RandomUniform<double>(TensorShape({8, 16, 8, 8}), &rng, -1, 1);
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Einsum", {{q, k}},
                                           {{"equation", MakeAttrValue("bqhd,bkhd->bhqk")}}));
  const std::map<char, int64_t> dims = {{'b', 8}, {'q', 16}, {'h', 8}, {'d', 8}, {'k', 16}};
  ExpectTensorNear<double>(out[0], BruteForce("bqhd,bkhd->bhqk", {q, k}, dims), 1e-12);
}

TEST(EinsumTest, RefusesWhatTensorFlowRefuses) {
  Tensor m(DT_FLOAT, TensorShape({2, 3}));
  Tensor cube(DT_FLOAT, TensorShape({2, 3, 4}));
  auto run = [](const std::vector<Tensor>& in, const std::string& eq) {
    return RunKernel("Einsum", {in}, {{"equation", MakeAttrValue(eq)}});
  };
  EXPECT_THAT(run({m}, "ij"), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("Expecting exactly one '->'")));
  EXPECT_THAT(run({m, m, m}, "ij,jk,kl->il"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 or 2 input subscripts")));
  EXPECT_THAT(run({m}, "ij->ijk"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no input has")));
  EXPECT_THAT(run({m}, "i.j->ij"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid ellipsis")));
  EXPECT_THAT(run({m}, "i1->i"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid character")));
  EXPECT_THAT(run({cube, m}, "ij,jk->ik"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected input 0 to have rank 2 but got: 3")));
  EXPECT_THAT(run({m, m}, "ij,jk->ik"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Expected dimension 3")));
  EXPECT_THAT(run({cube}, "...ij->ij"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("broadcasting dimension")));
  Tensor a(DT_FLOAT, TensorShape({2, 3, 4})), b(DT_FLOAT, TensorShape({3, 4, 5}));
  // (Refused by the shape function, as TensorFlow's, before the kernel's
  // "Invalid broadcasting dimensions".)
  EXPECT_THAT(run({a, b}, "...ij,...jk->...ik"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("broadcasting")));
  Tensor s(DT_STRING, TensorShape({2}));
  EXPECT_FALSE(run({s}, "i->").ok());
}

}  // namespace
}  // namespace minigraph
