// Restore throughput: a synthetic checkpoint read three ways in one run,
// page cache warm, median of --repeats:
//   baseline  plain pread() of the data file into one reused buffer
//   reader    BundleReader into fresh tensors, every crc checked, --threads
//             tensors at a time
//   session   Saver::Restore through Session::Run into variables (RestoreV2
//             reads in parallel on the intra-op pool, Assign adopts buffers)
// With --cold, also from a cold page cache (the files dropped from it before
// each repetition): the session's restore against the best of three plain
// sequential reads. With --save, a durable Saver::Save (data, index and
// directory synced) against a plain write + fdatasync of the same bytes.
// With --tensor_kb, every tensor has that size (many small tensors: the
// JSON then gives the session's overhead per tensor over the baseline).
// Progress goes to stderr; the last line of stdout is one JSON object.
//
//   restore_bench --size_mb=1024 --tensors=100 --repeats=5
//   restore_bench --tensors=20000 --tensor_kb=1 --save --cold
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
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
ABSL_FLAG(int, tensor_kb, 0,
          "When > 0, every tensor has this many KiB (and --size_mb is not used)");
ABSL_FLAG(bool, cold, false, "Also measure restores from a cold page cache");
ABSL_FLAG(bool, save, false, "Also measure durable saves against a plain fsync'd write");

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

