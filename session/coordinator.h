// TensorFlow 1's Coordinator (tf.train.Coordinator): the threads of a
// training program stop together. Any of them may ask for a stop, with or
// without an error; all of them poll ShouldStop() or wait for the stop; the
// owner then joins them and gets the first error.
//
//   Coordinator coord;
//   MG_RETURN_IF_ERROR(StartQueueRunners(meta_graph, session, &coord));
//   while (!coord.ShouldStop()) { ... train ... }
//   coord.RequestStop();
//   MG_RETURN_IF_ERROR(coord.Join());   // the runners' first error, if any
//
// As TensorFlow's, OutOfRange (the end of an input) stops cleanly: it is
// not an error. Join gives the registered runners a grace period after the
// stop, then returns DeadlineExceeded naming those still running (Python's
// "Coordinator stopped with threads still running").
//
// StartLooper is TensorFlow's LooperThread: a thread that calls a function
// on a timer (on an Env's clock, so tests move time) until the stop.
//
// Thread-safe.

#ifndef MINIGRAPH_SESSION_COORDINATOR_H_
#define MINIGRAPH_SESSION_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "core/env.h"

namespace minigraph {

// What a Coordinator joins: threads that stop when it stops.
class CoordinatedRunner {
 public:
  virtual ~CoordinatedRunner() = default;
  // Waits until every thread of the runner has ended, or `deadline`;
  // true when they all have.
  virtual bool WaitUntilDone(absl::Time deadline) = 0;
  // Joins the ended threads. REQUIRES: WaitUntilDone returned true.
  virtual void Join() = 0;
  // For messages: "QueueRunner for input_producer".
  virtual std::string name() const = 0;
};

class Coordinator {
 public:
  explicit Coordinator(absl::Duration stop_grace_period = absl::Minutes(2))
      : grace_(stop_grace_period) {}
  // Joins what Join has not (a stop is requested first).
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // Asks every thread to stop. A non-OK `status` other than OutOfRange is
  // kept, the first one only, for Join to return.
  void RequestStop(absl::Status status = absl::OkStatus()) ABSL_LOCKS_EXCLUDED(mu_);
  bool ShouldStop() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits for a stop, or for `timeout`; true when stopped.
  bool WaitForStop(absl::Duration timeout = absl::InfiniteDuration()) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Like WaitForStop, on `env`'s clock (Env::SleepUnlessNotified).
  bool SleepUnlessStopped(Env* env, int64_t micros) const ABSL_LOCKS_EXCLUDED(mu_);
  // TensorFlow's clear_stop: ShouldStop() is false again and the error
  // recorded is forgotten, so a new session's threads can run under this
  // coordinator. Runners a Join left running stay registered.
  void ClearStop() ABSL_LOCKS_EXCLUDED(mu_);
  // The first error a stop was requested with (OK when none).
  absl::Status status() const ABSL_LOCKS_EXCLUDED(mu_);

  // Takes `runner` to join.
  void RegisterRunner(std::unique_ptr<CoordinatedRunner> runner) ABSL_LOCKS_EXCLUDED(mu_);

  // Waits for a stop (or for every runner to end by itself), then for the
  // runners for the grace period. Returns the first error requested, else
  // DeadlineExceeded naming the runners that did not end (they are left
  // running, detached from nothing: a later Join may still join them),
  // else OK. With `ignore_live_threads` (TensorFlow's flag of that name),
  // runners still running are logged as a WARNING instead.
  absl::Status Join(bool ignore_live_threads = false) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const absl::Duration grace_;
  mutable absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  // Notified at the stop (for Env sleeps); replaced by ClearStop.
  std::shared_ptr<absl::Notification> stopped_ ABSL_GUARDED_BY(mu_) =
      std::make_shared<absl::Notification>();
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::vector<std::unique_ptr<CoordinatedRunner>> runners_ ABSL_GUARDED_BY(mu_);
};

// TensorFlow's LooperThread: a thread registered with `coord` that calls
// `start` once, then `run` every `interval` on `env`'s clock (the first
// call at once), or back to back when `interval` is nullopt, until the
// coordinator stops. An error from either stops the coordinator with it,
// its message prefixed with `name` (the thread's name in Join's messages).
// `env` is not owned and must outlive the thread.
void StartLooper(Coordinator* coord, std::string name, std::optional<absl::Duration> interval,
                 Env* env, std::function<absl::Status()> run,
                 std::function<absl::Status()> start = {});

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_COORDINATOR_H_
