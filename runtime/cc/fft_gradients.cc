// Gradients of the Fourier transforms, as TensorFlow's fft_ops.py defines
// them: a complex transform's is the opposite transform scaled by the
// number of points; RFFT's is IRFFT's scaled, plus the terms for the half
// spectrum's dropped (Hermitian) half; IRFFT's is RFFT's with the
// duplicated frequencies counted twice. The 3-D real transforms have none
// in TensorFlow either.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/internal/gradient_families.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using Grads = std::vector<Output>;

DataType RealOf(DataType complex) { return complex == DT_COMPLEX128 ? DT_DOUBLE : DT_FLOAT; }

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

// t[..., begin:end] (end 0 with `to_end`: to the last element).
Output LastAxis(const Scope& s, Output t, int32_t begin, int32_t end, bool to_end = false) {
  ops::StridedSliceOptions o;
  o.ellipsis_mask = 1;
  if (to_end) o.end_mask = 2;
  return ops::StridedSlice(s, t, ops::Const<int32_t>(s, {0, begin}),
                           ops::Const<int32_t>(s, {0, end}), ops::Const<int32_t>(s, {1, 1}), o);
}

// v[i] of a 1-D int32 tensor (i may be negative), as a scalar.
Output Element(const Scope& s, Output v, int32_t i) {
  ops::StridedSliceOptions o;
  o.shrink_axis_mask = 1;
  return ops::StridedSlice(s, v, ops::Const<int32_t>(s, {i}),
                           ops::Const<int32_t>(s, {i == -1 ? 0 : i + 1}),
                           ops::Const<int32_t>(s, {1}), o);
}

// The number of points of the last `rank` dimensions of t (int32).
Output Points(const Scope& s, Output t, int rank) {
  ops::StridedSliceOptions o;
  o.end_mask = 1;
  Output last = ops::StridedSlice(s, ops::Shape(s, t), ops::Const<int32_t>(s, {-rank}),
                                  ops::Const<int32_t>(s, {0}), ops::Const<int32_t>(s, {1}), o);
  return ops::Prod(s, last, ops::Const<int32_t>(s, {0}));
}

// A transform op of `base` (FFT, IFFT, RFFT, IRFFT) of rank 1 to 3.
std::string Name(const char* base, int rank) {
  return rank == 1 ? std::string(base) : absl::StrCat(base, rank, "D");
}

// [1, -1, 1, -1, ...] of length n, complex.
Output AlternatingSigns(const Scope& s, Output n, DataType complex) {
  Output parity = ops::FloorMod(
      s, ops::Range(s, ops::Const<int32_t>(s, 0), n, ops::Const<int32_t>(s, 1)),
      ops::Const<int32_t>(s, 2));
  return ops::Cast(s, ops::Sub(s, ops::Const<int32_t>(s, 1),
                               ops::Mul(s, ops::Const<int32_t>(s, 2), parity)),
                   complex);
}

// The n x n matrix exp(-2 pi i j k / n).
Output DftMatrix(const Scope& s, Output n, DataType complex) {
  Output range = ops::Range(s, ops::Const<int32_t>(s, 0), n, ops::Const<int32_t>(s, 1));
  Output a = ops::Tile(s, ops::ExpandDims(s, range, ops::Const<int32_t>(s, 0)),
                       ops::Pack(s, {n, ops::Const<int32_t>(s, 1)}));
  Output b = ops::Transpose(s, a, ops::Const<int32_t>(s, {1, 0}));
  Tensor minus_two_pi_i(complex, TensorShape());
  if (complex == DT_COMPLEX128) {
    *minus_two_pi_i.data<complex128>() = complex128(0, -2 * M_PI);
  } else {
    *minus_two_pi_i.data<complex64>() = complex64(0, static_cast<float>(-2 * M_PI));
  }
  Output angle =
      ops::Mul(s, ops::Const(s, minus_two_pi_i), ops::Cast(s, ops::Mul(s, a, b), complex));
  return ops::Exp(s, ops::RealDiv(s, angle, ops::Cast(s, n, complex)));
}

// `matrix` [n, n] reshaped and tiled to multiply each matrix of t [..., n, 1].
Output TileForBatch(const Scope& s, Output matrix, Output t) {
  Output leading = ops::Fill(s, ops::Reshape(s, ops::Sub(s, ops::Rank(s, t),
                                                          ops::Const<int32_t>(s, 2)),
                                              ops::Const<int32_t>(s, {1})),
                             ops::Const<int32_t>(s, 1));
  Output zero = ops::Const<int32_t>(s, 0);
  Output expanded =
      ops::Reshape(s, matrix, ops::ConcatV2(s, {leading, ops::Shape(s, matrix)}, zero));
  ops::StridedSliceOptions o;
  o.begin_mask = 1;
  Output batch = ops::StridedSlice(s, ops::Shape(s, t), ops::Const<int32_t>(s, {0}),
                                   ops::Const<int32_t>(s, {-2}), ops::Const<int32_t>(s, {1}), o);
  return ops::Tile(s, expanded, ops::ConcatV2(s, {batch, ops::Const<int32_t>(s, {1, 1})}, zero));
}

