#include "session/distributed/internal/grpc_util.h"

#include "absl/base/call_once.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/logging.h"
#include "grpc/support/log.h"

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

std::string EscapeNonPrintable(absl::string_view text) {
  // absl::CHexEscape would also escape quotes, which gRPC's messages are full
  // of; only bytes a terminal could act on need it.
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    }
  }
  return out;
}

namespace {

void LogGrpcLine(gpr_log_func_args* args) {
  LogLevel level = LogLevel::kInfo;
  if (args->severity == GPR_LOG_SEVERITY_ERROR) level = LogLevel::kError;
  if (level < MinLogLevel()) return;
  logging_internal::LogMessage(args->file, args->line, level).stream()
      << "gRPC: " << EscapeNonPrintable(args->message);
}

}  // namespace

void InstallGrpcLogSink() {
  static absl::once_flag once;
  absl::call_once(once, [] { gpr_set_log_function(LogGrpcLine); });
}

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address,
                                          const TransportSecurity& security) {
  InstallGrpcLogSink();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // Fail an unreachable address quickly and try it again soon, instead of
  // gRPC's backoff of up to two minutes: a worker waits for its ps in
  // WaitForSession, which retries on its own schedule.
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  if (security.tls()) {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = security.ca_pem;
    o.pem_private_key = security.key_pem;
    o.pem_cert_chain = security.cert_pem;
    creds = grpc::SslCredentials(o);
  }
  return grpc::CreateCustomChannel(address, creds, args);
}

std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TransportSecurity& security) {
  if (security.cert_pem.empty() || security.key_pem.empty()) {
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions o(
      security.ca_pem.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  o.pem_root_certs = security.ca_pem;
  o.pem_key_cert_pairs.push_back({security.key_pem, security.cert_pem});
  return grpc::SslServerCredentials(o);
}

void AddToken(const TransportSecurity& security, grpc::ClientContext* ctx) {
  if (!security.token.empty()) ctx->AddMetadata("authorization", "Bearer " + security.token);
}

grpc::Status CheckToken(const std::string& token, const grpc::ServerContextBase* ctx) {
  if (token.empty()) return grpc::Status::OK;
  const std::string expected = "Bearer " + token;
  auto it = ctx->client_metadata().find("authorization");
  bool ok = it != ctx->client_metadata().end() && it->second.size() == expected.size();
  // Compared in constant time: how much matched must not show in the timing.
  unsigned char diff = 0;
  for (size_t i = 0; ok && i < expected.size(); ++i) diff |= it->second.data()[i] ^ expected[i];
  if (ok && diff == 0) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "this server requires a token (authorization: Bearer <token>), and the "
                      "call carried none or another");
}

}  // namespace distributed_internal
}  // namespace minigraph
