// Fast Fourier transforms over the innermost 1, 2 or 3 dimensions: FFT,
// IFFT, FFT2D, IFFT2D, FFT3D, IFFT3D (complex to complex), RFFT, RFFT2D,
// RFFT3D (real to the half spectrum) and IRFFT, IRFFT2D, IRFFT3D (back), as
// TensorFlow's fft_ops.cc defines them: an inverse divides by the number of
// points once, at the end; the real transforms crop their input to
// fft_length (which it must reach) and read the last dimension's half
// spectrum, the imaginary parts of its first and (even lengths) last
// element ignored. The 1-D transforms are Eigen's FFT module (kissfft,
// mixed radix for any length); a multi-dimensional one is 1-D transforms
// along each axis, the lines of an axis spread over the intra-op threads.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"
#include "unsupported/Eigen/FFT"

namespace minigraph {
namespace kernels_internal {
namespace {

// Cycles per point of a transform of n points (n log n, about), for the
// intra-op cost model.
double LineCost(int64_t n) {
  double log2 = 1;
  for (int64_t m = n; m > 1; m >>= 1) ++log2;
  return 5.0 * static_cast<double>(n) * log2;
}

// Transforms in place every line along `axis` of the row-major complex
// tensor `data` of dimensions `dims`: forward, or inverse without scaling.
template <typename R>
void TransformAxis(const OpKernelContext* ctx, std::complex<R>* data,
                   const std::vector<int64_t>& dims, int axis, bool inverse) {
  using C = std::complex<R>;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t n = dims[axis];
  if (n <= 1 || outer * inner == 0) return;
  ctx->ParallelFor(outer * inner, n * sizeof(C), n * sizeof(C), LineCost(n),
                   [&](int64_t begin, int64_t end) {
                     Eigen::FFT<R> fft;
                     fft.SetFlag(Eigen::FFT<R>::Unscaled);
                     std::vector<C> in(n), out(n);
                     for (int64_t line = begin; line < end; ++line) {
                       C* first = data + (line / inner) * n * inner + line % inner;
                       for (int64_t k = 0; k < n; ++k) in[k] = first[k * inner];
                       if (inverse) {
                         fft.inv(out.data(), in.data(), n);
                       } else {
                         fft.fwd(out.data(), in.data(), n);
                       }
                       for (int64_t k = 0; k < n; ++k) first[k * inner] = out[k];
                     }
                   });
}

// Copies the leading `to` block of the row-major tensor `from` (each of its
// dimensions at least `to`'s): the crop of the transformed dimensions.
template <typename T>
void Crop(const OpKernelContext* ctx, const T* from, const std::vector<int64_t>& from_dims, T* to,
          const std::vector<int64_t>& to_dims) {
  const int rank = static_cast<int>(to_dims.size());
  const int64_t row = to_dims[rank - 1];
  std::vector<int64_t> from_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) from_strides[d] = from_strides[d + 1] * from_dims[d + 1];
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= to_dims[d];
  ctx->ParallelFor(rows, row * sizeof(T), row * sizeof(T), row, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      int64_t at = 0, rest = r;
      for (int d = rank - 2; d >= 0; --d) {
        at += (rest % to_dims[d]) * from_strides[d];
        rest /= to_dims[d];
      }
      std::copy(from + at, from + at + row, to + r * row);
    }
  });
}

enum class Kind { kComplex, kReal };

