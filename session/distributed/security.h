// Securing the distributed runtime: TLS and a shared token. Loopback
// plaintext is the default; either part is opt-in, on servers and clients
// alike.
//
//   TransportSecurity sec;
//   MG_ASSIGN_OR_RETURN(sec, LoadTransportSecurity(env, "server.pem", "server.key",
//                                                  "ca.pem", "token.txt"));
//   server_options.security = sec;          // this task's server (and its calls out)
//   SetClientTransportSecurity(sec);        // grpc:// sessions of this process
//
// With `token` set, a server answers any RPC that does not carry it
// ("authorization: Bearer <token>") with Unauthenticated and changes
// nothing; clients send it with every call.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_SECURITY_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_SECURITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"

namespace minigraph {

// PEM text, not file names. All empty: plaintext, no token.
struct TransportSecurity {
  // A server's certificate chain and key (TLS is on when both are set). On
  // a client: its certificate for servers that require one (mutual TLS).
  std::string cert_pem = {};
  std::string key_pem = {};
  // A client: the CA its servers' certificates must chain to (TLS is on when
  // set). A server: when set, clients must present a certificate from it.
  std::string ca_pem = {};
  // Shared secret every RPC carries; empty = none.
  std::string token = {};

  bool tls() const { return !ca_pem.empty() || (!cert_pem.empty() && !key_pem.empty()); }
};

// Reads the files that are named (empty names are skipped); the token file's
// surrounding whitespace is dropped. Returns the Env's error naming a missing
// file, InvalidArgument for a certificate without its key (or the reverse), a
// file that is not PEM, or an empty token file.
absl::StatusOr<TransportSecurity> LoadTransportSecurity(Env* env, const std::string& cert_file,
                                                        const std::string& key_file,
                                                        const std::string& ca_file,
                                                        const std::string& token_file);

// What grpc:// sessions created from now on in this process use. Thread-safe.
void SetClientTransportSecurity(const TransportSecurity& security);
TransportSecurity ClientTransportSecurity();

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_SECURITY_H_
