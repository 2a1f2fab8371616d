#include "session/queue_runner.h"

#include <thread>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/logging.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

class QueueRunner final : public CoordinatedRunner {
 public:
  QueueRunner(QueueRunnerDef def, Session* session, Coordinator* coord)
      : def_(std::move(def)), session_(session), coord_(coord) {
    if (def_.queue_closed_exception_types().empty()) {
      closed_codes_.push_back(static_cast<int>(absl::StatusCode::kOutOfRange));
    } else {
      closed_codes_.assign(def_.queue_closed_exception_types().begin(),
                           def_.queue_closed_exception_types().end());
    }
  }

  void Start() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    running_ = def_.enqueue_op_name_size() + 1;
    enqueues_left_ = def_.enqueue_op_name_size();
    for (const std::string& op : def_.enqueue_op_name()) {
      threads_.emplace_back([this, op] { Enqueue(op); });
    }
    threads_.emplace_back([this] { CancelOnStop(); });
  }

  bool WaitUntilDone(absl::Time deadline) override ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return mu_.AwaitWithDeadline(absl::Condition(this, &QueueRunner::DoneLocked), deadline);
  }
  void Join() override {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  std::string name() const override {
    return absl::StrCat("QueueRunner for ", def_.queue_name());
  }

 private:
  // One enqueue op, again and again.
  void Enqueue(const std::string& op) {
    absl::Status s;
    // A step still running when the coordinator stops is cancelled: one
    // blocked on something the cancel op does not close (an accumulator's
    // take, as SyncReplicasOptimizer's chief runner runs) ends too.
    RunOptions options;
    options.cancelled = [coord = coord_] { return coord->ShouldStop(); };
    while (!coord_->ShouldStop()) {
      s = session_->Run(options, {}, {}, {op}, nullptr);
      if (!s.ok()) break;
    }
    if (!s.ok() && absl::c_linear_search(closed_codes_, static_cast<int>(s.code()))) {
      // The input is done: the last such thread closes the queue.
      bool last;
      {
        absl::MutexLock l(&mu_);
        last = --enqueues_left_ == 0;
      }
      if (last && !def_.close_op_name().empty()) {
        if (absl::Status c = session_->Run({}, {}, {def_.close_op_name()}, nullptr); !c.ok()) {
          MG_LOG(INFO) << "Ignored: closing " << def_.queue_name() << ": " << c;
        }
      }
    } else if (!s.ok() && !coord_->ShouldStop()) {
      coord_->RequestStop(
          absl::Status(s.code(), absl::StrCat(name(), ": ", op, ": ", s.message())));
    }
    Ended();
  }
  void CancelOnStop() {
    while (!coord_->WaitForStop(absl::Milliseconds(100))) {
      absl::MutexLock l(&mu_);
      if (running_ == 1) break;  // every enqueue thread ended: nothing to cancel
    }
    if (coord_->ShouldStop()) {
      if (absl::Status c = session_->Run({}, {}, {def_.cancel_op_name()}, nullptr); !c.ok()) {
        MG_LOG(INFO) << "Ignored: cancelling " << def_.queue_name() << ": " << c;
      }
    }
    Ended();
  }
  bool DoneLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; }
  void Ended() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    --running_;
  }

  const QueueRunnerDef def_;
  Session* const session_;
  Coordinator* const coord_;
  std::vector<int> closed_codes_;
  mutable absl::Mutex mu_;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int enqueues_left_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::thread> threads_;
};

}  // namespace

absl::StatusOr<std::vector<QueueRunnerDef>> QueueRunnersOf(const MetaGraphDef& meta_graph) {
  std::vector<QueueRunnerDef> out;
  auto it = meta_graph.collection_def().find(kQueueRunnersCollection);
  if (it == meta_graph.collection_def().end()) return out;
  const auto& values = it->second.bytes_list().value();
  for (int i = 0; i < values.size(); ++i) {
    QueueRunnerDef def;
    if (!def.ParseFromString(values[i])) {
      return absl::InvalidArgumentError(absl::StrCat("entry ", i,
                                                     " of the meta graph's \"queue_runners\" "
                                                     "collection is not a QueueRunnerDef"));
    }
    out.push_back(std::move(def));
  }
  return out;
}

absl::Status StartQueueRunner(const QueueRunnerDef& def, Session* session, Coordinator* coord) {
  if (def.enqueue_op_name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the QueueRunner for ", def.queue_name(), " has no enqueue op"));
  }
  if (def.cancel_op_name().empty()) {
    // Without one, a thread waiting on a full queue could never be stopped.
    return absl::InvalidArgumentError(absl::StrCat(
        "the QueueRunner for ", def.queue_name(),
        " has no cancel op (a close with cancel_pending_enqueues, as tf.train.QueueRunner "
        "makes), so its threads could not be stopped"));
  }
  auto runner = std::make_unique<QueueRunner>(def, session, coord);
  runner->Start();
  coord->RegisterRunner(std::move(runner));
  return absl::OkStatus();
}

absl::Status StartQueueRunners(const MetaGraphDef& meta_graph, Session* session,
                               Coordinator* coord) {
  MG_ASSIGN_OR_RETURN(std::vector<QueueRunnerDef> defs, QueueRunnersOf(meta_graph));
  for (const QueueRunnerDef& def : defs) {
    MG_RETURN_IF_ERROR(StartQueueRunner(def, session, coord));
  }
  return absl::OkStatus();
}

}  // namespace minigraph
