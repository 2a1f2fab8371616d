#include "session/coordinator.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"
#include "core/status_macros.h"

namespace minigraph {

Coordinator::~Coordinator() {
  RequestStop();
  std::vector<std::unique_ptr<CoordinatedRunner>> runners;
  {
    absl::MutexLock l(&mu_);
    runners = std::move(runners_);
  }
  // Not under mu_: the runners' threads ask ShouldStop on their way out.
  for (auto& r : runners) {
    while (!r->WaitUntilDone(absl::Now() + absl::Seconds(1))) {
    }
    r->Join();
  }
}

void Coordinator::RequestStop(absl::Status status) {
  absl::MutexLock l(&mu_);
  stop_ = true;
  if (!stopped_->HasBeenNotified()) stopped_->Notify();
  if (!status.ok() && !absl::IsOutOfRange(status) && status_.ok()) status_ = std::move(status);
}

void Coordinator::ClearStop() {
  absl::MutexLock l(&mu_);
  stop_ = false;
  status_ = absl::OkStatus();
  if (stopped_->HasBeenNotified()) stopped_ = std::make_shared<absl::Notification>();
}

bool Coordinator::SleepUnlessStopped(Env* env, int64_t micros) const {
  std::shared_ptr<absl::Notification> stopped;
  {
    absl::MutexLock l(&mu_);
    if (stop_) return true;
    stopped = stopped_;
  }
  return env->SleepUnlessNotified(*stopped, micros);
}

bool Coordinator::ShouldStop() const {
  absl::MutexLock l(&mu_);
  return stop_;
}

bool Coordinator::WaitForStop(absl::Duration timeout) const {
  absl::MutexLock l(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&stop_), timeout);
}

absl::Status Coordinator::status() const {
  absl::MutexLock l(&mu_);
  return status_;
}

void Coordinator::RegisterRunner(std::unique_ptr<CoordinatedRunner> runner) {
  absl::MutexLock l(&mu_);
  runners_.push_back(std::move(runner));
}

absl::Status Coordinator::Join(bool ignore_live_threads) {
  std::vector<std::unique_ptr<CoordinatedRunner>> runners;
  {
    absl::MutexLock l(&mu_);
    runners = std::move(runners_);
    runners_.clear();
  }
  // Until a stop, or until every runner has ended on its own.
  for (size_t i = 0; i < runners.size() && !ShouldStop();) {
    if (runners[i]->WaitUntilDone(absl::Now() + absl::Milliseconds(100))) ++i;
  }
  const absl::Time deadline = absl::Now() + grace_;
  std::vector<std::string> running;
  std::vector<std::unique_ptr<CoordinatedRunner>> kept;
  for (auto& r : runners) {
    if (r->WaitUntilDone(deadline)) {
      r->Join();
    } else {
      running.push_back(r->name());
      kept.push_back(std::move(r));
    }
  }
  absl::MutexLock l(&mu_);
  for (auto& r : kept) runners_.push_back(std::move(r));
  if (!status_.ok()) return status_;
  if (!running.empty()) {
    absl::Status late = absl::DeadlineExceededError(
        absl::StrCat("Coordinator stopped with threads still running after ",
                     absl::FormatDuration(grace_), ": ", absl::StrJoin(running, ", ")));
    if (!ignore_live_threads) return late;
    MG_LOG(WARNING) << late.message();
  }
  return absl::OkStatus();
}

namespace {

class Looper final : public CoordinatedRunner {
 public:
  Looper(Coordinator* coord, std::string name, std::optional<absl::Duration> interval, Env* env,
         std::function<absl::Status()> run, std::function<absl::Status()> start)
      : coord_(coord),
        name_(std::move(name)),
        interval_(interval),
        env_(env),
        run_(std::move(run)),
        start_(std::move(start)) {}

  void Start() {
    thread_ = std::thread([this] {
      if (absl::Status s = Loop(); !s.ok()) {
        coord_->RequestStop(absl::Status(s.code(), absl::StrCat(name_, ": ", s.message())));
      }
      done_.Notify();
    });
  }
  bool WaitUntilDone(absl::Time deadline) override {
    return done_.WaitForNotificationWithDeadline(deadline);
  }
  void Join() override {
    if (thread_.joinable()) thread_.join();
  }
  std::string name() const override { return name_; }

 private:
  absl::Status Loop() {
    if (start_) MG_RETURN_IF_ERROR(start_());
    if (!interval_) {
      while (!coord_->ShouldStop()) MG_RETURN_IF_ERROR(run_());
      return absl::OkStatus();
    }
    // As TensorFlow's: the first call at once, then on the interval's
    // boundaries; those passed during a long call are made up at once.
    const int64_t every = std::max<int64_t>(1, absl::ToInt64Microseconds(*interval_));
    int64_t next = static_cast<int64_t>(env_->NowMicros());
    while (true) {
      const int64_t wait = next - static_cast<int64_t>(env_->NowMicros());
      if (wait > 0 ? coord_->SleepUnlessStopped(env_, wait) : coord_->ShouldStop()) break;
      next += every;
      MG_RETURN_IF_ERROR(run_());
    }
    return absl::OkStatus();
  }

  Coordinator* const coord_;
  const std::string name_;
  const std::optional<absl::Duration> interval_;
  Env* const env_;
  const std::function<absl::Status()> run_;
  const std::function<absl::Status()> start_;
  absl::Notification done_;
  std::thread thread_;
};

}  // namespace

void StartLooper(Coordinator* coord, std::string name, std::optional<absl::Duration> interval,
                 Env* env, std::function<absl::Status()> run, std::function<absl::Status()> start) {
  auto looper = std::make_unique<Looper>(coord, std::move(name), interval, env, std::move(run),
                                         std::move(start));
  looper->Start();
  coord->RegisterRunner(std::move(looper));
}

}  // namespace minigraph
