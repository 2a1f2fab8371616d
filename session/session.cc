#include "session/session.h"

#include "absl/strings/str_cat.h"
#include "session/local_session.h"

namespace minigraph {

absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options) {
  if (options.target.empty()) {
    return std::unique_ptr<Session>(
        new LocalSession(options, std::make_shared<SessionState>("")));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported session target '", options.target,
                   "': only \"\" (a session with its own state) is available"));
}

}  // namespace minigraph
