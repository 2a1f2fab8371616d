#include "tests/testing/servers.h"

#include <utility>

#include "gtest/gtest.h"

namespace minigraph {

std::unique_ptr<Server> StartServer(const ServerOptions& options) {
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
  if (!server.ok()) {
    ADD_FAILURE() << "cannot start a server: " << server.status();
    return nullptr;
  }
  return *std::move(server);
}

std::unique_ptr<Session> Connect(const std::string& target, int64_t connect_timeout_ms) {
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = connect_timeout_ms;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
  if (!session.ok()) {
    ADD_FAILURE() << "cannot connect to " << target << ": " << session.status();
    return nullptr;
  }
  return *std::move(session);
}

}  // namespace minigraph
