// gRPC's own log lines quote what a peer sent; a server must not print a
// client's raw bytes.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "core/logging.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "grpc/support/log.h"
#include "gtest/gtest.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/server.h"

namespace minigraph {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(GrpcLogTest, EscapesBytesOutsidePrintableAscii) {
  EXPECT_EQ(distributed_internal::EscapeNonPrintable("value=text/html; q=\"1\""),
            "value=text/html; q=\"1\"");
  EXPECT_EQ(distributed_internal::EscapeNonPrintable(std::string("a\x01\x1b[2J\xff\\b\n", 10)),
            "a\\x01\\x1b[2J\\xff\\x5cb\\x0a");
}

// Captures the lines logged while it lives.
class CapturedLog {
 public:
  CapturedLog() {
    SetLogSink([this](LogLevel, absl::string_view line) {
      absl::MutexLock l(&mu_);
      lines_.emplace_back(line);
    });
  }
  ~CapturedLog() { SetLogSink(nullptr); }
  std::vector<std::string> lines() {
    absl::MutexLock l(&mu_);
    return lines_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

// An HTTP/2 frame: 24-bit length, type, flags, stream id.
std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string f;
  f.push_back(static_cast<char>(payload.size() >> 16));
  f.push_back(static_cast<char>(payload.size() >> 8));
  f.push_back(static_cast<char>(payload.size()));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (int shift : {24, 16, 8, 0}) f.push_back(static_cast<char>(stream >> shift));
  return f + payload;
}

// An HPACK literal header field without indexing, with a new name.
std::string Literal(const std::string& name, const std::string& value) {
  return std::string(1, '\0') + static_cast<char>(name.size()) + name +
         static_cast<char>(value.size()) + value;
}

// A client that speaks HTTP/2 by hand sends a request whose content-type
// holds control bytes; gRPC rejects the metadata and logs it, escaped.
TEST(GrpcLogTest, AClientsRawMetadataBytesAreLoggedEscaped) {
  ServerOptions options;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Server> server, Server::Create(options));
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_ERROR);
  CapturedLog log;

  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string evil = "application/grpc\x1b]0;pwned\x07\xff";
  const std::string headers = std::string("\x83\x86", 2) +  // :method POST, :scheme http
                              Literal(":path", "/tensorflow.MasterService/ListDevices") +
                              Literal(":authority", "x") + Literal("content-type", evil) +
                              Literal("te", "trailers");
  const std::string request = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") +
                              Frame(0x4, 0, 0, "") +         // SETTINGS
                              Frame(0x1, 0x4 | 0x1, 1, headers);  // HEADERS, END_HEADERS|END_STREAM
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  // Read until the server answers (settings, a reset) or closes: by then it
  // has parsed the headers.
  char buf[4096];
  for (int i = 0; i < 50; ++i) {
    pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    if (read(fd, buf, sizeof(buf)) <= 0) break;
    bool logged = false;
    for (const std::string& line : log.lines()) logged |= absl::StrContains(line, "content-type");
    if (logged) break;
  }
  close(fd);
  server.reset();

  const std::vector<std::string> lines = log.lines();
  EXPECT_THAT(lines, Contains(HasSubstr("\\x1b]0;pwned\\x07\\xff")));
  for (const std::string& line : lines) {
    for (unsigned char c : line) {
      EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "raw byte " << int{c} << " in: " << line;
    }
  }
}

}  // namespace
}  // namespace minigraph
