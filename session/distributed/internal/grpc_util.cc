#include "session/distributed/internal/grpc_util.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace minigraph {
namespace distributed_internal {

grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

absl::Status FromBody(tensorflow::error::Code code, const std::string& message) {
  if (code == tensorflow::error::OK) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

absl::StatusOr<std::string> AddressFromTarget(absl::string_view target) {
  constexpr absl::string_view kScheme = "grpc://";
  absl::string_view rest = target;
  uint32_t port = 0;
  const size_t colon = rest.rfind(':');
  if (!absl::ConsumePrefix(&rest, kScheme) || rest.empty() || colon == absl::string_view::npos ||
      colon < kScheme.size() + 1 || !absl::SimpleAtoi(target.substr(colon + 1), &port) ||
      port == 0 || port > 65535 || absl::StrContains(rest, '/')) {
    return absl::InvalidArgumentError(
        absl::StrCat("session target '", target, "' is not grpc://HOST:PORT"));
  }
  return std::string(rest);
}

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // Fail an unreachable address quickly and try it again soon, instead of
  // gRPC's backoff of up to two minutes: a worker waits for its ps in
  // WaitForSession, which retries on its own schedule.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

}  // namespace distributed_internal
}  // namespace minigraph
