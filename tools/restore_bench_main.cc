// Restore throughput: a synthetic checkpoint read three ways in one run,
// page cache warm, median of --repeats:
//   baseline  plain pread() of the data file into one reused buffer
//   reader    BundleReader into fresh tensors, every crc checked, --threads
//             tensors at a time
//   session   Saver::Restore through Session::Run into variables (RestoreV2
//             reads in parallel on the intra-op pool, Assign adopts buffers)
// Progress goes to stderr; the last line of stdout is one JSON object.
//
//   restore_bench --size_mb=1024 --tensors=100 --repeats=5
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "checkpoint/naming.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session.h"
#include "tools/flag_checks.h"

ABSL_FLAG(int, size_mb, 1024, "Total checkpoint size in MiB (float32 tensors)");
ABSL_FLAG(int, tensors, 100, "Number of tensors, of mixed sizes");
ABSL_FLAG(std::string, dir, "", "Where to write the checkpoint (default: a new directory in /tmp)");
ABSL_FLAG(int, repeats, 5, "Timed repetitions of each method; the median is reported");
ABSL_FLAG(int, threads, 0, "Reader and session threads; 0 = number of cores");
ABSL_FLAG(bool, keep, false, "Keep the checkpoint files afterwards");

namespace minigraph {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Mixed sizes: a few big tensors, many small ones (log-uniform weights),
// summing to `total` elements.
std::vector<int64_t> MixedSizes(int n, int64_t total, std::mt19937* rng) {
  std::uniform_real_distribution<double> d(0.0, 6.0);
  std::vector<double> w(n);
  double sum = 0;
  for (double& x : w) sum += (x = std::pow(10.0, d(*rng)));
  std::vector<int64_t> sizes(n);
  int64_t used = 0;
  for (int i = 0; i < n; ++i) {
    sizes[i] = std::max<int64_t>(1, static_cast<int64_t>(total * (w[i] / sum)));
    used += sizes[i];
  }
  sizes[std::max_element(w.begin(), w.end()) - w.begin()] += total - used;
  return sizes;
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "restore_bench: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

absl::Status CheckFlags(const std::vector<char*>& rest) {
  MG_RETURN_IF_ERROR(NoPositionalArguments(rest));
  MG_RETURN_IF_ERROR(FlagInRange("size_mb", absl::GetFlag(FLAGS_size_mb), 1, 1 << 20));
  // At least one float per tensor.
  MG_RETURN_IF_ERROR(FlagInRange<int64_t>(
      "tensors", absl::GetFlag(FLAGS_tensors), 1,
      std::min<int64_t>(10'000'000, int64_t{absl::GetFlag(FLAGS_size_mb)} << 18)));
  MG_RETURN_IF_ERROR(FlagInRange("repeats", absl::GetFlag(FLAGS_repeats), 1, 1000));
  return FlagInRange("threads", absl::GetFlag(FLAGS_threads), 0, 1024);
}

int Run() {
  SetMinLogLevel(LogLevel::kWarning);
  Env* env = Env::Default();
  const int64_t bytes = int64_t{absl::GetFlag(FLAGS_size_mb)} << 20;
  const int n = absl::GetFlag(FLAGS_tensors);
  const int repeats = absl::GetFlag(FLAGS_repeats);
  int threads = absl::GetFlag(FLAGS_threads);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) dir = absl::StrCat("/tmp/restore_bench.", getpid());
  if (absl::Status s = env->CreateDir(dir); !s.ok()) {
    std::fprintf(stderr, "restore_bench: cannot create --dir: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  const std::string prefix = JoinPath(dir, "bench");

  std::mt19937 rng(1234);
  const std::vector<int64_t> sizes = MixedSizes(n, bytes / 4, &rng);
  std::fprintf(stderr, "writing %d tensors, %d MiB to %s\n", n, absl::GetFlag(FLAGS_size_mb),
               prefix.c_str());
  Scope root = Scope::NewRootScope();
  std::vector<Variable> vars;
  {
    auto writer = BundleWriter::Create(env, prefix);
    if (!writer.ok()) return Fail(writer.status());
    for (int i = 0; i < n; ++i) {
      Tensor t(DT_FLOAT, TensorShape({sizes[i]}));
      float* f = t.data<float>();
      for (int64_t j = 0; j < sizes[i]; ++j) f[j] = static_cast<float>((j * 2654435761u) % 1000);
      const std::string name = absl::StrFormat("layer%03d/weights", i);
      if (absl::Status st = (*writer)->Add(name, t); !st.ok()) return Fail(st);
      // Initial values are Fill ops, so the graph stays small.
      Output zeros = ops::Fill(root, ops::Const<int64_t>(root, {sizes[i]}), ops::Const(root, 0.0f));
      vars.push_back(Variable::Create(root, name, zeros));
    }
    if (absl::Status st = (*writer)->Finish(); !st.ok()) return Fail(st);
  }
  auto saver = Saver::Create(root);
  MG_CHECK(saver.ok()) << saver.status();
  const std::string data_file = DataFilename(prefix, 0, 1);
  const uint64_t file_size = *env->GetFileSize(data_file);

  // Warm the page cache and the destination buffer of the baseline.
  std::unique_ptr<char[]> buf(new char[file_size]);
  auto file = *env->NewRandomAccessFile(data_file);
  auto read_all = [&] {
    constexpr size_t kChunk = 16 << 20;
    for (uint64_t off = 0; off < file_size; off += kChunk) {
      auto got = file->Read(off, std::min<uint64_t>(kChunk, file_size - off), buf.get() + off);
      MG_CHECK(got.ok());
    }
  };
  read_all();

  std::vector<double> base_t, reader_t, session_t;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    read_all();
    base_t.push_back(Seconds(t0, Clock::now()));
  }
  std::fprintf(stderr, "baseline: median %.3f s\n", Median(base_t));

  for (int r = 0; r < repeats + 1; ++r) {
    auto t0 = Clock::now();
    auto reader = BundleReader::Open(env, prefix);
    MG_CHECK(reader.ok()) << reader.status();
    std::vector<std::string> keys = (*reader)->keys();
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k = next.fetch_add(1); k < keys.size(); k = next.fetch_add(1)) {
        auto t = (*reader)->Lookup(keys[k]);
        MG_CHECK(t.ok()) << t.status();
      }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    if (r > 0) reader_t.push_back(Seconds(t0, Clock::now()));  // r = 0 warms fresh memory
  }
  std::fprintf(stderr, "reader: median %.3f s\n", Median(reader_t));

  SessionOptions opts;
  opts.intra_op_threads = threads;
  auto session = NewSession(opts);
  MG_CHECK(session.ok());
  MG_CHECK((*session)->Create(*root.ToGraphDef()).ok());
  double first = 0;
  for (int r = 0; r < repeats + 1; ++r) {
    auto t0 = Clock::now();
    absl::Status s = (*saver)->Restore(session->get(), prefix);
    MG_CHECK(s.ok()) << s;
    const double t = Seconds(t0, Clock::now());
    if (r == 0) {
      first = t;
    } else {
      session_t.push_back(t);
    }
  }
  std::fprintf(stderr, "session: first restore %.3f s, median %.3f s\n", first, Median(session_t));

  const double gb = static_cast<double>(file_size) / 1e9;
  const double base = gb / Median(base_t), rd = gb / Median(reader_t), ss = gb / Median(session_t);
  std::printf(
      "{\"size_mb\":%d,\"tensors\":%d,\"threads\":%d,\"baseline_gbps\":%.2f,\"reader_gbps\":%.2f,"
      "\"session_gbps\":%.2f,\"session_first_gbps\":%.2f,\"reader_ratio\":%.2f,"
      "\"session_ratio\":%.2f}\n",
      absl::GetFlag(FLAGS_size_mb), n, threads, base, rd, ss, gb / first, rd / base, ss / base);
  if (!absl::GetFlag(FLAGS_keep)) {
    env->DeleteFile(data_file).IgnoreError();
    env->DeleteFile(MetaFilename(prefix)).IgnoreError();
    if (absl::GetFlag(FLAGS_dir).empty()) env->DeleteDir(dir).IgnoreError();
  }
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Measures checkpoint restore throughput against plain pread() of the same bytes.\n"
      "  restore_bench [--size_mb=1024] [--tensors=100] [--repeats=5] [--threads=N] [--dir=D]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  absl::Status s = minigraph::CheckFlags(rest);
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("restore_bench", s);
  return minigraph::Run();
}
