#include "tests/testing/tensors.h"

#include <string>

namespace minigraph {

Tensor Iota(DataType dtype, const TensorShape& shape) {
  switch (dtype) {
    case DT_FLOAT: return Iota<float>(shape);
    case DT_DOUBLE: return Iota<double>(shape);
    case DT_INT32: return Iota<int32_t>(shape);
    case DT_INT64: return Iota<int64_t>(shape);
    case DT_STRING: {
      Tensor t(DT_STRING, shape);
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        t.data<std::string>()[i] = std::string(1, static_cast<char>('a' + i));
      }
      return t;
    }
    default: return Tensor(dtype, shape);
  }
}

}  // namespace minigraph
