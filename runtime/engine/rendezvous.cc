#include "runtime/engine/rendezvous.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"

namespace minigraph {

std::string RendezvousKey(absl::string_view send_device, uint64_t send_incarnation,
                          absl::string_view recv_device, absl::string_view tensor_name) {
  return absl::StrFormat("%s;%016x;%s;%s;0:0", send_device, send_incarnation, recv_device,
                         tensor_name);
}

absl::StatusOr<ParsedRendezvousKey> ParseRendezvousKey(absl::string_view key) {
  std::vector<absl::string_view> parts = absl::StrSplit(key, ';');
  ParsedRendezvousKey p;
  if (parts.size() != 5 || parts[0].empty() || parts[2].empty() || parts[3].empty() ||
      !absl::SimpleHexAtoi(parts[1], &p.send_incarnation)) {
    return absl::InvalidArgumentError(
        absl::StrCat("rendezvous key '", key,
                     "' is not SEND_DEVICE;INCARNATION;RECV_DEVICE;TENSOR_NAME;FRAME:ITER"));
  }
  p.send_device = std::string(parts[0]);
  p.recv_device = std::string(parts[2]);
  p.tensor_name = std::string(parts[3]);
  return p;
}

absl::Status LocalRendezvous::Send(const std::string& key, const Tensor& value, bool is_dead) {
  DoneCallback waiter;
  {
    absl::MutexLock l(&mu_);
    if (!aborted_.ok()) return aborted_;
    auto w = waiters_.find(key);
    if (w != waiters_.end()) {
      waiter = std::move(w->second);
      waiters_.erase(w);
    } else if (!table_.try_emplace(key, Item{value, is_dead}).second) {
      return absl::InvalidArgumentError(absl::StrCat("rendezvous key '", key, "' sent twice"));
    }
  }
  if (waiter) waiter(absl::OkStatus(), value, is_dead);
  return absl::OkStatus();
}

void LocalRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  Item item;
  absl::Status status;
  {
    absl::MutexLock l(&mu_);
    if (!aborted_.ok()) {
      status = aborted_;
    } else if (auto it = table_.find(key); it != table_.end()) {
      item = std::move(it->second);
      table_.erase(it);
    } else {
      waiters_[key] = std::move(done);
      return;
    }
  }
  done(status, item.value, item.is_dead);
}

absl::Status LocalRendezvous::Recv(const std::string& key, const CancelledFn& cancelled,
                                   Tensor* value, bool* is_dead) {
  absl::MutexLock l(&mu_);
  auto arrived = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return !aborted_.ok() || table_.contains(key);
  };
  // Cancellation is not a condition this mutex sees change (a step's flag,
  // an RPC's context): ask every 50 ms while waiting.
  while (!mu_.AwaitWithTimeout(absl::Condition(&arrived), absl::Milliseconds(50))) {
    if (cancelled && cancelled()) {
      return absl::CancelledError(absl::StrCat("step cancelled while receiving '", key, "'"));
    }
  }
  if (!aborted_.ok()) return aborted_;
  auto it = table_.find(key);
  *value = std::move(it->second.value);
  *is_dead = it->second.is_dead;
  table_.erase(it);
  return absl::OkStatus();
}

bool LocalRendezvous::TryRecv(const std::string& key, Tensor* value, bool* is_dead) {
  absl::MutexLock l(&mu_);
  auto it = table_.find(key);
  if (it == table_.end()) return false;
  *value = std::move(it->second.value);
  *is_dead = it->second.is_dead;
  table_.erase(it);
  return true;
}

void LocalRendezvous::StartAbort(const absl::Status& status) {
  absl::flat_hash_map<std::string, DoneCallback> waiters;
  absl::Status aborted;
  {
    absl::MutexLock l(&mu_);
    if (aborted_.ok()) aborted_ = status.ok() ? absl::AbortedError("rendezvous aborted") : status;
    aborted = aborted_;
    waiters.swap(waiters_);
  }
  for (auto& [key, done] : waiters) done(aborted, Tensor(), false);
}

}  // namespace minigraph
