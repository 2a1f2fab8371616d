// NumPy's .npy files (format 1.0 to 3.0, numpy.lib.format), for run_graph's
// inputs and outputs: little-endian numeric and bool arrays in C order. No
// library here reads or writes them, hence these few lines.
//
//   MG_ASSIGN_OR_RETURN(Tensor x, ReadNpy(env, "x.npy"));
//   MG_RETURN_IF_ERROR(WriteNpy(env, "logits.npy", logits));
//
// Thread safety: the functions keep no state.

#ifndef MINIGRAPH_TOOLS_NPY_H_
#define MINIGRAPH_TOOLS_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/tensor.h"

namespace minigraph {

// The array in `path`: float16/32/64, int8/16/32/64, uint8/16/32/64, bool,
// complex64/128. InvalidArgument naming the file for anything else (a
// pickled object array, Fortran order, big-endian data), DataLoss when its
// data is not the size its header says.
absl::StatusOr<Tensor> ReadNpy(Env* env, const std::string& path);

// Writes `t` to `path` as NumPy writes it (format 1.0, or 2.0 for a header
// over 64 KiB), every bit of every value. InvalidArgument naming the dtype
// for tensors NumPy has no plain dtype for (strings, bfloat16, resources,
// variants).
absl::Status WriteNpy(Env* env, const std::string& path, const Tensor& t);

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_NPY_H_
