#include "session/distributed/security.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

ABSL_CONST_INIT absl::Mutex client_mu(absl::kConstInit);

TransportSecurity& Client() ABSL_EXCLUSIVE_LOCKS_REQUIRED(client_mu) {
  static auto* s = new TransportSecurity;
  return *s;
}

absl::StatusOr<std::string> ReadPem(Env* env, const std::string& file, absl::string_view what) {
  if (file.empty()) return std::string();
  MG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, file));
  if (!absl::StrContains(text, "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " file ", file, " is not PEM (no -----BEGIN line)"));
  }
  return text;
}

}  // namespace

absl::StatusOr<TransportSecurity> LoadTransportSecurity(Env* env, const std::string& cert_file,
                                                        const std::string& key_file,
                                                        const std::string& ca_file,
                                                        const std::string& token_file) {
  if (cert_file.empty() != key_file.empty()) {
    return absl::InvalidArgumentError(
        "a TLS certificate needs its key, and a key its certificate (give both or neither)");
  }
  TransportSecurity s;
  MG_ASSIGN_OR_RETURN(s.cert_pem, ReadPem(env, cert_file, "certificate"));
  MG_ASSIGN_OR_RETURN(s.key_pem, ReadPem(env, key_file, "key"));
  MG_ASSIGN_OR_RETURN(s.ca_pem, ReadPem(env, ca_file, "CA certificate"));
  if (!token_file.empty()) {
    MG_ASSIGN_OR_RETURN(std::string token, ReadFileToString(env, token_file));
    s.token = std::string(absl::StripAsciiWhitespace(token));
    if (s.token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("token file ", token_file, " is empty"));
    }
  }
  return s;
}

void SetClientTransportSecurity(const TransportSecurity& security) {
  absl::MutexLock l(&client_mu);
  Client() = security;
}

TransportSecurity ClientTransportSecurity() {
  absl::MutexLock l(&client_mu);
  return Client();
}

}  // namespace minigraph
