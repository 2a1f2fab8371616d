#include "session/targets.h"

#include <map>

#include "absl/base/const_init.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace minigraph {
namespace {

ABSL_CONST_INIT absl::Mutex registry_mu(absl::kConstInit);

std::map<std::string, std::weak_ptr<SessionState>>& Registry()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(registry_mu) {
  static auto* r = new std::map<std::string, std::weak_ptr<SessionState>>;
  return *r;
}

// The states KeepTargetAlive holds, by target.
std::map<std::string, std::shared_ptr<SessionState>>& Kept()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(registry_mu) {
  static auto* k = new std::map<std::string, std::shared_ptr<SessionState>>;
  return *k;
}

absl::Status CheckName(const std::string& target, absl::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("session target '", target, "' has no name after local://"));
  }
  for (char c : name) {
    if (!(absl::ascii_isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "session target '", target, "' has a name with character '", std::string(1, c),
          "'; use letters, digits, '_', '-', '.' and ':'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<SessionState>> StateForTarget(const std::string& target) {
  if (target.empty()) return std::make_shared<SessionState>("");
  if (absl::StartsWith(target, kLocalScheme)) {
    const std::string name = target.substr(sizeof(kLocalScheme) - 1);
    if (absl::Status s = CheckName(target, name); !s.ok()) return s;
    absl::MutexLock l(&registry_mu);
    std::weak_ptr<SessionState>& slot = Registry()[name];
    std::shared_ptr<SessionState> state = slot.lock();
    if (state == nullptr) {
      state = std::make_shared<SessionState>(target);
      slot = state;
    }
    return state;
  }
  if (absl::StartsWith(target, kGrpcScheme)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "session target '", target,
        "': sessions across processes (grpc://) come with //session/distributed:grpc_session, "
        "which is not linked in"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unsupported session target '", target,
      "': use \"\" (private state) or \"local://NAME\" (state shared in this process)"));
}

absl::Status KeepTargetAlive(const std::string& target) {
  if (!absl::StartsWith(target, kLocalScheme)) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<SessionState>> state = StateForTarget(target);
  if (!state.ok()) return state.status();
  absl::MutexLock l(&registry_mu);
  Kept()[target] = *std::move(state);
  return absl::OkStatus();
}

absl::Status ResetTarget(const std::string& target) {
  if (!absl::StartsWith(target, kLocalScheme)) return absl::OkStatus();
  std::shared_ptr<SessionState> dropped;  // destroyed outside the lock
  absl::MutexLock l(&registry_mu);
  auto it = Kept().find(target);
  if (it != Kept().end()) {
    dropped = std::move(it->second);
    Kept().erase(it);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<LocalServer>> LocalServer::Create(const std::string& name) {
  const std::string target = absl::StrCat(kLocalScheme, name);
  absl::StatusOr<std::shared_ptr<SessionState>> state = StateForTarget(target);
  if (!state.ok()) return state.status();
  return std::unique_ptr<LocalServer>(new LocalServer(target, *std::move(state)));
}

}  // namespace minigraph
