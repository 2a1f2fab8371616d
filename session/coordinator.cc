#include "session/coordinator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace minigraph {

Coordinator::~Coordinator() {
  RequestStop();
  absl::MutexLock l(&mu_);
  for (auto& r : runners_) {
    // A runner's threads end once the stop reaches them.
    while (!r->WaitUntilDone(absl::Now() + absl::Seconds(1))) {
    }
    r->Join();
  }
}

void Coordinator::RequestStop(absl::Status status) {
  absl::MutexLock l(&mu_);
  stop_ = true;
  if (!status.ok() && !absl::IsOutOfRange(status) && status_.ok()) status_ = std::move(status);
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

absl::Status Coordinator::Join() {
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
    return absl::DeadlineExceededError(
        absl::StrCat("Coordinator stopped with threads still running after ",
                     absl::FormatDuration(grace_), ": ", absl::StrJoin(running, ", ")));
  }
  return absl::OkStatus();
}

}  // namespace minigraph
