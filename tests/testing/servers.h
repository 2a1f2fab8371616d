// In-process servers and sessions on them, for tests.
//
//   std::unique_ptr<Server> server = StartServer();
//   std::unique_ptr<Session> s = Connect(server->target());

#ifndef MINIGRAPH_TESTS_TESTING_SERVERS_H_
#define MINIGRAPH_TESTS_TESTING_SERVERS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "session/distributed/server.h"
#include "session/session.h"

namespace minigraph {

// Starts a server with `options` (by default one task, /job:localhost, on
// a free loopback port). Fails the calling test and returns null when it
// cannot start.
std::unique_ptr<Server> StartServer(const ServerOptions& options = {});

// A session on `target` (a server's target(), "grpc://host:port" or
// "local://"), waiting up to `connect_timeout_ms` for the server. Fails
// the calling test and returns null when it cannot connect.
std::unique_ptr<Session> Connect(const std::string& target, int64_t connect_timeout_ms = 10000);

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_SERVERS_H_
