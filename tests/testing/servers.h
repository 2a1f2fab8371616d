// In-process servers and sessions on them, for tests.
//
//   std::unique_ptr<Server> server = StartServer();
//   std::unique_ptr<Session> s = Connect(server->target());
//
// Thread safety: the functions keep no state; each may run on any thread.

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

// Creates a session of `graph` on `target` with MasterService's own calls
// and runs `fetch` in `steps` RunSteps, each a gRPC call with a 100 ms
// deadline, which the caller expects each to pass (a step that does not
// end). Returns the CPU seconds this process used in 0.2 s once it is idle,
// waiting up to 10 s for that: about 0 once every abandoned step has ended
// in an in-process server, 0.2 or more for each core a step still runs on.
// Fails the calling test where a call does not end with DeadlineExceeded.
double CpuAfterStepsPastTheirDeadline(const std::string& target, const GraphDef& graph,
                                      const std::string& fetch, int steps);

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_SERVERS_H_
