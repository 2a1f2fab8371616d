#include "session/distributed/internal/worker_cache.h"

#include <chrono>

#include "core/status_macros.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"

namespace minigraph {
namespace distributed_internal {

std::unique_ptr<grpc::ClientContext> WorkerCache::NewContext(int64_t ms) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (ms > 0) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms));
  }
  AddToken(security_, ctx.get());
  return ctx;
}

WorkerCache::~WorkerCache() {
  absl::MutexLock l(&mu_);
  mu_.Await(absl::Condition(
      +[](int* n) { return *n == 0; }, &pending_));
}

void WorkerCache::Async(const std::function<void(std::function<void()> done)>& start) {
  {
    absl::MutexLock l(&mu_);
    ++pending_;
  }
  start([this] {
    absl::MutexLock l(&mu_);
    --pending_;
  });
}

void WorkerCache::SetAddress(const std::string& task, const std::string& address) {
  absl::MutexLock l(&mu_);
  addresses_[task] = address;
}

absl::StatusOr<WorkerCache::Worker*> WorkerCache::ForDevice(const std::string& device) {
  MG_ASSIGN_OR_RETURN(DeviceSpec spec, ParseDeviceSpec(device));
  const int task = spec.task < 0 ? 0 : spec.task;
  const std::string name = TaskName(spec.job, task);
  absl::MutexLock l(&mu_);
  std::unique_ptr<Worker>& w = workers_[name];
  if (w == nullptr) {
    auto set = addresses_.find(name);
    absl::StatusOr<std::string> address =
        set != addresses_.end() ? set->second : TaskAddress(cluster_, spec.job, task);
    if (!address.ok()) {
      workers_.erase(name);
      return address.status();
    }
    w = std::make_unique<Worker>();
    w->address = *address;
    w->task = name;
    std::shared_ptr<grpc::Channel> channel = NewChannel(*address, security_);
    w->stub = tensorflow::WorkerService::NewStub(channel);
    w->generic = std::make_unique<grpc::GenericStub>(channel);
    w->state = distributed::StateService::NewStub(channel);
  }
  return w.get();
}

}  // namespace distributed_internal
}  // namespace minigraph
