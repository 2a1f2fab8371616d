// The registration function of each op family's gradients, one per source
// file; GlobalGradientRegistry() (gradients.h) calls them all once. Only the
// gradients target's own files include this.
#ifndef MINIGRAPH_RUNTIME_CC_INTERNAL_GRADIENT_FAMILIES_H_
#define MINIGRAPH_RUNTIME_CC_INTERNAL_GRADIENT_FAMILIES_H_

#include <initializer_list>
#include <map>
#include <string>

#include "runtime/cc/gradients.h"

namespace minigraph {
namespace gradients_internal {

// What the families share (defined in gradient_functions.cc).
// conj(x) for complex x, else x itself: the gradients of holomorphic ops
// multiply by the conjugate of their derivative (TensorFlow's math_grad.py).
Output Conj(const Scope& s, Output x);
// The attrs `names` of `node` that it sets.
std::map<std::string, AttrValue> CopyAttrs(const NodeDef& node,
                                           std::initializer_list<const char*> names);

// The math, neural network, array and control flow ops
// (gradient_functions.cc).
void RegisterMathGradients(GradientRegistry* r);
void RegisterNnGradients(GradientRegistry* r);
void RegisterArrayGradients(GradientRegistry* r);
void RegisterControlFlowGradients(GradientRegistry* r);
// PartitionedCall and StatefulPartitionedCall (function_gradients.cc): the
// called body runs again in the backward pass and is differentiated there,
// as TensorFlow's SymbolicGradient does. InvalidArgument naming the node
// when the results depend on an op with side effects or randomness.
void RegisterFunctionCallGradients(GradientRegistry* r);
// The TensorList ops (list_gradients.cc).
void RegisterListGradients(GradientRegistry* r);
// Bands, diagonals and decompositions of matrices (linalg_gradients.cc).
void RegisterLinalgGradients(GradientRegistry* r);
// The Fourier transforms (fft_gradients.cc).
void RegisterFftGradients(GradientRegistry* r);
// The SparseTensor ops (sparse_gradients.cc).
void RegisterSparseGradients(GradientRegistry* r);
// TensorFlow 1's TensorArray ops (tensor_array_gradients.cc).
void RegisterTensorArrayGradients(GradientRegistry* r);

}  // namespace gradients_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_INTERNAL_GRADIENT_FAMILIES_H_