// One transform op: kRank dimensions, forward or inverse, complex or real.
template <typename R, int kRank, bool kForward, Kind kKind>
class FftOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using C = std::complex<R>;

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.dims() < kRank) {
      return absl::InvalidArgumentError(absl::StrCat("Input must have rank of at least ", kRank,
                                                     " but got: ", in.shape().DebugString()));
    }
    const int batch_rank = in.dims() - kRank;
    const std::vector<int64_t> in_dims(in.shape().dim_sizes().begin(),
                                       in.shape().dim_sizes().end());
    // The transform's lengths, and the output's dimensions.
    std::vector<int64_t> lengths(kRank);
    std::vector<int64_t> out_dims = in_dims;
    if constexpr (kKind == Kind::kReal) {
      const Tensor& fft_length = ctx->input(1);
      if (fft_length.dims() != 1 || fft_length.dim_size(0) != kRank) {
        return absl::InvalidArgumentError(
            absl::StrCat("fft_length must have shape [", kRank, "]"));
      }
      for (int i = 0; i < kRank; ++i) {
        const int64_t length = fft_length.data<int32_t>()[i];
        if (length < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("fft_length[", i, "] must >= 0, but got: ", length));
        }
        const bool last = i == kRank - 1;
        const int64_t needed = !kForward && last ? length / 2 + 1 : length;
        const int64_t have = in_dims[batch_rank + i];
        if (have != 0 && have < needed) {
          return absl::InvalidArgumentError(
              absl::StrCat("Input dimension ", batch_rank + i, " must have length of at least ",
                           needed, " but got: ", have));
        }
        lengths[i] = length;
        out_dims[batch_rank + i] = kForward && last && length != 0 ? length / 2 + 1 : length;
      }
    } else {
      for (int i = 0; i < kRank; ++i) lengths[i] = in_dims[batch_rank + i];
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    if (in.NumElements() == 0) {
      // (An input dimension of 0 with a longer fft_length: nothing to
      // transform. TensorFlow leaves this output uninitialized.)
      std::fill_n(static_cast<char*>(out->raw_data()), out->TotalBytes(), 0);
      return absl::OkStatus();
    }
    if constexpr (kKind == Kind::kComplex) {
      std::copy(in.data<C>(), in.data<C>() + in.NumElements(), out->data<C>());
      Transform(ctx, out->data<C>(), out_dims, batch_rank, kRank);
      if (!kForward) Scale(ctx, out->data<C>(), out->NumElements(), lengths);
    } else if constexpr (kForward) {
      return Rfft(ctx, in, in_dims, batch_rank, lengths, out, out_dims);
    } else {
      return Irfft(ctx, in, in_dims, batch_rank, lengths, out, out_dims);
    }
    return absl::OkStatus();
  }

 private:
  // The transforms along axes [first, first + count) of `data`.
  static void Transform(const OpKernelContext* ctx, C* data, const std::vector<int64_t>& dims,
                        int first, int count) {
    for (int axis = first; axis < first + count; ++axis) {
      TransformAxis<R>(ctx, data, dims, axis, !kForward);
    }
  }

  // Multiplies by 1 / (the product of `lengths`), in R, as TensorFlow does.
  template <typename T>
  static void Scale(const OpKernelContext* ctx, T* data, int64_t n,
                    const std::vector<int64_t>& lengths) {
    double points = 1;
    for (int64_t l : lengths) points *= static_cast<double>(l);
    const R scale = static_cast<R>(1.0 / points);
    ctx->ParallelFor(n, sizeof(T), sizeof(T), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) data[i] *= scale;
    });
  }

  // The cropped input's last-dimension lines to their half spectra, then
  // the other transformed axes.
  static absl::Status Rfft(OpKernelContext* ctx, const Tensor& in,
                           const std::vector<int64_t>& in_dims, int batch_rank,
                           const std::vector<int64_t>& lengths, Tensor* out,
                           const std::vector<int64_t>& out_dims) {
    std::vector<int64_t> cropped_dims = out_dims;
    const int64_t n = lengths[kRank - 1];
    cropped_dims.back() = n;
    MG_ASSIGN_OR_RETURN(TensorShape cropped_shape, TensorShape::Build(cropped_dims));
    MG_ASSIGN_OR_RETURN(Tensor cropped, ctx->allocate_temp(in.dtype(), cropped_shape));
    Crop(ctx, in.data<R>(), in_dims, cropped.data<R>(), cropped_dims);
    const int64_t half = out_dims.back(), lines = cropped.NumElements() / n;
    const R* x = cropped.data<R>();
    C* y = out->data<C>();
    ctx->ParallelFor(lines, n * sizeof(R), half * sizeof(C), LineCost(n),
                     [&](int64_t begin, int64_t end) {
                       Eigen::FFT<R> fft;
                       fft.SetFlag(Eigen::FFT<R>::Unscaled);
                       fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
                       for (int64_t line = begin; line < end; ++line) {
                         if (n == 1) {  // (kissfft has no plan for one point)
                           y[line] = C(x[line], 0);
                         } else {
                           fft.fwd(y + line * half, x + line * n, n);
                         }
                       }
                     });
    Transform(ctx, y, out_dims, batch_rank, kRank - 1);
    return absl::OkStatus();
  }

  // The cropped half spectra back along the other transformed axes, then
  // each last-dimension line to its real points.
  static absl::Status Irfft(OpKernelContext* ctx, const Tensor& in,
                            const std::vector<int64_t>& in_dims, int batch_rank,
                            const std::vector<int64_t>& lengths, Tensor* out,
                            const std::vector<int64_t>& out_dims) {
    const int64_t n = lengths[kRank - 1], half = n / 2 + 1;
    std::vector<int64_t> spectrum_dims = out_dims;
    spectrum_dims.back() = half;
    MG_ASSIGN_OR_RETURN(TensorShape spectrum_shape, TensorShape::Build(spectrum_dims));
    MG_ASSIGN_OR_RETURN(Tensor spectrum, ctx->allocate_temp(in.dtype(), spectrum_shape));
    Crop(ctx, in.data<C>(), in_dims, spectrum.data<C>(), spectrum_dims);
    Transform(ctx, spectrum.data<C>(), spectrum_dims, batch_rank, kRank - 1);
    const int64_t lines = spectrum.NumElements() / half;
    const C* x = spectrum.data<C>();
    R* y = out->data<R>();
    ctx->ParallelFor(lines, half * sizeof(C), n * sizeof(R), LineCost(n),
                     [&](int64_t begin, int64_t end) {
                       Eigen::FFT<R> fft;
                       fft.SetFlag(Eigen::FFT<R>::Unscaled);
                       fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
                       for (int64_t line = begin; line < end; ++line) {
                         if (n == 1) {
                           y[line] = x[line].real();
                         } else {
                           fft.inv(y + line * n, x + line * half, n);
                         }
                       }
                     });
    Scale(ctx, y, out->NumElements(), lengths);
    return absl::OkStatus();
  }
};

