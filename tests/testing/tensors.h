// Tensors for tests: counting values and uniform random ones.
//
//   Tensor x = Iota<float>({2, 3});                    // 0 1 2 / 3 4 5
//   Tensor w = RandomUniform<double>({4, 5}, &rng, -1, 1);

#ifndef MINIGRAPH_TESTS_TESTING_TENSORS_H_
#define MINIGRAPH_TESTS_TESTING_TENSORS_H_

#include <cstdint>
#include <random>

#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace minigraph {

// A tensor of T and `shape` holding from, from + 1, ... in row-major order.
template <typename T>
Tensor Iota(const TensorShape& shape, T from = T(0)) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  T* data = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) data[i] = static_cast<T>(from + static_cast<T>(i));
  return t;
}

// Iota of `dtype` (float, double, int32 or int64), or for DT_STRING the
// one-letter strings "a", "b", ...
Tensor Iota(DataType dtype, const TensorShape& shape);

// A tensor of T and `shape` whose values are drawn uniformly from [lo, hi)
// with `rng` (not owned).
template <typename T>
Tensor RandomUniform(const TensorShape& shape, std::mt19937* rng, double lo, double hi) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::uniform_real_distribution<double> d(lo, hi);
  T* data = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) data[i] = static_cast<T>(d(*rng));
  return t;
}

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_TENSORS_H_
