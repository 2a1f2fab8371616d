// //tools:server under HTTP/2 floods from one raw connection: streams
// opened and reset at once ("rapid reset", CVE-2023-44487) and header
// blocks split into CONTINUATION frames. The server's threads stay under its
// --max_call_threads bound (plus its fixed ones) and a correct client still
// runs a step afterwards. The frames are written by hand: no HTTP/2 client
// library sends malformed or abusive streams on request.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "session/session.h"
#include "tests/testing/binary_under_test.h"
#include "tests/testing/servers.h"
#include "tests/testing/subprocess.h"

namespace minigraph {
namespace {

constexpr int kMaxCallThreads = 16;
// Threads gRPC may start on its own under load (timers, its executor: up
// to twice the cores), which no quota bounds. Six did in one run under ASan
// on a loaded 2-core machine (2026-12-06: peak 38 over 16 before); a thread
// per stream or per call past the bound would be thousands.
constexpr int kGrpcSlack = 8;

// A /proc/PID/status field ("Threads", "VmHWM"), as a number.
int64_t StatusField(pid_t pid, const std::string& field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) != 0) continue;
    int64_t v = 0;
    std::string digits;
    for (char c : line.substr(field.size() + 1)) {
      if (c >= '0' && c <= '9') digits += c;
    }
    return absl::SimpleAtoi(digits, &v) ? v : -1;
  }
  return -1;
}

// Samples the thread count of `pid` until stopped; keeps the peak.
class ThreadSampler {
 public:
  explicit ThreadSampler(pid_t pid)
      : thread_([this, pid] {
          while (!stop_.load()) {
            const int64_t n = StatusField(pid, "Threads");
            if (n > peak_.load()) peak_.store(n);
            usleep(500);
          }
        }) {}
  int64_t Stop() {
    stop_.store(true);
    thread_.join();
    return peak_.load();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> peak_{0};
  std::thread thread_;
};

void AppendFrame(std::string* out, uint8_t type, uint8_t flags, uint32_t stream,
                 const std::string& payload) {
  const uint32_t n = payload.size();
  out->push_back(static_cast<char>(n >> 16));
  out->push_back(static_cast<char>(n >> 8));
  out->push_back(static_cast<char>(n));
  out->push_back(static_cast<char>(type));
  out->push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(stream >> shift));
  *out += payload;
}

// HPACK: a literal header field without indexing, new name, no Huffman
// coding (RFC 7541 6.2.2); names and values under 127 bytes.
void AppendHeader(std::string* block, const std::string& name, const std::string& value) {
  block->push_back('\0');
  block->push_back(static_cast<char>(name.size()));
  *block += name;
  block->push_back(static_cast<char>(value.size()));
  *block += value;
}

constexpr uint8_t kHeaders = 0x1, kRstStream = 0x3, kSettings = 0x4, kContinuation = 0x9;
constexpr uint8_t kEndHeaders = 0x4;

// Opens `streams` gRPC calls on one connection to 127.0.0.1:`port`, each
// reset as soon as its headers are sent; with `continuations` > 0 each
// header block is split into that many CONTINUATION frames after its
// HEADERS frame. Returns the bytes sent, or -1.
int64_t Flood(int port, int streams, int continuations) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return -1;
  // Whatever the server answers is read and dropped, so its writes never
  // block; the reader ends when the connection closes.
  std::thread drain([fd] {
    char buf[65536];
    while (read(fd, buf, sizeof(buf)) > 0) {
    }
  });
  std::string block;
  AppendHeader(&block, ":method", "POST");
  AppendHeader(&block, ":scheme", "http");
  AppendHeader(&block, ":path", "/tensorflow.WorkerService/GetStatus");
  AppendHeader(&block, ":authority", absl::StrCat("127.0.0.1:", port));
  AppendHeader(&block, "content-type", "application/grpc");
  AppendHeader(&block, "te", "trailers");
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  AppendFrame(&out, kSettings, 0, 0, "");
  int64_t sent = 0;
  bool ok = true;
  for (int i = 0; i < streams && ok; ++i) {
    const uint32_t stream = 1 + 2 * static_cast<uint32_t>(i);
    if (continuations == 0) {
      AppendFrame(&out, kHeaders, kEndHeaders, stream, block);
    } else {
      const size_t piece = block.size() / (continuations + 1);
      AppendFrame(&out, kHeaders, 0, stream, block.substr(0, piece));
      for (int c = 1; c <= continuations; ++c) {
        const bool last = c == continuations;
        AppendFrame(&out, kContinuation, last ? kEndHeaders : 0, stream,
                    block.substr(c * piece, last ? std::string::npos : piece));
      }
    }
    AppendFrame(&out, kRstStream, 0, stream, std::string("\0\0\0\x08", 4));  // CANCEL
    if (out.size() >= (1 << 16) || i + 1 == streams) {
      for (size_t at = 0; at < out.size();) {
        const ssize_t w = write(fd, out.data() + at, out.size() - at);
        if (w <= 0) {
          ok = false;  // the server hung up: it may, under a flood
          break;
        }
        at += w;
      }
      sent += out.size();
      out.clear();
    }
  }
  shutdown(fd, SHUT_WR);
  drain.join();
  close(fd);
  return sent;
}

