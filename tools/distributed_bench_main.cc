// The distributed runtime against its baselines, measured in one run on
// 127.0.0.1 (servers in this process, real gRPC over loopback TCP):
//   step      one-op RunStep round trip (p50, p99) vs a bare unary gRPC call
//             to the same server (WorkerService.GetStatus, an echo) and vs
//             Session::Run in process
//   recv      a 64 MiB variable on a ps read by a step on a worker
//             (RecvTensor) vs a plain TCP socket copy of the same bytes
//   mlp       the MLP (784-128-10, batch 32, SGD) with 1 ps + 2 workers
//             (servers in this process, one client thread per worker) vs
//             the same MLP in one LocalSession: steps/s per worker, and the
//             time spent in _Recv (waiting for and moving values) per step
//   storm     1 chief + --waiters workers in WaitForSession on separate
//             channels: time from the chief's ready model to the workers'
//             sessions, and the CPU the waiting used; polling every
//             --recovery_wait_secs (TensorFlow) vs the state watch
// Progress goes to stderr; the last line of stdout is one JSON object.
//
//   distributed_bench --steps=2000 --recv_mb=64 --waiters=64
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/logging.h"
#include "grpcpp/grpcpp.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "runtime/engine/kernels/control_flow/recv_stats.h"
#include "session/distributed/cluster.h"
#include "session/distributed/grpc_session.h"
#include "session/distributed/server.h"
#include "session/distributed/worker_service.grpc.pb.h"
#include "session/session.h"
#include "session/session_manager.h"
#include "tools/cluster_flags.h"
#include "tools/flag_checks.h"

ABSL_FLAG(int, steps, 2000, "Round trips timed per method");
ABSL_FLAG(int, recv_mb, 64, "Size of the tensor moved by RecvTensor, MiB");
ABSL_FLAG(int, repeats, 5, "Timed repetitions of the transfers; the median is reported");
ABSL_FLAG(int, waiters, 64, "Workers waiting for the chief in the start-up storm");
ABSL_FLAG(int, mlp_steps, 300, "MLP steps per worker (and in the single process)");
ABSL_FLAG(double, recovery_wait_secs, 0.5,
          "The polling workers' interval in the storm (the watching ones keep TensorFlow's 30 s)");

namespace minigraph {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

struct Latency {
  double p50 = 0, p99 = 0;
};

Latency Time(int n, const std::function<void()>& call) {
  for (int i = 0; i < n / 10 + 1; ++i) call();  // warm up
  std::vector<double> us(n);
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    call();
    us[i] = Micros(t0, Clock::now());
  }
  std::sort(us.begin(), us.end());
  return {us[n / 2], us[std::min(n - 1, n * 99 / 100)]};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "distributed_bench: %s: %s\n", what, std::string(s.ToString()).c_str());
    std::exit(1);
  }
}

template <typename T>
T Check(absl::StatusOr<T> v, const char* what) {
  Check(v.status(), what);
  return *std::move(v);
}

// The same bytes over a plain loopback TCP connection: one thread writes
// from a buffer, the other reads into one; both are allocated and touched
// once, outside the timing, so the baseline pays no page faults.
double TcpCopySeconds(size_t bytes) {
  static std::vector<char>* out = nullptr;
  static std::vector<char>* in = nullptr;
  if (out == nullptr || out->size() != bytes) {
    delete out;
    delete in;
    out = new std::vector<char>(bytes, 1);
    in = new std::vector<char>(bytes, 2);
  }
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
  listen(listener, 1);
  std::thread writer([&] {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    for (size_t off = 0; off < bytes;) {
      const ssize_t n = write(fd, out->data() + off, bytes - off);
      if (n <= 0) break;
      off += n;
    }
    close(fd);
  });
  const int fd = accept(listener, nullptr, nullptr);
  const auto t0 = Clock::now();
  for (size_t off = 0; off < bytes;) {
    const ssize_t n = read(fd, in->data() + off, bytes - off);
    if (n <= 0) break;
    off += n;
  }
  const double s = Micros(t0, Clock::now()) / 1e6;
  writer.join();
  close(fd);
  close(listener);
  return s;
}

std::unique_ptr<Session> Connect(const std::string& target) {
  SessionOptions o;
  o.target = target;
  return Check(NewSession(o), "NewSession");
}

