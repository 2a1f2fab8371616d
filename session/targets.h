// Session targets: which state (variables) a new session works on.
//
//   ""              a session with private state: two sessions on "" never
//                   share variables (TensorFlow's direct session)
//   "local://NAME"  every session on the target shares one in-process state;
//                   it lives while a LocalServer or any session holds it, or
//                   once a SessionManager's PrepareSession has made it ready
//                   on the target (KeepTargetAlive), until ResetTarget
//   "grpc://HOST:PORT"  a server in another process (session/distributed:
//                   grpc_session, linked in, registers the factory)
//   "SCHEME://..."  a scheme with a registered factory (RegisterSessionFactory
//                   in session/session.h)
//
//   MG_ASSIGN_OR_RETURN(auto server, LocalServer::Create("ps"));
//   SessionOptions opts;
//   opts.target = server->target();          // "local://ps"
//   MG_ASSIGN_OR_RETURN(auto a, NewSession(opts));
//   MG_ASSIGN_OR_RETURN(auto b, NewSession(opts));   // sees a's variables

#ifndef MINIGRAPH_SESSION_TARGETS_H_
#define MINIGRAPH_SESSION_TARGETS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "session/session_state.h"

namespace minigraph {

inline constexpr char kLocalScheme[] = "local://";
inline constexpr char kGrpcScheme[] = "grpc://";

// The state a session on `target` uses. Returns InvalidArgument naming the
// target for an unknown scheme or an empty name, FailedPrecondition for
// grpc:// (those sessions come from session/distributed:grpc_session).
// Safe for concurrent use.
absl::StatusOr<std::shared_ptr<SessionState>> StateForTarget(const std::string& target);

// Keeps the state of a local://NAME target alive for the life of the process,
// as a TensorFlow server keeps its model between sessions, until
// ResetTarget. No effect on other targets ("" has private state; other
// schemes keep their own). Returns InvalidArgument for a malformed local://
// target. Safe for concurrent use.
absl::Status KeepTargetAlive(const std::string& target);

// Drops what KeepTargetAlive holds (TensorFlow's Session.reset): the state
// then lives only while sessions or a LocalServer hold it, and a target no
// one holds starts afresh. OK when nothing was kept.
absl::Status ResetTarget(const std::string& target);

// Keeps the state of "local://NAME" alive (like TensorFlow's in-process
// server), so sessions can come and go without losing variables.
class LocalServer {
 public:
  // Returns InvalidArgument for an empty or malformed name.
  static absl::StatusOr<std::unique_ptr<LocalServer>> Create(const std::string& name);
  const std::string& target() const { return target_; }

 private:
  LocalServer(std::string target, std::shared_ptr<SessionState> state)
      : target_(std::move(target)), state_(std::move(state)) {}
  const std::string target_;
  const std::shared_ptr<SessionState> state_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TARGETS_H_
