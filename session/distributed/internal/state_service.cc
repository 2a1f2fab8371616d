#include "session/distributed/internal/state_service.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "session/distributed/internal/grpc_util.h"

namespace minigraph {
namespace distributed_internal {
namespace {

using distributed::TaskState;

// How long GetSessionState waits for a task that does not answer: it counts
// as unreachable (incarnation 0), to be watched for coming up.
constexpr int64_t kProbeMs = 5000;
// A watch never outlives this, whatever the caller asks.
constexpr int64_t kMaxWatchMs = int64_t{3600} * 1000;

// WatchTask: answers when the task's state moves past the version the
// caller knows (ResourceMgr::Watch), or when the call is cancelled (its
// deadline passed, or the server stops).
class WatchTaskReactor final : public grpc::ServerUnaryReactor {
 public:
  WatchTaskReactor(std::shared_ptr<SessionState> state, TaskState* resp)
      : state_(std::move(state)), resp_(resp) {}

  // Called by the handler, before it returns the reactor: gRPC calls
  // neither OnCancel nor OnDone before that, so id_ needs no lock.
  void Begin(uint64_t seen) {
    id_ = state_->resource_mgr()->Watch(seen, [this](uint64_t version) { Answer(version); });
  }
  void OnCancel() override {
    state_->resource_mgr()->Unwatch(id_);
    if (!TakeFinish()) return;
    Finish(grpc::Status::CANCELLED);
  }
  void OnDone() override { delete this; }

 private:
  // Runs under the manager's lock.
  void Answer(uint64_t version) {
    if (!TakeFinish()) return;
    resp_->set_version(version);
    // Last: OnDone, which deletes this, may run on another thread as soon
    // as Finish is called, so nothing (not even our lock) may be held.
    Finish(grpc::Status::OK);
  }

  // Whether the caller is the one that finishes the call.
  bool TakeFinish() {
    absl::MutexLock l(&mu_);
    if (finished_) return false;
    finished_ = true;
    return true;
  }

  const std::shared_ptr<SessionState> state_;
  TaskState* const resp_;
  int64_t id_ = -1;
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

// A master's call that asks several tasks' WatchTask at once. Each ended
// call goes to `on_call` (under the round's lock), which may answer the
// master's caller early; when all have ended, `on_all` answers unless that
// already happened. Answering cancels the calls still out. The round lives
// until its last call ends, which may be after the reactor is gone.
class Round : public std::enable_shared_from_this<Round> {
 public:
  struct Call {
    std::string task;
    std::unique_ptr<grpc::ClientContext> ctx;
    distributed::WatchTaskRequest req;
    TaskState resp;
    grpc::Status status;
  };
  // Returns whether to answer now, with what.
  using OnCall = std::function<bool(const Call&, grpc::Status* answer)>;

  using OnAll = std::function<grpc::Status(const std::vector<Call>&)>;

  Round(grpc::ServerUnaryReactor* reactor, OnCall on_call, OnAll on_all)
      : reactor_(reactor), on_call_(std::move(on_call)), on_all_(std::move(on_all)) {}

  std::vector<Call>& calls() { return calls_; }

  void Start(WorkerCache* cache) {
    {
      absl::MutexLock l(&mu_);
      pending_ = static_cast<int>(calls_.size());
    }
    if (calls_.empty()) {
      grpc::Status answer;
      {
        absl::MutexLock l(&mu_);
        answer = on_all_(calls_);
        answered_ = true;
      }
      Answer(answer);
      return;
    }
    for (Call& c : calls_) {
      absl::StatusOr<WorkerCache::Worker*> w = cache->ForDevice(c.task);
      if (!w.ok()) {
        c.status = ToGrpcStatus(w.status());
        Ended(nullptr);
        continue;
      }
      std::shared_ptr<Round> self = shared_from_this();
      cache->Async([&c, self, w = *w](std::function<void()> done) {
        w->state->async()->WatchTask(c.ctx.get(), &c.req, &c.resp,
                                     [&c, self, done = std::move(done)](grpc::Status s) {
                                       c.status = std::move(s);
                                       self->Ended(&c);
                                       done();
                                     });
      });
    }
  }

  // The master's caller went away (or the server stops).
  void Cancel() {
    {
      absl::MutexLock l(&mu_);
      if (answered_) return;
      answered_ = true;
    }
    Answer(grpc::Status::CANCELLED);
  }

 private:
  // `c` ended (null: it could not start).
  void Ended(const Call* c) {
    grpc::Status answer;
    {
      absl::MutexLock l(&mu_);
      --pending_;
      if (answered_) return;
      const bool early = c != nullptr && on_call_(*c, &answer);
      if (!early) {
        if (pending_ > 0) return;
        answer = on_all_(calls_);
      }
      // In the section that wrote the response: no later call writes it.
      answered_ = true;
    }
    Answer(answer);
  }