// 1. One-op round trips: RunStep against gRPC's own echo (GetStatus) and
// an in-process Session::Run.
void MeasureRoundTrips(int steps, std::string* json) {
  ServerOptions so;
  so.inter_op_threads = 1;
  so.intra_op_threads = 1;
  auto server = Check(Server::Create(so), "Server::Create");
  Scope root = Scope::NewRootScope();
  ops::Identity(root.WithOpName("y"), ops::Const(root, 1.0f));
  GraphDef g = Check(root.ToGraphDef(), "graph");

  auto channel =
      grpc::CreateChannel(server->target().substr(7), grpc::InsecureChannelCredentials());
  auto stub = tensorflow::WorkerService::NewStub(channel);
  const Latency echo = Time(steps, [&] {
    grpc::ClientContext ctx;
    tensorflow::GetStatusRequest req;
    tensorflow::GetStatusResponse resp;
    Check(absl::Status(
              static_cast<absl::StatusCode>(stub->GetStatus(&ctx, req, &resp).error_code()),
              "echo"),
          "GetStatus");
  });
  auto remote = Connect(server->target());
  Check(remote->Create(g), "Create");
  std::vector<Tensor> out;
  const Latency step = Time(steps, [&] { Check(remote->Run({}, {"y"}, {}, &out), "RunStep"); });
  SessionOptions lo;
  lo.inter_op_threads = 1;
  lo.intra_op_threads = 1;
  auto local = Check(NewSession(lo), "local session");
  Check(local->Create(g), "Create");
  const Latency in_process =
      Time(steps, [&] { Check(local->Run({}, {"y"}, {}, &out), "Session::Run"); });
  std::fprintf(stderr,
               "step: RunStep p50 %.0f us p99 %.0f us; echo p50 %.0f us p99 %.0f us; in process "
               "p50 %.1f us\n",
               step.p50, step.p99, echo.p50, echo.p99, in_process.p50);
  absl::StrAppendFormat(json,
                        "\"runstep_p50_us\": %.1f, \"runstep_p99_us\": %.1f, \"echo_p50_us\": "
                        "%.1f, \"echo_p99_us\": %.1f, \"in_process_p50_us\": %.2f, "
                        "\"runstep_vs_echo_p50\": %.2f, \"runstep_vs_echo_p99\": %.2f, ",
                        step.p50, step.p99, echo.p50, echo.p99, in_process.p50,
                        step.p50 / echo.p50, step.p99 / echo.p99);
}

// 2. RecvTensor of a big tensor, ps -> worker, against a plain TCP copy.
void MeasureRecvTensor(std::string* json) {
  const int64_t n = int64_t{absl::GetFlag(FLAGS_recv_mb)} << 18;  // floats
  const size_t bytes = n * sizeof(float);
  const std::vector<int> ports = Check(FreeLoopbackPorts(2), "ports");
  const std::string spec =
      absl::StrCat("ps=127.0.0.1:", ports[0], ";worker=127.0.0.1:", ports[1]);
  ServerOptions so;
  so.cluster = Check(ParseClusterSpec(spec), "cluster");
  so.inter_op_threads = 2;
  so.job_name = "ps";
  auto ps = Check(Server::Create(so), "ps");
  so.job_name = "worker";
  auto worker = Check(Server::Create(so), "worker");
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(1, "/job:worker/task:0"));
  Tensor init(DT_FLOAT, TensorShape({n}));
  std::fill_n(init.data<float>(), n, 1.0f);
  Variable v = Variable::Create(s, "big", init);
  // A cheap consumer on the worker: only a scalar goes back to the client.
  ops::Shape(s.WithOpName("first"), v.value());
  auto sess = Connect(worker->target());
  Check(sess->Create(Check(root.ToGraphDef(), "graph")), "Create");
  Check(sess->Run({}, {}, {v.initializer().name()}, nullptr), "init");
  std::vector<Tensor> out;
  Check(sess->Run({}, {"first"}, {}, &out), "warm up");
  std::vector<double> recv_s, tcp_s;
  for (int r = 0; r < absl::GetFlag(FLAGS_repeats); ++r) {
    const auto t0 = Clock::now();
    Check(sess->Run({}, {"first"}, {}, &out), "recv step");
    recv_s.push_back(Micros(t0, Clock::now()) / 1e6);
    tcp_s.push_back(TcpCopySeconds(bytes));
  }
  const double recv_gbps = bytes / Median(recv_s) / 1e9;
  const double tcp_gbps = bytes / Median(tcp_s) / 1e9;
  std::fprintf(stderr, "recv: %d MiB RecvTensor %.2f GB/s; TCP copy %.2f GB/s\n",
               absl::GetFlag(FLAGS_recv_mb), recv_gbps, tcp_gbps);
  absl::StrAppendFormat(json,
                        "\"recv_mb\": %d, \"recv_gbps\": %.3f, \"tcp_gbps\": %.3f, "
                        "\"recv_vs_tcp\": %.2f, ",
                        absl::GetFlag(FLAGS_recv_mb), recv_gbps, tcp_gbps, recv_gbps / tcp_gbps);
}

