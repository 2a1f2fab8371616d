// Eigen views of tensor data, as TensorFlow's TTypes, and the definitions of
// Tensor's view accessors (declared in core/tensor.h). Include this where
// code computes with Eigen (kernels, numeric tests); the rest of minigraph
// reads elements through Tensor::data<T>() and never parses Eigen.
//
//   TTypes<float>::Flat v = t.flat<float>();
//   TTypes<float, 2>::ConstTensor m = t.tensor<float, 2>();
//
// Thread safety: type aliases only; the views share their Tensor's buffer and
// its rules.

#ifndef MINIGRAPH_CORE_TENSOR_TYPES_H_
#define MINIGRAPH_CORE_TENSOR_TYPES_H_

#include <array>
#include <cstddef>
#include <type_traits>

#include "core/tensor.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {

static_assert(std::is_same_v<Eigen::DenseIndex, std::ptrdiff_t>,
              "core/tensor.h declares TTypes with std::ptrdiff_t indices");

template <typename T, int NDIMS, typename IndexType>
struct TTypes {
  using Tensor = Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstTensor =
      Eigen::TensorMap<Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using ConstScalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<const T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>,
                                Eigen::Aligned>;
  using ConstFlat =
      Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using Matrix = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>,
                                  Eigen::Aligned>;
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
};

// Implementation details follow. Clients should ignore.

template <typename T>
absl::StatusOr<typename TTypes<T>::Flat> Tensor::TryFlat() const {
  absl::Status s = CheckType<T>();
  if (!s.ok()) return s;
  return typename TTypes<T>::Flat(static_cast<T*>(raw_data()), NumElements());
}

template <typename T, int NDIMS>
absl::StatusOr<typename TTypes<T, NDIMS>::Tensor> Tensor::TryTensor() const {
  absl::Status s = CheckType<T>();
  if (!s.ok()) return s;
  if (dims() != NDIMS) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor of shape ", shape_.DebugString(), " has rank ", dims(),
        ", accessed with rank ", NDIMS));
  }
  return typename TTypes<T, NDIMS>::Tensor(static_cast<T*>(raw_data()),
                                           EigenDims<NDIMS>(shape_.dim_sizes()));
}

template <typename T>
typename TTypes<T>::Flat Tensor::flat() const {
  CheckTypeOrDie<T>();
  return typename TTypes<T>::Flat(static_cast<T*>(raw_data()), NumElements());
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() const {
  auto r = TryTensor<T, NDIMS>();
  MG_CHECK(r.ok()) << r.status().message();
  return *r;
}

template <typename T>
typename TTypes<T>::Scalar Tensor::scalar() const {
  CheckTypeOrDie<T>();
  MG_CHECK(NumElements() == 1) << "scalar() on a tensor of shape "
                                << shape_.DebugString();
  return typename TTypes<T>::Scalar(static_cast<T*>(raw_data()));
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) const {
  CheckTypeOrDie<T>();
  MG_CHECK(new_sizes.size() == NDIMS) << "shaped() with the wrong rank";
  int64_t n = 1;
  for (int64_t d : new_sizes) n *= d;
  MG_CHECK(n == NumElements()) << "shaped() changes the element count";
  return typename TTypes<T, NDIMS>::Tensor(static_cast<T*>(raw_data()),
                                           EigenDims<NDIMS>(new_sizes));
}

template <size_t NDIMS>
std::array<std::ptrdiff_t, NDIMS> Tensor::EigenDims(
    absl::Span<const int64_t> sizes) const {
  std::array<std::ptrdiff_t, NDIMS> d;
  for (size_t i = 0; i < NDIMS; ++i) d[i] = sizes[i];
  return d;
}

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_TENSOR_TYPES_H_
