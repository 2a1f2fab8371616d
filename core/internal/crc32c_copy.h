// The kernels behind crc32c::CopyAndExtend, one per instruction set, so
// that tests can hold each one this CPU runs against ISA-L and benchmarks
// can time them side by side.
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_INTERNAL_CRC32C_COPY_H_
#define MINIGRAPH_CORE_INTERNAL_CRC32C_COPY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace minigraph {
namespace crc32c_internal {

// Copies src[0,n) to dst (the ranges do not overlap) and returns the crc32c
// register after those bytes, starting from `raw`: no inversion before or
// after (as ISA-L's crc32_iscsi and the SSE4.2 crc32 instruction).
using CopyKernel = uint32_t (*)(uint32_t raw, char* dst, const char* src, size_t n);

struct NamedCopyKernel {
  const char* name;
  CopyKernel kernel;
};

// The kernels this CPU (and its operating system) can run, the one
// CopyAndExtend uses first; the last is the portable one.
std::vector<NamedCopyKernel> AvailableCopyKernels();

}  // namespace crc32c_internal
}  // namespace minigraph

#endif  // MINIGRAPH_CORE_INTERNAL_CRC32C_COPY_H_
