#include "runtime/engine/kernels/internal/bcast.h"

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace minigraph {
namespace kernels_internal {

absl::StatusOr<BCast> BCast::Make(const TensorShape& x, const TensorShape& y) {
  BCast b;
  b.same_shape_ = x == y;
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> out(rank);
  // State of the current merged group: 0 none, 1 x broadcast, 2 y broadcast,
  // 3 neither.
  int prev_state = -1;
  for (int i = 0; i < rank; ++i) {
    const int ix = x.dims() - rank + i, iy = y.dims() - rank + i;
    const int64_t dx = ix >= 0 ? x.dim_size(ix) : 1;
    const int64_t dy = iy >= 0 ? y.dim_size(iy) : 1;
    int state;
    if (dx == dy) {
      out[i] = dx;
      state = dx == 1 ? 0 : 3;
      if (dx == 1) {
        b.grad_x_reduce_.push_back(i);
        b.grad_y_reduce_.push_back(i);
      }
    } else if (dx == 1) {
      out[i] = dy;
      state = 1;
      b.grad_x_reduce_.push_back(i);
    } else if (dy == 1) {
      out[i] = dx;
      state = 2;
      b.grad_y_reduce_.push_back(i);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Incompatible shapes: ", x.DebugString(), " vs. ", y.DebugString()));
    }
    if (state == 0) continue;  // size-1 in both: drop
    if (state == prev_state) {
      b.x_reshape_.back() *= dx;
      b.y_reshape_.back() *= dy;
      b.x_bcast_.back() *= state == 1 ? dy : 1;
      b.y_bcast_.back() *= state == 2 ? dx : 1;
      b.result_.back() *= out[i];
    } else {
      b.x_reshape_.push_back(dx);
      b.y_reshape_.push_back(dy);
      b.x_bcast_.push_back(state == 1 ? dy : 1);
      b.y_bcast_.push_back(state == 2 ? dx : 1);
      b.result_.push_back(out[i]);
      prev_state = state;
    }
  }
  if (b.result_.empty()) {
    b.x_reshape_ = b.y_reshape_ = b.x_bcast_ = b.y_bcast_ = b.result_ = {1};
  }
  MG_ASSIGN_OR_RETURN(b.output_shape_, TensorShape::Build(out));
  return b;
}

}  // namespace kernels_internal
}  // namespace minigraph
