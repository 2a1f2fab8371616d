#include "session/session.h"

#include <map>

#include "absl/base/const_init.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "session/internal/in_process_factory.h"

namespace minigraph {
namespace {

ABSL_CONST_INIT absl::Mutex factories_mu(absl::kConstInit);

std::map<std::string, SessionFactory>& Factories() ABSL_EXCLUSIVE_LOCKS_REQUIRED(factories_mu) {
  static auto* f = new std::map<std::string, SessionFactory>;
  return *f;
}

SessionFactory& InProcessFactory() ABSL_EXCLUSIVE_LOCKS_REQUIRED(factories_mu) {
  static auto* f = new SessionFactory;
  return *f;
}

}  // namespace

namespace session_internal {
void SetInProcessSessionFactory(SessionFactory factory) {
  absl::MutexLock l(&factories_mu);
  InProcessFactory() = std::move(factory);
}
}  // namespace session_internal

absl::Status RegisterSessionFactory(const std::string& scheme, SessionFactory factory) {
  bool valid = !scheme.empty() && absl::ascii_isalpha(scheme[0]);
  for (char c : scheme) {
    valid = valid && (absl::ascii_isalnum(c) || c == '+' || c == '-' || c == '.');
  }
  if (!valid || scheme == "local") {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot register session scheme '", scheme,
        "': use letters, digits, '+', '-' and '.', starting with a letter, and not \"local\""));
  }
  absl::MutexLock l(&factories_mu);
  if (!Factories().emplace(scheme, std::move(factory)).second) {
    return absl::AlreadyExistsError(
        absl::StrCat("session scheme '", scheme, "' already has a factory"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options) {
  const size_t sep = options.target.find("://");
  SessionFactory factory;
  {
    absl::MutexLock l(&factories_mu);
    if (sep != std::string::npos) {
      auto it = Factories().find(options.target.substr(0, sep));
      if (it != Factories().end()) factory = it->second;
    }
    if (!factory) factory = InProcessFactory();
  }
  if (!factory) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no session for target '", options.target,
        "': in-process sessions (\"\", local://) come with //session:local_session; other "
        "schemes need a factory (RegisterSessionFactory)"));
  }
  return factory(options);
}

}  // namespace minigraph
