// TLS and the shared token, with certificates this test makes with openssl,
// on real gRPC over loopback.
#include "session/distributed/security.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/distributed/grpc_session.h"
#include "session/distributed/server.h"
#include "tests/testing/servers.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// A CA, a server certificate for 127.0.0.1 and a client certificate, made
// once for the whole test binary.
class Certificates {
 public:
  static const Certificates* Get() {
    static const Certificates* c = new Certificates;
    return c->ok_ ? c : nullptr;
  }
  TransportSecurity Server(bool require_client_cert) const {
    TransportSecurity s;
    s.cert_pem = Read("server.pem");
    s.key_pem = Read("server.key");
    if (require_client_cert) s.ca_pem = Read("ca.pem");
    return s;
  }
  TransportSecurity Client(bool with_cert) const {
    TransportSecurity s;
    s.ca_pem = Read("ca.pem");
    if (with_cert) {
      s.cert_pem = Read("client.pem");
      s.key_pem = Read("client.key");
    }
    return s;
  }
  std::string Path(const std::string& f) const { return absl::StrCat(dir_, "/", f); }

 private:
  Certificates() {
    dir_ = TestTempPath("certs");
    const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    const std::string script =
        absl::StrCat("set -e; mkdir -p ", dir_, "; cd ", dir_, "; ", "openssl req -x509 ", key,
                     " -keyout ca.key -out ca.pem -days 2 -subj /CN=test-ca; ",
                     "printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext; ", "openssl req ", key,
                     " -keyout server.key -out server.csr -subj /CN=127.0.0.1; ",
                     "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial ",
                     "-out server.pem -days 2 -extfile server.ext; ", "openssl req ", key,
                     " -keyout client.key -out client.csr -subj /CN=client; ",
                     "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial ",
                     "-out client.pem -days 2) >/dev/null 2>&1");
    ok_ = std::system(("(" + script).c_str()) == 0;
  }
  std::string Read(const std::string& f) const {
    return ReadFileToString(Env::Default(), Path(f)).value_or("");
  }
  std::string dir_;
  bool ok_ = false;
};

#define NEED_CERTIFICATES()                        \
  const Certificates* certs = Certificates::Get(); \
  if (certs == nullptr) GTEST_SKIP() << "openssl could not make test certificates"

std::unique_ptr<Server> StartServerWith(const TransportSecurity& security) {
  ServerOptions o;
  o.security = security;
  return StartServer(o);
}

// A session made with `security` as this process's client settings.
std::unique_ptr<Session> ConnectWith(const Server& server, const TransportSecurity& security) {
  SetClientTransportSecurity(security);
  SessionOptions o;
  o.target = server.target();
  o.connect_timeout_ms = 5000;
  auto s = NewSession(o);
  EXPECT_OK(s.status());
  SetClientTransportSecurity({});
  return *std::move(s);
}

GraphDef VariableGraph() {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(7));
  GlobalVariablesInitializer(root);
  return *root.ToGraphDef();
}

TEST(SecurityTest, TlsServesClientsThatTrustItsCa) {
  NEED_CERTIFICATES();
  auto server = StartServerWith(certs->Server(/*require_client_cert=*/false));
  auto s = ConnectWith(*server, certs->Client(/*with_cert=*/false));
  ASSERT_OK(s->Create(VariableGraph()));
  ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  // A plaintext client cannot talk to it.
  auto plain = ConnectWith(*server, {});
  EXPECT_THAT(plain->Create(VariableGraph()), StatusIs(absl::StatusCode::kUnavailable));
}

TEST(SecurityTest, MutualTlsRequiresAClientCertificate) {
  NEED_CERTIFICATES();
  auto server = StartServerWith(certs->Server(/*require_client_cert=*/true));
  auto without = ConnectWith(*server, certs->Client(/*with_cert=*/false));
  EXPECT_THAT(without->Create(VariableGraph()), StatusIs(absl::StatusCode::kUnavailable));
  auto with = ConnectWith(*server, certs->Client(/*with_cert=*/true));
  EXPECT_OK(with->Create(VariableGraph()));
}

TEST(SecurityTest, ACallWithoutTheTokenIsUnauthenticatedAndChangesNothing) {
  TransportSecurity secret;
  secret.token = "s3cret";
  auto server = StartServerWith(secret);
  auto owner = ConnectWith(*server, secret);
  ASSERT_OK(owner->Create(VariableGraph()));
  ASSERT_OK(owner->Run({}, {}, {"init"}, nullptr));

  for (const std::string& token : {std::string(), std::string("wrong!")}) {
    TransportSecurity other;
    other.token = token;
    auto intruder = ConnectWith(*server, other);
    EXPECT_THAT(intruder->Create(VariableGraph()),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("requires a token")));
    SetClientTransportSecurity(other);
    SessionOptions o;
    o.target = server->target();
    EXPECT_THAT(GrpcSession::Reset(o, {}), StatusIs(absl::StatusCode::kUnauthenticated));
    SetClientTransportSecurity({});
  }
  // The variable survived the Reset attempts.
  std::vector<Tensor> out;
  ASSERT_OK(owner->Run({}, {"v/read:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 7.0f);
}

TEST(SecurityTest, LoadingNamesTheFileAtFault) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, "/cert.pem", "-----BEGIN CERTIFICATE-----\n..."));
  ASSERT_OK(WriteStringToFile(&env, "/junk.pem", "not a certificate"));
  ASSERT_OK(WriteStringToFile(&env, "/token", "  tok\n"));
  ASSERT_OK(WriteStringToFile(&env, "/empty", " \n"));
  EXPECT_THAT(LoadTransportSecurity(&env, "/cert.pem", "", "", "").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs its key")));
  EXPECT_THAT(LoadTransportSecurity(&env, "", "", "/junk.pem", "").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/junk.pem is not PEM")));
  EXPECT_THAT(LoadTransportSecurity(&env, "", "", "/missing.pem", "").status(),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(LoadTransportSecurity(&env, "", "", "", "/empty").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/empty is empty")));
  ASSERT_OK_AND_ASSIGN(TransportSecurity s, LoadTransportSecurity(&env, "", "", "", "/token"));
  EXPECT_EQ(s.token, "tok");
  EXPECT_FALSE(s.tls());
}

}  // namespace
}  // namespace minigraph
