// `train` for the end-to-end crash tests (see train_env.h).
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "core/status_macros.h"
#include "tools/train_env.h"

namespace minigraph {
namespace {

// Hooks for tests/e2e/train_e2e_test.sh, read from the environment.
//
// MG_TEST_KILL_IN_SAVE=N: the process SIGKILLs itself in the middle of its
// N-th save, just before the save renames its data file into place (the
// data written under its temporary name; the index and the state file not
// yet), as a crash there would. Watching the directory for that moment from
// outside is a matter of luck: a save's temporary files exist for about a
// millisecond.
//
// MG_TEST_STOP_AT_CHECKPOINT=K (or K:state): the process SIGSTOPs itself
// as soon as checkpoint K's index is in place (with ":state", once the
// state file names it), for the test to SIGKILL it there. Killing when the
// index appears, seen from outside, raced with a run that finished its last
// steps in the few milliseconds between two looks (on tmpfs, where a save
// takes well under a millisecond).
class TestHookEnv : public EnvWrapper {
 public:
  TestHookEnv(Env* target, int kill_in_save, int64_t stop_at, bool stop_at_state)
      : EnvWrapper(target),
        saves_left_(kill_in_save),
        stop_index_(stop_at > 0 ? absl::StrCat("-", stop_at, ".index") : ""),
        stop_at_state_(stop_at_state) {}

  absl::Status RenameFile(const std::string& src, const std::string& target) override {
    if (absl::StrContains(src, kTempStateSuffix) && absl::StrContains(target, ".data-") &&
        saves_left_.fetch_sub(1) == 1) {
      std::raise(SIGKILL);
    }
    MG_RETURN_IF_ERROR(EnvWrapper::RenameFile(src, target));
    if (!stop_index_.empty()) {
      if (absl::EndsWith(target, stop_index_)) {
        index_in_place_ = true;
        if (!stop_at_state_) std::raise(SIGSTOP);
      } else if (stop_at_state_ && index_in_place_ &&
                 absl::EndsWith(target, absl::StrCat("/", kDefaultLatestFilename))) {
        std::raise(SIGSTOP);
      }
    }
    return absl::OkStatus();
  }

 private:
  std::atomic<int> saves_left_;
  const std::string stop_index_;  // "-K.index", or empty
  const bool stop_at_state_;
  std::atomic<bool> index_in_place_{false};
};

}  // namespace

std::unique_ptr<Env> TestEnvFromEnvironment() {
  int saves = 0;
  if (const char* n = std::getenv("MG_TEST_KILL_IN_SAVE");
      n != nullptr && (!absl::SimpleAtoi(n, &saves) || saves < 0)) {
    saves = 0;
  }
  int64_t stop_at = 0;
  bool stop_at_state = false;
  if (const char* k = std::getenv("MG_TEST_STOP_AT_CHECKPOINT"); k != nullptr) {
    absl::string_view spec(k);
    stop_at_state = absl::ConsumeSuffix(&spec, ":state");
    if (!absl::SimpleAtoi(spec, &stop_at) || stop_at < 1) stop_at = 0;
  }
  if (saves == 0 && stop_at == 0) return nullptr;
  return std::make_unique<TestHookEnv>(Env::Default(), saves, stop_at, stop_at_state);
}

}  // namespace minigraph
