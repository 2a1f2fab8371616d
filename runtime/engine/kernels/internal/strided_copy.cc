#include "runtime/engine/kernels/internal/strided_copy.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace minigraph {
namespace kernels_internal {
namespace {

// Bytes of one element, moved as a unit.
template <int N>
struct Carrier {
  char bytes[N];
};

// `b` with its dims of size 1 dropped and each dim merged into the one
// outside it where both walk their memory in one run, so that the inner
// loop is as long as it can be (a Tile of [16, 64, 1] to [16, 64, 128] has
// inner rows of 128 instead of 1).
StridedBlock Simplified(const StridedBlock& in) {
  StridedBlock b;
  b.src_offset = in.src_offset;
  b.dst_offset = in.dst_offset;
  for (size_t i = 0; i < in.dims.size(); ++i) {
    if (in.dims[i] == 1) continue;
    if (!b.dims.empty() && b.src_strides.back() == in.src_strides[i] * in.dims[i] &&
        b.dst_strides.back() == in.dst_strides[i] * in.dims[i]) {
      b.dims.back() *= in.dims[i];
      b.src_strides.back() = in.src_strides[i];
      b.dst_strides.back() = in.dst_strides[i];
      continue;
    }
    b.dims.push_back(in.dims[i]);
    b.src_strides.push_back(in.src_strides[i]);
    b.dst_strides.push_back(in.dst_strides[i]);
  }
  return b;
}

template <typename E>
void Copy(const E* src, E* dst, const StridedBlock& given) {
  for (int64_t d : given.dims) {
    if (d == 0) return;
  }
  const StridedBlock b = Simplified(given);
  const int rank = static_cast<int>(b.dims.size());
  if (rank == 0) {
    dst[b.dst_offset] = src[b.src_offset];
    return;
  }
  const int inner = rank - 1;
  const int64_t n = b.dims[inner], ss = b.src_strides[inner], ds = b.dst_strides[inner];
  std::vector<int64_t> index(rank, 0);
  int64_t s = b.src_offset, d = b.dst_offset;
  while (true) {
    if (ss == 1 && ds == 1) {
      std::copy_n(src + s, n, dst + d);
    } else if (ss == 0 && ds == 1) {
      std::fill_n(dst + d, n, src[s]);
    } else {
      for (int64_t k = 0; k < n; ++k) dst[d + k * ds] = src[s + k * ss];
    }
    // The next row: an odometer over the outer dims.
    int k = inner - 1;
    for (; k >= 0; --k) {
      s += b.src_strides[k];
      d += b.dst_strides[k];
      if (++index[k] < b.dims[k]) break;
      s -= b.src_strides[k] * b.dims[k];
      d -= b.dst_strides[k] * b.dims[k];
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

template <typename E>
void CopyAs(const Tensor& src, Tensor* dst, const StridedBlock& b) {
  Copy(static_cast<const E*>(src.raw_data()), static_cast<E*>(dst->raw_data()), b);
}

}  // namespace

void CopyStrided(const Tensor& src, Tensor* dst, const StridedBlock& b) {
  if (DataTypeCanUseMemcpy(src.dtype())) {
    switch (DataTypeSize(src.dtype())) {
      case 1:
        return CopyAs<uint8_t>(src, dst, b);
      case 2:
        return CopyAs<uint16_t>(src, dst, b);
      case 4:
        return CopyAs<uint32_t>(src, dst, b);
      case 8:
        return CopyAs<uint64_t>(src, dst, b);
      case 16:
        return CopyAs<Carrier<16>>(src, dst, b);
      default:
        break;
    }
  }
  switch (src.dtype()) {
    case DT_STRING:
      return CopyAs<std::string>(src, dst, b);
    case DT_RESOURCE:
      return CopyAs<ResourceHandle>(src, dst, b);
    case DT_VARIANT:
      return CopyAs<Variant>(src, dst, b);
    default:
      break;
  }
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims(), 1);
  for (int i = shape.dims() - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape.dim_size(i + 1);
  return strides;
}

}  // namespace kernels_internal
}  // namespace minigraph
