// _Send puts its input into the step's rendezvous; _Recv waits for it
// there (a blocking kernel: the executor gives it a thread of its own).
#include <atomic>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/control_flow/recv_stats.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/rendezvous.h"

namespace minigraph {
namespace kernels_internal {
namespace {

std::atomic<int64_t> recv_nanos{0};
std::atomic<int64_t> recv_count{0};

absl::StatusOr<std::string> KeyOf(OpKernelConstruction* c) {
  std::string name, send_device, recv_device;
  int64_t incarnation = 0;
  MG_RETURN_IF_ERROR(c->GetAttr("tensor_name", &name));
  MG_RETURN_IF_ERROR(c->GetAttr("send_device", &send_device));
  MG_RETURN_IF_ERROR(c->GetAttr("send_device_incarnation", &incarnation));
  MG_RETURN_IF_ERROR(c->GetAttr("recv_device", &recv_device));
  return RendezvousKey(send_device, static_cast<uint64_t>(incarnation), recv_device, name);
}

absl::Status NoRendezvous(const OpKernelContext* ctx) {
  return absl::FailedPreconditionError(absl::StrCat(
      ctx->kernel().type_string(),
      " runs only in a partition of a distributed step (this step has no rendezvous)"));
}

class SendOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(key_, KeyOf(c));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    if (ctx->rendezvous() == nullptr) return NoRendezvous(ctx);
    return ctx->rendezvous()->Send(key_, ctx->input(0), ctx->input_dead(0));
  }

 private:
  std::string key_;
};

class RecvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(key_, KeyOf(c));
    return absl::OkStatus();
  }
  bool IsBlocking() const override { return true; }
  absl::Status Compute(OpKernelContext* ctx) const override {
    if (ctx->rendezvous() == nullptr) return NoRendezvous(ctx);
    const auto start = std::chrono::steady_clock::now();
    struct Count {
      std::chrono::steady_clock::time_point start;
      ~Count() {
        recv_nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - start)
                                 .count(),
                             std::memory_order_relaxed);
        recv_count.fetch_add(1, std::memory_order_relaxed);
      }
    } count{start};
    Tensor t;
    bool is_dead = false;
    const std::atomic<bool>* flag = ctx->cancelled_flag();
    MG_RETURN_IF_ERROR(ctx->rendezvous()->Recv(
        key_, [flag] { return flag != nullptr && flag->load(); }, &t, &is_dead));
    if (is_dead) {
      ctx->set_output_dead(0);
      return absl::OkStatus();
    }
    if (t.dtype() != ctx->expected_output_dtype(0)) {
      return absl::InternalError(absl::StrCat("received a ", DataTypeString(t.dtype()),
                                              " tensor for '", key_, "', which is ",
                                              DataTypeString(ctx->expected_output_dtype(0))));
    }
    ctx->set_output(0, std::move(t));
    return absl::OkStatus();
  }

 private:
  std::string key_;
};

}  // namespace

void RegisterSendRecvKernels(KernelRegistry* r) {
  r->Register("_Send", MakeFactory<SendOp>());
  r->Register("_Recv", MakeFactory<RecvOp>());
  r->Register("_HostSend", MakeFactory<SendOp>());
  r->Register("_HostRecv", MakeFactory<RecvOp>());
}

}  // namespace kernels_internal

RecvStats GetRecvStats() {
  return {kernels_internal::recv_count.load(std::memory_order_relaxed),
          kernels_internal::recv_nanos.load(std::memory_order_relaxed) / 1e9};
}

}  // namespace minigraph
