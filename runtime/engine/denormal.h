// Kernels run with denormal floats flushed to zero, as TensorFlow's do: its
// executor processes every node under port::ScopedFlushDenormal, and its
// thread pools' threads start with it (tensorflow/core/platform/denormal.h).
// Results therefore match TensorFlow's at denormal inputs and outputs (a
// denormal reads as ±0: Floor(-1e-40) is -0, not -1), and arithmetic never
// takes the slow microcoded path for them.
//
//   { ScopedFlushDenormal flush;  ... run a kernel ... }   // restored after
//   DenormalFlushingThreadPool pool(4);   // an Eigen::ThreadPool whose
//                                         // threads flush
//
// On x86 this sets MXCSR's flush-to-zero and denormals-are-zero bits;
// elsewhere it does nothing (as TensorFlow's does where it cannot).
//
// Thread safety: ScopedFlushDenormal changes the calling thread's floating-
// point mode only.

#ifndef MINIGRAPH_RUNTIME_ENGINE_DENORMAL_H_
#define MINIGRAPH_RUNTIME_ENGINE_DENORMAL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>
#include <utility>

#define EIGEN_USE_THREADS
#include "unsupported/Eigen/CXX11/ThreadPool"

#if defined(__x86_64__) || defined(__SSE__)
#define MINIGRAPH_HAS_MXCSR 1
#include <xmmintrin.h>
#endif

namespace minigraph {

// Sets (true) or clears denormal flushing on the calling thread; returns
// whether it was set before.
inline bool SetDenormalFlushing(bool on) {
#if defined(MINIGRAPH_HAS_MXCSR)
  const unsigned bits = 0x8000u | 0x0040u;  // flush-to-zero, denormals-are-zero
  const unsigned csr = _mm_getcsr();
  const bool was = (csr & bits) == bits;
  _mm_setcsr(on ? (csr | bits) : (csr & ~bits));
  return was;
#else
  (void)on;
  return false;
#endif
}

// Flushes denormals on this thread for its lifetime, then restores.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal() : was_(SetDenormalFlushing(true)) {}
  ~ScopedFlushDenormal() { SetDenormalFlushing(was_); }
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
  bool was_;
};

// A denormal read as ±0, as the arithmetic does under ScopedFlushDenormal:
// for kernels that call what looks at the bits itself (libm, printf). (Under
// that flag a denormal compares equal to zero, so the test cannot be
// fpclassify's comparisons.)
template <typename T>
T FlushDenormal(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    constexpr int kMantissa = std::numeric_limits<T>::digits - 1;
    constexpr Bits kExponent = ((Bits(1) << (sizeof(T) * 8 - 1 - kMantissa)) - 1) << kMantissa;
    Bits bits;
    std::memcpy(&bits, &x, sizeof(x));
    if ((bits & kExponent) == 0) return std::copysign(T(0), x);
  }
  return x;
}

// Eigen's thread environment, whose threads flush denormals.
struct DenormalFlushingThreadEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    return new EnvThread([f = std::move(f)] {
      SetDenormalFlushing(true);
      f();
    });
  }
};

using DenormalFlushingThreadPool = Eigen::ThreadPoolTempl<DenormalFlushingThreadEnvironment>;

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_DENORMAL_H_
