// The batch of an op on two tensors of matrices (BatchMatMulV2,
// MatrixTriangularSolve): their leading dimensions, padded with 1s to one
// rank and broadcast as NumPy does, and for each matrix of the result the
// matrix of each input it reads.
//
//   std::optional<MatrixBatch> b = MatrixBatch::Make(x.shape(), y.shape(), true);
//   if (!b) return absl::InvalidArgumentError(...);  // the op's own words
//   for (int64_t i = 0; i < b->count(); ++i) Use(b->x(i), b->y(i));
//
// A value type, safe to read from any thread once made.
#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATRIX_BATCH_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATRIX_BATCH_H_

#include <algorithm>  // max
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor_shape.h"

namespace minigraph {
namespace kernels_internal {

class MatrixBatch {
 public:
  // nullopt when the batches differ where neither is 1, or (without
  // `broadcast`) differ at all. Both shapes have rank >= 2.
  static std::optional<MatrixBatch> Make(const TensorShape& x, const TensorShape& y,
                                         bool broadcast) {
    const int rx = x.dims() - 2, ry = y.dims() - 2;
    const int rank = std::max(rx, ry);
    std::vector<int64_t> bx(rank, 1), by(rank, 1);
    for (int d = 0; d < rx; ++d) bx[rank - rx + d] = x.dim_size(d);
    for (int d = 0; d < ry; ++d) by[rank - ry + d] = y.dim_size(d);
    MatrixBatch b;
    b.dims_.resize(rank);
    for (int d = 0; d < rank; ++d) {
      if (bx[d] != by[d] && (!broadcast || (bx[d] != 1 && by[d] != 1))) return std::nullopt;
      b.dims_[d] = bx[d] == 1 ? by[d] : bx[d];  // 1 and 0 broadcast to 0
    }
    int64_t count = 1;
    for (int64_t n : b.dims_) count *= n;
    b.x_.resize(count);
    b.y_.resize(count);
    std::vector<int64_t> at(rank, 0);
    for (int64_t i = 0; i < count; ++i) {
      int64_t ix = 0, iy = 0;
      for (int d = 0; d < rank; ++d) {
        ix = ix * bx[d] + (bx[d] == 1 ? 0 : at[d]);
        iy = iy * by[d] + (by[d] == 1 ? 0 : at[d]);
      }
      b.x_[i] = ix;
      b.y_[i] = iy;
      for (int d = rank - 1; d >= 0 && ++at[d] == b.dims_[d]; --d) at[d] = 0;
    }
    return b;
  }

  // The result's batch dimensions.
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t count() const { return static_cast<int64_t>(x_.size()); }
  // The matrices of x and of y that result matrix i reads.
  int64_t x(int64_t i) const { return x_[i]; }
  int64_t y(int64_t i) const { return y_[i]; }

 private:
  std::vector<int64_t> dims_;
  std::vector<int64_t> x_, y_;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_MATRIX_BATCH_H_
