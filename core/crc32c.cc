#include "core/crc32c.h"

#include <algorithm>
#include <climits>

#include "isa-l/crc.h"

namespace minigraph {
namespace crc32c {

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  // crc32_iscsi neither pre- nor post-inverts, and takes an int length.
  uint32_t crc = ~init_crc;
  auto* p = reinterpret_cast<unsigned char*>(const_cast<char*>(data));
  constexpr size_t kChunk = size_t{1} << 30;
  while (n > 0) {
    const size_t len = std::min(n, kChunk);
    crc = crc32_iscsi(p, static_cast<int>(len), crc);
    p += len;
    n -= len;
  }
  return ~crc;
}

}  // namespace crc32c
}  // namespace minigraph