std::unique_ptr<Subprocess> StartServer() {
  auto p = Subprocess::Start({BinaryUnderTest(),
                              absl::StrCat("--max_call_threads=", kMaxCallThreads),
                              "--inter_op_threads=2", "--intra_op_threads=1"});
  EXPECT_OK(p.status());
  EXPECT_OK((*p)->WaitForLine("serving at", absl::Seconds(60)));
  return *std::move(p);
}

int PortOf(const Subprocess& server) {
  const std::string& log = server.output();
  const size_t at = log.find("serving at 127.0.0.1:");
  int port = 0;
  if (at != std::string::npos) {
    const size_t from = at + strlen("serving at 127.0.0.1:");
    absl::SimpleAtoi(log.substr(from, log.find_first_not_of("0123456789", from) - from), &port);
  }
  return port;
}

// A step of a correct client, after the flood; returns how many times it
// was told the server's threads were all busy, or timed out while the
// server still worked through the flood's calls (a sanitizer's build takes
// seconds), before it ran. Bounded: two minutes in all.
int ExpectAStepRuns(int port) {
  Scope root = Scope::NewRootScope();
  ops::Add(root.WithOpName("sum"), ops::Const(root, 2.0f), ops::Const(root, 3.0f));
  const absl::Time give_up = absl::Now() + absl::Minutes(2);
  int busy = 0;
  for (;;) {
    auto s = Connect(absl::StrCat("grpc://127.0.0.1:", port));
    absl::Status st = s->Create(*root.ToGraphDef());
    std::vector<Tensor> out;
    if (st.ok()) st = s->Run({}, {"sum"}, {}, &out);
    if ((absl::IsResourceExhausted(st) || absl::IsDeadlineExceeded(st)) && absl::Now() < give_up) {
      ++busy;
      continue;
    }
    EXPECT_OK(st);
    if (st.ok()) EXPECT_EQ(*out[0].data<float>(), 5.0f);
    return busy;
  }
}

struct FloodCase {
  const char* name;
  int streams;
  int continuations;
};

class ServerFloodTest : public ::testing::TestWithParam<FloodCase> {};

TEST_P(ServerFloodTest, ThreadsStayUnderTheBoundAndACorrectClientStillRuns) {
  const FloodCase& c = GetParam();
  auto server = StartServer();
  const int port = PortOf(*server);
  ASSERT_GT(port, 0) << server->output();
  ExpectAStepRuns(port);  // the threads a served step starts lazily, before the count
  const int64_t before = StatusField(server->pid(), "Threads");
  ThreadSampler sampler(server->pid());
  const int64_t sent = Flood(port, c.streams, c.continuations);
  const absl::Time flooded = absl::Now();
  const int busy = ExpectAStepRuns(port);
  std::printf("a correct step ran %.3f s after the flood, after %d busy or late answers\n",
              absl::ToDoubleSeconds(absl::Now() - flooded), busy);
  const int64_t peak = sampler.Stop();
  ASSERT_GT(sent, 0);
  // The bound on calls' threads, beside the threads the server has anyway
  // (before: gRPC's pollers and timers, the step pools), which a flood does
  // not add to.
  EXPECT_LE(peak, before + kMaxCallThreads + kGrpcSlack) << "threads before the flood: " << before;
  std::printf("%s: %d streams, %lld bytes; threads %lld before, peak %lld (bound %d + %lld); "
              "peak resident %lld kB\n",
              c.name, c.streams, static_cast<long long>(sent), static_cast<long long>(before),
              static_cast<long long>(peak), kMaxCallThreads, static_cast<long long>(before),
              static_cast<long long>(StatusField(server->pid(), "VmHWM")));
  server->Signal(SIGTERM);
  ASSERT_OK_AND_ASSIGN(int status, server->Wait(absl::Seconds(60)));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server->output();
}

INSTANTIATE_TEST_SUITE_P(Floods, ServerFloodTest,
                         ::testing::Values(FloodCase{"RapidReset", 50000, 0},
                                           FloodCase{"Continuation", 10000, 8}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace minigraph
