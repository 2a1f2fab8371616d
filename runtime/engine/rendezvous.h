// Where the two halves of a cut edge meet: a _Send kernel puts a tensor
// under a key and the matching _Recv takes it, possibly in another
// executor, thread or process (TensorFlow's Rendezvous). One rendezvous
// serves one step; keys are TensorFlow's:
//
//   "/job:ps/replica:0/task:0/device:CPU:0;00000000075bcd15;"
//   "/job:worker/replica:0/task:0/device:CPU:0;edge_7_v/read;0:0"
//   (send device; its incarnation in hex; receive device; tensor name;
//    frame id:iteration)
//
//   LocalRendezvous r;
//   MG_RETURN_IF_ERROR(r.Send(key, t, /*is_dead=*/false));
//   MG_RETURN_IF_ERROR(r.Recv(key, {}, &t, &is_dead));   // blocks

#ifndef MINIGRAPH_RUNTIME_ENGINE_RENDEZVOUS_H_
#define MINIGRAPH_RUNTIME_ENGINE_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/tensor.h"

namespace minigraph {

// TensorFlow's Rendezvous::CreateKey, for frame 0, iteration 0.
std::string RendezvousKey(absl::string_view send_device, uint64_t send_incarnation,
                          absl::string_view recv_device, absl::string_view tensor_name);

struct ParsedRendezvousKey {
  std::string send_device;
  uint64_t send_incarnation = 0;
  std::string recv_device;
  std::string tensor_name;
};
// Returns InvalidArgument naming the key when it does not have five parts.
absl::StatusOr<ParsedRendezvousKey> ParseRendezvousKey(absl::string_view key);

class Rendezvous {
 public:
  virtual ~Rendezvous() = default;
  // Never blocks. Sending one key twice in a step is InvalidArgument.
  virtual absl::Status Send(const std::string& key, const Tensor& value, bool is_dead) = 0;
  // Blocks until `key` is sent, the rendezvous is aborted (its status), or
  // `cancelled` (may be empty; asked every 50 ms) says so (Cancelled).
  using CancelledFn = std::function<bool()>;
  virtual absl::Status Recv(const std::string& key, const CancelledFn& cancelled, Tensor* value,
                            bool* is_dead) = 0;
  // Fails every waiting and later Recv with `status` (not OK).
  virtual void StartAbort(const absl::Status& status) = 0;
};

// A rendezvous within one process. Thread-safe.
class LocalRendezvous : public Rendezvous {
 public:
  absl::Status Send(const std::string& key, const Tensor& value, bool is_dead) override;
  absl::Status Recv(const std::string& key, const CancelledFn& cancelled, Tensor* value,
                    bool* is_dead) override;
  void StartAbort(const absl::Status& status) override;
  // Takes `key` if it has been sent; false (leaving the outputs) if not.
  bool TryRecv(const std::string& key, Tensor* value, bool* is_dead);
  // Calls `done` with the value of `key` once it is sent (at once if it has
  // been), or with the abort status; on the thread that sends or aborts, so
  // `done` must not block. One receiver per key.
  using DoneCallback =
      std::function<void(const absl::Status& status, const Tensor& value, bool is_dead)>;
  void RecvAsync(const std::string& key, DoneCallback done);

 private:
  struct Item {
    Tensor value;
    bool is_dead = false;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Item> table_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, DoneCallback> waiters_ ABSL_GUARDED_BY(mu_);
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_RENDEZVOUS_H_