// The plain file operations of the baselines and of dropping the page
// cache, written against POSIX directly: they are what the Env's are
// measured against.
absl::Status Errno(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// Syncs `path` and drops its pages from the page cache (clean pages go).
absl::Status DropFromPageCache(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return Errno("open", path);
  const bool ok = fdatasync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  close(fd);
  return ok ? absl::OkStatus() : Errno("dropping from the page cache", path);
}

// Reads all of `path` into `buf` in `chunk`-byte preads on `threads`
// threads (chunk i on thread i % threads), with a sequential-read hint.
absl::Status PlainRead(const std::string& path, uint64_t size, size_t chunk, int threads,
                       char* buf) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return Errno("open", path);
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::atomic<bool> failed{false};
  auto work = [&](int t) {
    for (uint64_t off = uint64_t{chunk} * t; off < size; off += uint64_t{chunk} * threads) {
      const size_t want = std::min<uint64_t>(chunk, size - off);
      if (pread(fd, buf + off, want, off) != static_cast<ssize_t>(want)) failed = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  close(fd);
  return failed ? Errno("pread", path) : absl::OkStatus();
}

// Writes `size` bytes of `buf` to a new file at `path` in 16 MiB writes and
// fdatasyncs it: the durable-save baseline.
absl::Status PlainDurableWrite(const std::string& path, const char* buf, uint64_t size) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Errno("open", path);
  constexpr size_t kChunk = 16 << 20;
  bool ok = true;
  for (uint64_t off = 0; ok && off < size; off += kChunk) {
    const size_t want = std::min<uint64_t>(kChunk, size - off);
    ok = write(fd, buf + off, want) == static_cast<ssize_t>(want);
  }
  ok = ok && fdatasync(fd) == 0;
  close(fd);
  return ok ? absl::OkStatus() : Errno("write", path);
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "restore_bench: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

absl::Status CheckFlags(const std::vector<char*>& rest) {
  MG_RETURN_IF_ERROR(NoPositionalArguments(rest));
  MG_RETURN_IF_ERROR(FlagInRange("size_mb", absl::GetFlag(FLAGS_size_mb), 1, 1 << 20));
  MG_RETURN_IF_ERROR(FlagInRange("tensor_kb", absl::GetFlag(FLAGS_tensor_kb), 0, 1 << 20));
  // At least one float per tensor.
  const int64_t max_tensors =
      absl::GetFlag(FLAGS_tensor_kb) > 0 ? 10'000'000 : int64_t{absl::GetFlag(FLAGS_size_mb)} << 18;
  MG_RETURN_IF_ERROR(FlagInRange<int64_t>("tensors", absl::GetFlag(FLAGS_tensors), 1,
                                          std::min<int64_t>(10'000'000, max_tensors)));
  MG_RETURN_IF_ERROR(FlagInRange("repeats", absl::GetFlag(FLAGS_repeats), 1, 1000));
  return FlagInRange("threads", absl::GetFlag(FLAGS_threads), 0, 1024);
}

int Run() {
  SetMinLogLevel(LogLevel::kWarning);
  Env* env = Env::Default();
  const int n = absl::GetFlag(FLAGS_tensors);
  const int64_t tensor_bytes = int64_t{absl::GetFlag(FLAGS_tensor_kb)} << 10;
  const int64_t bytes =
      tensor_bytes > 0 ? tensor_bytes * n : int64_t{absl::GetFlag(FLAGS_size_mb)} << 20;
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
  const std::vector<int64_t> sizes =
      tensor_bytes > 0 ? std::vector<int64_t>(n, tensor_bytes / 4) : MixedSizes(n, bytes / 4, &rng);
  std::fprintf(stderr, "writing %d tensors, %.1f MiB to %s\n", n, bytes / 1048576.0,
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

  // The session first: its first restore is this process's first use of
  // tensor memory (the reader's tensors would leave buffers behind that the
  // allocator hands out again).
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

  const double gb = static_cast<double>(file_size) / 1e9;
  const double base = gb / Median(base_t), rd = gb / Median(reader_t), ss = gb / Median(session_t);
  std::string json = absl::StrFormat(
      "{\"size_mb\":%.3f,\"tensors\":%d,\"threads\":%d,\"baseline_gbps\":%.2f,"
      "\"reader_gbps\":%.2f,\"session_gbps\":%.2f,\"session_first_gbps\":%.2f,"
      "\"reader_ratio\":%.2f,\"session_ratio\":%.2f,\"session_first_ratio\":%.2f,"
      "\"session_overhead_us_per_tensor\":%.3f",
      bytes / 1048576.0, n, threads, base, rd, ss, gb / first, rd / base, ss / base,
      gb / first / base, (Median(session_t) - Median(base_t)) / n * 1e6);

  if (absl::GetFlag(FLAGS_cold)) {
    // The baseline: the fastest median of three plain sequential reads of
    // the data file (16 MiB preads, 1 MiB preads, 16 MiB preads on
    // `threads` threads), each from a cold cache.
    const std::string index_file = MetaFilename(prefix);
    struct Method {
      const char* name;
      size_t chunk;
      int threads;
    };
    const Method methods[] = {{"pread 16 MiB", 16 << 20, 1},
                              {"pread 1 MiB", 1 << 20, 1},
                              {"pread 16 MiB, threads", 16 << 20, threads}};
    double best = 0;
    const char* best_name = "";
    for (const Method& m : methods) {
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r) {
        if (absl::Status st = DropFromPageCache(data_file); !st.ok()) return Fail(st);
        auto t0 = Clock::now();
        if (absl::Status st = PlainRead(data_file, file_size, m.chunk, m.threads, buf.get());
            !st.ok()) {
          return Fail(st);
        }
        t.push_back(Seconds(t0, Clock::now()));
      }
      std::fprintf(stderr, "cold %s: median %.3f s\n", m.name, Median(t));
      if (gb / Median(t) > best) best = gb / Median(t), best_name = m.name;
    }
    std::vector<double> cold_t;
    for (int r = 0; r < repeats; ++r) {
      for (const std::string& f : {data_file, index_file}) {
        if (absl::Status st = DropFromPageCache(f); !st.ok()) return Fail(st);
      }
      auto t0 = Clock::now();
      absl::Status st = (*saver)->Restore(session->get(), prefix);
      MG_CHECK(st.ok()) << st;
      cold_t.push_back(Seconds(t0, Clock::now()));
    }
    std::fprintf(stderr, "cold session: median %.3f s\n", Median(cold_t));
    absl::StrAppendFormat(
        &json,
        ",\"cold_baseline_gbps\":%.2f,\"cold_baseline\":\"%s\",\"cold_session_gbps\":%.2f,"
        "\"cold_session_ratio\":%.2f",
        best, best_name, gb / Median(cold_t), gb / Median(cold_t) / best);
  }

  if (absl::GetFlag(FLAGS_save)) {
    // Each repetition writes a new file (or checkpoint) and deletes it
    // afterwards, so neither side overwrites cached pages of the last.
    const std::string plain = JoinPath(dir, "plain.bin");
    std::vector<double> plain_t, save_t;
    for (int r = 0; r < repeats; ++r) {
      auto t0 = Clock::now();
      if (absl::Status st = PlainDurableWrite(plain, buf.get(), file_size); !st.ok()) {
        return Fail(st);
      }
      plain_t.push_back(Seconds(t0, Clock::now()));
      env->DeleteFile(plain).IgnoreError();
      const std::string saved = JoinPath(dir, "saved");
      t0 = Clock::now();
      absl::StatusOr<std::string> s = (*saver)->Save(session->get(), saved, {.write_state = false});
      MG_CHECK(s.ok()) << s.status();
      save_t.push_back(Seconds(t0, Clock::now()));
      env->DeleteFile(DataFilename(saved, 0, 1)).IgnoreError();
      env->DeleteFile(MetaFilename(saved)).IgnoreError();
    }
    std::fprintf(stderr, "plain write + fdatasync: median %.3f s; Saver::Save: median %.3f s\n",
                 Median(plain_t), Median(save_t));
    absl::StrAppendFormat(
        &json, ",\"save_baseline_gbps\":%.2f,\"save_gbps\":%.2f,\"save_ratio\":%.2f",
        gb / Median(plain_t), gb / Median(save_t), Median(plain_t) / Median(save_t));
  }
  std::printf("%s}\n", json.c_str());
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
