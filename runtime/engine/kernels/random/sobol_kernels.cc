// SobolSample (tf.math.sobol_sample): points 1 .. num_results of the Sobol
// sequence after `skip`, as sobol_op.cc computes them (Joe and Kuo's
// construction with Gray-code order over their new-joe-kuo-6.21201 direction
// numbers, held packed in sobol_directions.inc), so the values equal
// TensorFlow's bit for bit.
//
// One difference, on purpose: when skip + num_results + 1 reaches 2^30,
// TensorFlow's normalizer 1 / (1 << 31) overflows an int and its points come
// out negative; here they stay the points of the sequence, in [0, 1).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

#include "runtime/engine/kernels/random/sobol_directions.inc"

// At most 31 binary digits: skip + num_results stays below 2^31.
constexpr int kMaxDigits = 31;

// m_k (k = 1 .. 31) of every dimension, dimension-major: the direction
// number v_k is m_k / 2^k.
class SobolDirections {
 public:
  static const SobolDirections& Get() {
    static const SobolDirections* directions = new SobolDirections();
    return *directions;
  }

  const uint32_t* Dimension(int dim) const { return &m_[static_cast<size_t>(dim) * kMaxDigits]; }
  // False when the compiled-in table does not decode (a corrupted build).
  bool ok() const { return ok_; }

 private:
  SobolDirections() : m_(static_cast<size_t>(kSobolDimensions) * kMaxDigits) {
    std::string packed;
    ok_ = absl::Base64Unescape(kSobolDirectionsBase64, &packed);
    size_t bit = 0;
    auto take = [&](int width) {
      uint32_t value = 0;
      for (int k = 0; k < width; ++k, ++bit) {
        const size_t byte = bit / 8;
        if (byte < packed.size() && (packed[byte] >> (bit % 8)) & 1) value |= 1u << k;
      }
      return value;
    };
    for (int k = 0; k < kMaxDigits; ++k) m_[k] = 1;
    for (int dim = 1; dim < kSobolDimensions; ++dim) {
      uint32_t* m = &m_[static_cast<size_t>(dim) * kMaxDigits];
      const int s = static_cast<int>(take(5));
      const uint32_t inner = take(s - 1);  // a_1 .. a_{s-1}, a_1 highest
      for (int k = 0; k < s && k < kMaxDigits; ++k) m[k] = take(k + 1);
      // m_k = 2 a_1 m_{k-1} ^ 4 a_2 m_{k-2} ^ ... ^ 2^s m_{k-s} ^ m_{k-s}.
      for (int k = s; k < kMaxDigits; ++k) {
        uint32_t next = m[k - s] ^ (m[k - s] << s);
        for (int i = 1; i < s; ++i) {
          if ((inner >> (s - 1 - i)) & 1) next ^= m[k - i] << i;
        }
        m[k] = next;
      }
    }
    ok_ = ok_ && bit <= packed.size() * 8;
  }

  std::vector<uint32_t> m_;
  bool ok_ = false;
};

int BinaryDigits(int64_t n) {
  int digits = 0;
  while (n > 0) {
    ++digits;
    n >>= 1;
  }
  return digits;
}

int RightmostZeroBit(int64_t n) {
  int k = 0;
  while (n & 1) {
    n >>= 1;
    ++k;
  }
  return k;
}

// Points begin .. end (of the output), each the point skip + i + 1 of the
// sequence: the first by its Gray code, the rest one XOR each.
template <typename T>
void SobolPoints(int dim, int64_t skip, int64_t begin, int64_t end, T* out) {
  const SobolDirections& table = SobolDirections::Get();
  const int digits = BinaryDigits(skip + end + 1);
  std::vector<uint32_t> v(static_cast<size_t>(dim) * digits);
  for (int j = 0; j < dim; ++j) {
    const uint32_t* m = table.Dimension(j);
    for (int k = 0; k < digits; ++k) v[j * digits + k] = m[k] << (digits - k - 1);
  }
  const T scale = static_cast<T>(1.0 / static_cast<double>(int64_t{1} << digits));
  std::vector<uint32_t> x(dim, 0);
  const int64_t first = skip + begin + 1;
  const int64_t gray = first ^ (first >> 1);
  for (int k = 0; k < digits; ++k) {
    if ((gray >> k) & 1) {
      for (int j = 0; j < dim; ++j) x[j] ^= v[j * digits + k];
    }
  }
  for (int64_t i = begin; i < end; ++i) {
    if (i > begin) {
      const int k = RightmostZeroBit(skip + i);
      for (int j = 0; j < dim; ++j) x[j] ^= v[j * digits + k];
    }
    for (int j = 0; j < dim; ++j) out[i * dim + j] = static_cast<T>(x[j]) * scale;
  }
}

template <typename T>
class SobolSampleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    int64_t values[3];
    static constexpr const char* kNames[] = {"dim", "num_results", "skip"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i);
      if (t.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            kNames[i], " must be a scalar, got shape ", t.shape().DebugString()));
      }
      values[i] = t.data<int32_t>()[0];
    }
    const int64_t dim = values[0], num_results = values[1], skip = values[2];
    if (dim < 1) return absl::InvalidArgumentError("dim must be at least one");
    if (dim > kSobolDimensions) {
      return absl::InvalidArgumentError(absl::StrCat("dim must be at most ", kSobolDimensions));
    }
    if (num_results < 1) return absl::InvalidArgumentError("num_results must be at least one");
    if (skip < 0) return absl::InvalidArgumentError("skip must be non-negative");
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (num_results >= kMax - skip) {
      return absl::InvalidArgumentError(
          absl::StrCat("num_results+skip must be less than ", kMax));
    }
    if (!SobolDirections::Get().ok()) {
      return absl::InternalError("SobolSample: the compiled-in direction numbers do not decode");
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({num_results, dim}), &out));
    T* o = out->data<T>();
    ctx->ParallelFor(num_results, 0, dim * sizeof(T), dim * 4 + 64,
                     [&](int64_t begin, int64_t end) {
      SobolPoints<T>(static_cast<int>(dim), skip, begin, end, o);
    });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSobolKernels(KernelRegistry* r) {
  r->Register("SobolSample", TypedFactory<SobolSampleOp, float, double>("dtype"));
}

}  // namespace kernels_internal
}  // namespace minigraph