void RegisterComplexTransforms(GradientRegistry* r) {
  for (int rank = 1; rank <= 3; ++rank) {
    for (bool forward : {true, false}) {
      const std::string back = Name(forward ? "IFFT" : "FFT", rank);
      r->Register(Name(forward ? "FFT" : "IFFT", rank),
                  [rank, forward, back](const Scope& s, const Operation&, const Grads& dy,
                                        Grads* dx) {
                    const DataType complex = BaseType(dy[0].dtype());
                    Output points = Points(s, dy[0], rank);
                    Output scale =
                        forward ? ops::Cast(s, points, complex)
                                : ops::Cast(s,
                                            ops::Reciprocal(s, ops::Cast(s, points,
                                                                         RealOf(complex))),
                                            complex);
                    *dx = {ops::Mul(s, s.AddOp(back, {{dy[0]}}).output(0), scale)};
                    return s.status();
                  });
    }
  }
}

void RegisterRealTransforms(GradientRegistry* r) {
  for (int rank = 1; rank <= 2; ++rank) {
    r->Register(Name("RFFT", rank), [rank](const Scope& s, const Operation& op,
                                           const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      Output grad = dy[0], fft_length = in[1];
      const DataType complex = BaseType(grad.dtype()), real = RealOf(complex);
      Output input_shape = ops::Shape(s, in[0]);
      Output is_even = ops::Cast(
          s, ops::Sub(s, ops::Const<int32_t>(s, 1),
                      ops::FloorMod(s, Element(s, fft_length, -1), ops::Const<int32_t>(s, 2))),
          complex);
      Output y0 = LastAxis(s, grad, 0, 1);
      Output ym = LastAxis(s, grad, -1, 0, /*to_end=*/true);
      Output inner = Element(s, input_shape, -1);
      Output extra;
      if (rank == 1) {
        extra = ops::Add(s, y0, ops::Mul(s, ops::Mul(s, is_even, ym),
                                         AlternatingSigns(s, inner, complex)));
      } else {
        Output mask = TileForBatch(s, DftMatrix(s, Element(s, input_shape, -2), complex), y0);
        auto conj = [&](Output t) { return s.AddOp("Conj", {{t}}).output(0); };
        Output ym_term = ops::BatchMatMulV2(s, mask, conj(ym));
        Output ones = ops::Fill(
            s, ops::Reshape(s, ops::Sub(s, ops::Rank(s, grad), ops::Const<int32_t>(s, 1)),
                            ops::Const<int32_t>(s, {1})),
            ops::Const<int32_t>(s, 1));
        Output multiples = ops::ConcatV2(
            s, {ones, ops::Reshape(s, inner, ops::Const<int32_t>(s, {1}))},
            ops::Const<int32_t>(s, 0));
        ym_term = ops::Mul(s, ops::Tile(s, ym_term, multiples),
                           AlternatingSigns(s, inner, complex));
        extra = ops::Add(s, ops::BatchMatMulV2(s, mask, conj(y0)), ops::Mul(s, is_even, ym_term));
      }
      Output size = ops::Cast(s, Points(s, in[0], rank), real);
      Output inverse = s.AddOp(Name("IRFFT", rank), {{grad}, {fft_length}},
                               {{"Treal", TypeAttr(real)}, {"Tcomplex", TypeAttr(complex)}})
                           .output(0);
      Output real_extra = s.AddOp("Real", {{extra}}, {{"Tout", TypeAttr(real)}}).output(0);
      Output half = ops::Cast(s, ops::Const<float>(s, 0.5f), real);
      *dx = {ops::Mul(s, half, ops::Add(s, ops::Mul(s, inverse, size), real_extra)), Output()};
      return s.status();
    });
    r->Register(Name("IRFFT", rank), [rank](const Scope& s, const Operation& op,
                                            const Grads& dy, Grads* dx) {
      const Grads in = s.GetInputs(op);
      Output grad = dy[0], fft_length = in[1];
      const DataType real = BaseType(grad.dtype());
      const DataType complex = real == DT_DOUBLE ? DT_COMPLEX128 : DT_COMPLEX64;
      // [1, 2, ..., 2, 1] (even lengths) or [1, 2, ..., 2] (odd): the
      // frequencies the half spectrum stands for twice.
      Output odd = ops::FloorMod(s, Element(s, fft_length, -1), ops::Const<int32_t>(s, 2));
      Output last = Element(s, ops::Shape(s, in[0]), -1);
      auto ones = [&](Output n) {
        return ops::Fill(s, ops::Reshape(s, n, ops::Const<int32_t>(s, {1})),
                         ops::Cast(s, ops::Const<float>(s, 1), real));
      };
      Output twos = ops::Mul(s, ops::Cast(s, ops::Const<float>(s, 2), real),
                             ones(ops::Add(s, ops::Sub(s, last, ops::Const<int32_t>(s, 2)), odd)));
      Output mask = ops::ConcatV2(
          s, {ops::Cast(s, ops::Const<float>(s, {1.0f}), real), twos,
              ones(ops::Sub(s, ops::Const<int32_t>(s, 1), odd))},
          ops::Const<int32_t>(s, 0));
      Output rsize = ops::Reciprocal(s, ops::Cast(s, Points(s, grad, rank), real));
      Output forward = s.AddOp(Name("RFFT", rank), {{grad}, {fft_length}},
                               {{"Treal", TypeAttr(real)}, {"Tcomplex", TypeAttr(complex)}})
                           .output(0);
      *dx = {ops::Mul(s, forward, ops::Cast(s, ops::Mul(s, rsize, mask), complex)), Output()};
      return s.status();
    });
  }
}

}  // namespace

void gradients_internal::RegisterFftGradients(GradientRegistry* r) {
  RegisterComplexTransforms(r);
  RegisterRealTransforms(r);
}

}  // namespace minigraph