// The benchmark's MLP (784-128-10, batch 32, SGD) in `root`.
GraphDef BuildMlp(const Scope& root) {
  const int64_t batch = 32;
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({batch, 784}));
  Output labels = ops::Placeholder(root.WithOpName("labels"), DT_INT64, PartialShape({batch}));
  auto weights = [&](const char* name, int64_t rows, int64_t cols) {
    Output shape = ops::Const(root, Tensor::Vector<int64_t>({rows, cols}));
    return Variable::Create(root, name,
                            ops::Mul(root, ops::TruncatedNormal(root, shape, DT_FLOAT, 1, 2),
                                     ops::Const(root, 0.05f)));
  };
  auto zeros = [&](const char* name, int64_t size) {
    Tensor t(DT_FLOAT, TensorShape({size}));
    std::fill_n(t.data<float>(), size, 0.0f);
    return Variable::Create(root, name, t);
  };
  Variable w1 = weights("w1", 784, 128), w2 = weights("w2", 128, 10);
  Variable b1 = zeros("b1", 128), b2 = zeros("b2", 10);
  Output h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w1.value()), b1.value()));
  Output logits = ops::BiasAdd(root, ops::MatMul(root, h, w2.value()), b2.value());
  Output loss = ops::Mean(root.WithOpName("loss"),
                          ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
                          ops::Const<int32_t>(root, 0));
  GradientDescentOptimizer sgd(0.01);
  Operation step = Check(sgd.Minimize(root, loss), "Minimize");
  ops::Group(root.WithOpName("train"), {step});
  GlobalVariablesInitializer(root);
  return Check(root.ToGraphDef(), "graph");
}

// 3. The MLP: 1 ps + 2 workers vs one process.
void MeasureMlp(std::string* json) {
  const int n = absl::GetFlag(FLAGS_mlp_steps);
  Tensor x(DT_FLOAT, TensorShape({32, 784}));
  std::fill_n(x.data<float>(), x.NumElements(), 0.1f);
  Tensor labels(DT_INT64, TensorShape({32}));
  std::fill_n(labels.data<int64_t>(), 32, 3);
  auto train = [&](Session* s, int steps) {
    std::vector<Tensor> out;
    for (int i = 0; i < steps; ++i) {
      Check(s->Run({{"x", x}, {"labels", labels}}, {}, {"train"}, &out), "train step");
    }
  };
  // One process.
  SessionOptions lo;
  lo.inter_op_threads = 1;
  lo.intra_op_threads = 1;
  auto local = Check(NewSession(lo), "local session");
  Scope local_root = Scope::NewRootScope();
  Check(local->Create(BuildMlp(local_root)), "Create");
  Check(local->Run({}, {}, {"init"}, nullptr), "init");
  train(local.get(), n / 10);
  auto t0 = Clock::now();
  train(local.get(), n);
  const double local_sps = n / (Micros(t0, Clock::now()) / 1e6);
  // 1 ps + 2 workers.
  const std::vector<int> ports = Check(FreeLoopbackPorts(3), "ports");
  const std::string spec = absl::StrCat("ps=127.0.0.1:", ports[0], ";worker=127.0.0.1:",
                                        ports[1], ",127.0.0.1:", ports[2]);
  ServerOptions so;
  so.cluster = Check(ParseClusterSpec(spec), "cluster");
  so.inter_op_threads = 2;
  so.intra_op_threads = 1;
  so.job_name = "ps";
  auto ps = Check(Server::Create(so), "ps");
  so.job_name = "worker";
  std::vector<std::unique_ptr<Server>> workers;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int w = 0; w < 2; ++w) {
    so.task_index = w;
    workers.push_back(Check(Server::Create(so), "worker"));
    Scope root = Scope::NewRootScope();
    GraphDef g = BuildMlp(
        root.WithDeviceFunction(ReplicaDeviceSetter(1, absl::StrCat("/job:worker/task:", w))));
    sessions.push_back(Connect(workers.back()->target()));
    Check(sessions.back()->Create(g), "Create");
  }
  Check(sessions[0]->Run({}, {}, {"init"}, nullptr), "init");
  for (auto& s : sessions) train(s.get(), n / 10);
  const RecvStats before = GetRecvStats();
  t0 = Clock::now();
  std::vector<std::thread> threads;
  for (auto& s : sessions) threads.emplace_back([&, sp = s.get()] { train(sp, n); });
  for (auto& t : threads) t.join();
  const double cluster_seconds = Micros(t0, Clock::now()) / 1e6;
  const RecvStats after = GetRecvStats();
  const double per_worker_sps = n / cluster_seconds;
  const double recv_ms_per_step = (after.seconds - before.seconds) * 1e3 / (2.0 * n);
  const double recvs_per_step = static_cast<double>(after.count - before.count) / (2.0 * n);
  std::fprintf(stderr,
               "mlp: one process %.0f steps/s; 1 ps + 2 workers %.0f steps/s per worker "
               "(%.2fx), %.1f _Recv per step taking %.2f ms in all\n",
               local_sps, per_worker_sps, per_worker_sps / local_sps, recvs_per_step,
               recv_ms_per_step);
  absl::StrAppendFormat(json,
                        "\"mlp_local_steps_per_s\": %.1f, \"mlp_worker_steps_per_s\": %.1f, "
                        "\"mlp_worker_vs_local\": %.3f, \"mlp_recvs_per_step\": %.1f, "
                        "\"mlp_recv_ms_per_step\": %.3f, ",
                        local_sps, per_worker_sps, per_worker_sps / local_sps, recvs_per_step,
                        recv_ms_per_step);
}

