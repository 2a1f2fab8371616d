// What the gRPC server and client share: status conversion, target
// parsing and channel settings. Internal to session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_GRPC_UTIL_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_GRPC_UTIL_H_

#include <climits>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/proto/error_codes.pb.h"
#include "grpcpp/grpcpp.h"
#include "session/distributed/security.h"

namespace minigraph {
namespace distributed_internal {

// Tensors travel inside messages: no limit below protobuf's own 2 GiB.
inline constexpr int kMaxMessageBytes = INT_MAX;

// gRPC's codes are absl's (both are the canonical codes), so a status
// crosses the wire with its code and message intact.
grpc::Status ToGrpcStatus(const absl::Status& s);
absl::Status FromGrpcStatus(const grpc::Status& s);

// A status carried in a response body (tensorflow::RunStepResponse.status_code and
// status_error_message), as TensorFlow does for long messages.
absl::Status FromBody(tensorflow::error::Code code, const std::string& message);

// The answer to a call whose request may set store_errors_in_response_body
// (RunStep, RunGraph): with `in_body` a failure travels in the response's
// status fields and the call itself succeeds; otherwise as the call's status.
template <typename Response>
grpc::Status Answer(const absl::Status& status, bool in_body, Response* resp) {
  if (status.ok() || !in_body) return ToGrpcStatus(status);
  resp->Clear();
  resp->set_status_code(static_cast<tensorflow::error::Code>(status.code()));
  resp->set_status_error_message(std::string(status.message()));
  return grpc::Status::OK;
}

// "grpc://HOST:PORT" -> "HOST:PORT". Returns InvalidArgument naming the
// target when it is not of that form.
absl::StatusOr<std::string> AddressFromTarget(absl::string_view target);

// A channel to HOST:PORT without gRPC's 4 MiB message limit, over TLS when
// `security` says so.
std::shared_ptr<grpc::Channel> NewChannel(const std::string& address,
                                          const TransportSecurity& security);

// Credentials a server listens with.
std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TransportSecurity& security);

// Adds the token (if any) to a call, as "authorization: Bearer <token>".
void AddToken(const TransportSecurity& security, grpc::ClientContext* ctx);

// OK when `token` is empty or the call carries it; Unauthenticated otherwise.
grpc::Status CheckToken(const std::string& token, const grpc::ServerContextBase* ctx);

// Routes gRPC's own log lines (gpr_log) through core/logging with every byte
// outside printable ASCII written as \xNN: gRPC quotes what a peer sent
// ("Error parsing metadata: ... value=<the client's bytes>"), and raw bytes
// from the network must not reach a terminal or a log file as they are.
// Idempotent; the server and the client channel call it.
void InstallGrpcLogSink();

// `text` with each byte outside printable ASCII (and the backslash) as \xNN.
std::string EscapeNonPrintable(absl::string_view text);

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_GRPC_UTIL_H_
