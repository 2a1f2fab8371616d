// Scatters into variables, in place under the variable's lock: Scatter*
// and ResourceScatter* (rows of dimension 0), ScatterNd* and
// ResourceScatterNd* (slices named by index tuples). The ref forms output
// their variable; the resource forms have no output. What a scatter does is
// internal/scatter.h's.
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/scatter.h"

namespace minigraph {
namespace kernels_internal {
namespace {

template <ScatterKind K, bool kNd>
struct VariableScatterFor {
  template <typename T>
  class Op : public OpKernel {
   public:
    using OpKernel::OpKernel;
    absl::Status Init(OpKernelConstruction* c) { return ReadBadIndices(c, &policy_); }
    absl::Status Compute(OpKernelContext* ctx) const override {
      MG_ASSIGN_OR_RETURN(Var * v, ctx->input_var(0));
      const bool ref = ctx->input_ref(0) != nullptr;
      const Tensor& indices = ctx->input(1);
      const Tensor& updates = ctx->input(2);
      {
        absl::MutexLock l(v->mu());
        if (!v->is_initialized()) return ctx->uninitialized_error(0, *v);
        if (v->dtype() != updates.dtype()) {
          return absl::InvalidArgumentError(absl::StrCat(
              type_string(), ": variable '", v->name(), "' has dtype ", DataTypeString(v->dtype()),
              " but the updates are ", DataTypeString(updates.dtype())));
        }
        // Checked in full before the buffer is touched (a copy while
        // another reader holds it).
        const TensorShape shape = v->value().shape();
        const std::string op = absl::StrCat(type_string(), " of variable '", v->name(), "'");
        if constexpr (kNd) {
          MG_RETURN_IF_ERROR((ScatterNdInto<K, T>(op, indices, updates, shape, policy_,
                                                  v->mutable_value()->template data<T>())));
        } else {
          MG_RETURN_IF_ERROR((ScatterRowsInto<K, T>(op, indices, updates, shape,
                                                    v->mutable_value()->template data<T>())));
        }
      }
      if (ref) ctx->set_output_ref(0, v);
      return absl::OkStatus();
    }

   private:
    BadIndices policy_ = BadIndices::kError;
  };
};

template <ScatterKind K>
using Rows = VariableScatterFor<K, false>;
template <ScatterKind K>
using Nd = VariableScatterFor<K, true>;

}  // namespace

void RegisterScatterKernels(KernelRegistry* r) {
  using K = ScatterKind;
  // Ref forms (attr T) and resource forms (attr dtype; T for the Nd ones).
  auto rows = [r](const char* op, const char* resource_op, auto factory_of) {
    r->Register(op, factory_of("T"));
    r->Register(resource_op, factory_of("dtype"));
  };
  rows("ScatterUpdate", "ResourceScatterUpdate", [](const char* a) {
    return TypedFactory<Rows<K::kUpdate>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterAdd", "ResourceScatterAdd", [](const char* a) {
    return TypedFactory<Rows<K::kAdd>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterSub", "ResourceScatterSub", [](const char* a) {
    return TypedFactory<Rows<K::kSub>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterMul", "ResourceScatterMul", [](const char* a) {
    return TypedFactory<Rows<K::kMul>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterDiv", "ResourceScatterDiv", [](const char* a) {
    return TypedFactory<Rows<K::kDiv>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterMin", "ResourceScatterMin", [](const char* a) {
    return TypedFactory<Rows<K::kMin>::Op, float, double, int32_t, int64_t>(a);
  });
  rows("ScatterMax", "ResourceScatterMax", [](const char* a) {
    return TypedFactory<Rows<K::kMax>::Op, float, double, int32_t, int64_t>(a);
  });
  for (const char* op : {"ScatterNdUpdate", "ResourceScatterNdUpdate"}) {
    r->Register(op, TypedFactory<Nd<K::kUpdate>::Op, float, double, int32_t, int64_t>());
  }
  for (const char* op : {"ScatterNdAdd", "ResourceScatterNdAdd"}) {
    r->Register(op, TypedFactory<Nd<K::kAdd>::Op, float, double, int32_t, int64_t>());
  }
  for (const char* op : {"ScatterNdSub", "ResourceScatterNdSub"}) {
    r->Register(op, TypedFactory<Nd<K::kSub>::Op, float, double, int32_t, int64_t>());
  }
  for (const char* op : {"ScatterNdMin", "ResourceScatterNdMin"}) {
    r->Register(op, TypedFactory<Nd<K::kMin>::Op, float, double, int32_t, int64_t>());
  }
  for (const char* op : {"ScatterNdMax", "ResourceScatterNdMax"}) {
    r->Register(op, TypedFactory<Nd<K::kMax>::Op, float, double, int32_t, int64_t>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
