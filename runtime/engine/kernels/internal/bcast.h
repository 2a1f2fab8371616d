// NumPy broadcasting of two shapes, reduced to the fewest dimensions: runs of
// dimensions that broadcast the same way are merged, so most cases need rank
// 1 or 2 (TensorFlow's BCast).
//
//   MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(x.shape(), y.shape()));
//   b.output_shape();   // [2,3] for x [2,3], y [3]
//   b.x_reshape();      // {2, 3}; b.x_bcast() {1, 1}
//   b.y_reshape();      // {1, 3}; b.y_bcast() {2, 1}
//
// A value type: immutable once made, safe to read from any thread.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_BCAST_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_BCAST_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor_shape.h"

namespace minigraph {
namespace kernels_internal {

class BCast {
 public:
  using Vec = std::vector<int64_t>;
  // Returns InvalidArgument "Incompatible shapes: [..] vs. [..]".
  static absl::StatusOr<BCast> Make(const TensorShape& x, const TensorShape& y);

  const TensorShape& output_shape() const { return output_shape_; }
  // Merged dims; all five vectors have the same length (>= 1).
  const Vec& x_reshape() const { return x_reshape_; }
  const Vec& x_bcast() const { return x_bcast_; }
  const Vec& y_reshape() const { return y_reshape_; }
  const Vec& y_bcast() const { return y_bcast_; }
  const Vec& result_shape() const { return result_; }
  // Axes (of the full output) that x and y were broadcast along: summing the
  // output gradient over them gives each input's gradient.
  const Vec& grad_x_reduce_idx() const { return grad_x_reduce_; }
  const Vec& grad_y_reduce_idx() const { return grad_y_reduce_; }
  bool same_shape() const { return same_shape_; }

 private:
  TensorShape output_shape_;
  Vec x_reshape_, x_bcast_, y_reshape_, y_bcast_, result_;
  Vec grad_x_reduce_, grad_y_reduce_;
  bool same_shape_ = false;
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_BCAST_H_