// 4. Start-up storm: workers waiting for the chief's model, polling as
// TensorFlow does (every --recovery_wait_secs) or on the state watch
// (TensorFlow's 30 s recovery_wait, woken by the chief's init).
void MeasureStartupStorm(bool watch, absl::Duration recovery_wait, std::string* json) {
  ServerOptions so;
  so.inter_op_threads = 2;
  auto server = Check(Server::Create(so), "Server::Create");
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "w", Tensor::Scalar<float>(1));
  Output ready = ReportUninitializedVariables(root);
  Operation init = GlobalVariablesInitializer(root);
  GraphDef g = Check(root.ToGraphDef(), "graph");
  SessionManager::Options o;
  o.ready_op = {ready.tensor_name()};
  o.recovery_wait = recovery_wait;
  o.wake_on_state_change = watch;
  auto sm = Check(SessionManager::Create(g, o), "SessionManager");
  const int waiters = absl::GetFlag(FLAGS_waiters);
  std::vector<std::thread> threads;
  std::vector<Clock::time_point> joined(waiters);
  std::atomic<int> started{0};
  for (int i = 0; i < waiters; ++i) {
    threads.emplace_back([&, i] {
      ++started;
      auto s = Check(sm->WaitForSession(server->target()), "WaitForSession");
      joined[i] = Clock::now();
    });
  }
  while (started.load() < waiters) std::this_thread::yield();
  // Let the waiters settle into their waiting, then measure it.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double cpu0 = CpuSeconds();
  const auto w0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const double waiting_cpu = (CpuSeconds() - cpu0) / (Micros(w0, Clock::now()) / 1e6);
  // The model is ready when the init op has run, before PrepareSession's
  // own readiness check returns.
  Clock::time_point ready_at;
  SessionManager::PrepareOptions p;
  p.init_fn = [&](Session* s) {
    absl::Status st = s->Run({}, {}, {init.name()}, nullptr);
    ready_at = Clock::now();
    return st;
  };
  auto chief = Check(sm->PrepareSession(server->target(), p), "PrepareSession");
  for (auto& t : threads) t.join();
  std::vector<double> ms;
  for (const auto& j : joined) ms.push_back(std::max(0.0, Micros(ready_at, j) / 1e3));
  std::sort(ms.begin(), ms.end());
  const char* mode = watch ? "watch" : "poll";
  std::fprintf(stderr,
               "storm (%s, recovery_wait %.1f s): %d waiters; sessions %.1f ms (first), %.1f ms "
               "(median), %.1f ms (last) after the model was ready; waiting used %.3f cores\n",
               mode, absl::ToDoubleSeconds(recovery_wait), waiters, ms.front(),
               ms[ms.size() / 2], ms.back(), waiting_cpu);
  absl::StrAppendFormat(json,
                        "\"%s_recovery_wait_secs\": %.2f, \"%s_first_join_ms\": %.1f, "
                        "\"%s_median_join_ms\": %.1f, \"%s_last_join_ms\": %.1f, "
                        "\"%s_waiting_cores\": %.3f, ",
                        mode, absl::ToDoubleSeconds(recovery_wait), mode, ms.front(), mode,
                        ms[ms.size() / 2], mode, ms.back(), mode, waiting_cpu);
}

int Main() {
  SetMinLogLevel(LogLevel::kWarning);
  ApplyMemoryFlags();  // as the server and train binaries do
  std::string json = "{";
  MeasureRoundTrips(absl::GetFlag(FLAGS_steps), &json);
  MeasureRecvTensor(&json);
  MeasureMlp(&json);
  absl::StrAppendFormat(&json, "\"waiters\": %d, ", absl::GetFlag(FLAGS_waiters));
  MeasureStartupStorm(false, absl::Seconds(absl::GetFlag(FLAGS_recovery_wait_secs)), &json);
  MeasureStartupStorm(true, absl::Seconds(30), &json);
  json.resize(json.size() - 2);  // the last ", "
  json += "}";
  std::printf("%s\n", json.c_str());
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Distributed runtime benchmarks on loopback.");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  if (absl::Status s = minigraph::NoPositionalArguments(rest); !s.ok()) {
    return minigraph::UsageError("distributed_bench", s);
  }
  return minigraph::Main();
}