// The kernel for the node's dtypes: Tcomplex, and Treal for the real
// transforms (float with complex64, double with complex128).
template <int kRank, bool kForward, Kind kKind>
KernelFactory FftFactory() {
  return [](OpKernelConstruction* c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DataType complex_type;
    MG_RETURN_IF_ERROR(c->GetAttr("Tcomplex", &complex_type));
    if (kKind == Kind::kReal) {
      DataType real_type;
      MG_RETURN_IF_ERROR(c->GetAttr("Treal", &real_type));
      if ((real_type == DT_DOUBLE) != (complex_type == DT_COMPLEX128)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Wrong types for ", kForward ? "forward" : "backward", " real FFT: ",
                         DataTypeString(real_type), " and ", DataTypeString(complex_type)));
      }
    }
    if (complex_type == DT_COMPLEX64) {
      return kernel_registry_internal::Build<FftOp<float, kRank, kForward, kKind>>(c);
    }
    if (complex_type == DT_COMPLEX128) {
      return kernel_registry_internal::Build<FftOp<double, kRank, kForward, kKind>>(c);
    }
    return NoKernelForType(c, complex_type);
  };
}

}  // namespace

void RegisterFftKernels(KernelRegistry* r) {
  r->Register("FFT", FftFactory<1, true, Kind::kComplex>());
  r->Register("IFFT", FftFactory<1, false, Kind::kComplex>());
  r->Register("FFT2D", FftFactory<2, true, Kind::kComplex>());
  r->Register("IFFT2D", FftFactory<2, false, Kind::kComplex>());
  r->Register("FFT3D", FftFactory<3, true, Kind::kComplex>());
  r->Register("IFFT3D", FftFactory<3, false, Kind::kComplex>());
  r->Register("RFFT", FftFactory<1, true, Kind::kReal>());
  r->Register("IRFFT", FftFactory<1, false, Kind::kReal>());
  r->Register("RFFT2D", FftFactory<2, true, Kind::kReal>());
  r->Register("IRFFT2D", FftFactory<2, false, Kind::kReal>());
  r->Register("RFFT3D", FftFactory<3, true, Kind::kReal>());
  r->Register("IRFFT3D", FftFactory<3, false, Kind::kReal>());
}

}  // namespace kernels_internal
}  // namespace minigraph