  // Called once, by the thread that set answered_, with no lock held: the
  // reactor may delete itself, and with it the last reference to this
  // round but the caller's, on another thread as soon as Finish is called.
  void Answer(const grpc::Status& s) {
    for (Call& c : calls_) c.ctx->TryCancel();
    reactor_->Finish(s);  // last
  }

  grpc::ServerUnaryReactor* const reactor_;
  const OnCall on_call_;
  const OnAll on_all_;
  std::vector<Call> calls_;
  absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool answered_ ABSL_GUARDED_BY(mu_) = false;
};

// The reactor of a master's fan-out call: the caller's cancellation ends
// the round.
class RoundReactor final : public grpc::ServerUnaryReactor {
 public:
  void set_round(std::shared_ptr<Round> round) { round_ = std::move(round); }
  void OnCancel() override {
    std::shared_ptr<Round> round = round_;  // Finish may end this reactor
    round->Cancel();
  }
  void OnDone() override { delete this; }

 private:
  std::shared_ptr<Round> round_;
};

grpc::ServerUnaryReactor* Refuse(grpc::CallbackServerContext* ctx, const grpc::Status& s) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(s);
  return reactor;
}

bool Unreachable(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

}  // namespace

TaskState StateService::Current() const {
  TaskState t;
  t.set_task(task_.device.name());
  t.set_incarnation(task_.device.incarnation());
  t.set_version(task_.state->resource_mgr()->version());
  return t;
}

grpc::ServerUnaryReactor* StateService::WatchTask(grpc::CallbackServerContext* ctx,
                                                  const distributed::WatchTaskRequest* req,
                                                  TaskState* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) {
    return Refuse(ctx, a);
  }
  *resp = Current();
  if (!req->has_known() || req->known().incarnation() != resp->incarnation() ||
      req->known().version() != resp->version()) {
    return Refuse(ctx, grpc::Status::OK);  // changed already: answer at once
  }
  auto* reactor = new WatchTaskReactor(task_.state, resp);
  reactor->Begin(req->known().version());
  return reactor;
}

grpc::ServerUnaryReactor* StateService::GetSessionState(
    grpc::CallbackServerContext* ctx, const distributed::GetSessionStateRequest* req,
    distributed::StateToken* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) {
    return Refuse(ctx, a);
  }
  absl::StatusOr<std::vector<std::string>> devices = master_->StateDevices(req->session_handle());
  if (!devices.ok()) return Refuse(ctx, ToGrpcStatus(devices.status()));
  auto* reactor = new RoundReactor;
  // Every task's state now. One that does not answer is unreachable
  // (incarnation 0: watched for coming up); one that cannot be watched (a
  // TensorFlow server answers UNIMPLEMENTED) is left out.
  auto round = std::make_shared<Round>(
      reactor, [](const Round::Call&, grpc::Status*) { return false; },
      [resp](const std::vector<Round::Call>& calls) {
        for (const Round::Call& c : calls) {
          if (c.status.ok()) {
            *resp->add_task() = c.resp;
            resp->mutable_task(resp->task_size() - 1)->set_task(c.task);
          } else if (Unreachable(c.status)) {
            resp->add_task()->set_task(c.task);
          }
        }
        return grpc::Status::OK;
      });
  for (const std::string& device : *devices) {
    Round::Call& c = round->calls().emplace_back();
    c.task = device;
    c.ctx = task_.workers->NewContext(kProbeMs);
  }
  reactor->set_round(round);
  round->Start(task_.workers.get());
  return reactor;
}

grpc::ServerUnaryReactor* StateService::WatchSessionState(
    grpc::CallbackServerContext* ctx, const distributed::WatchSessionStateRequest* req,
    distributed::WatchSessionStateResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) {
    return Refuse(ctx, a);
  }
  auto* reactor = new RoundReactor;
  // Changed: a task answered (its state differs from the token's), or one
  // that was up went away. A call that times out, or a task that cannot be
  // watched, is no change.
  auto round = std::make_shared<Round>(
      reactor,
      [resp](const Round::Call& c, grpc::Status* answer) {
        const bool was_up = c.req.known().incarnation() != 0;
        if (c.status.ok() || (was_up && c.status.error_code() == grpc::StatusCode::UNAVAILABLE)) {
          resp->set_changed(true);
          *answer = grpc::Status::OK;
          return true;
        }
        return false;
      },
      [](const std::vector<Round::Call>&) { return grpc::Status::OK; });
  const int64_t ms = std::clamp<int64_t>(req->timeout_ms(), 1, kMaxWatchMs);
  for (const TaskState& known : req->token().task()) {
    Round::Call& c = round->calls().emplace_back();
    c.task = known.task();
    c.ctx = task_.workers->NewContext(ms);
    // A task that was unreachable: the call waits for it to come up (and
    // then answers at once: its incarnation differs).
    if (known.incarnation() == 0) c.ctx->set_wait_for_ready(true);
    *c.req.mutable_known() = known;
  }
  reactor->set_round(round);
  round->Start(task_.workers.get());
  return reactor;
}

}  // namespace distributed_internal
}  // namespace minigraph
