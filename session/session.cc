#include "session/session.h"

#include "absl/strings/str_cat.h"
#include "session/local_session.h"
#include "session/targets.h"

namespace minigraph {

absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options) {
  absl::StatusOr<std::shared_ptr<SessionState>> state = StateForTarget(options.target);
  if (!state.ok()) return state.status();
  return std::unique_ptr<Session>(new LocalSession(options, *std::move(state)));
}

}  // namespace minigraph
