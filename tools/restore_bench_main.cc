// Restore throughput: a synthetic checkpoint read three ways in one run,
// page cache warm, median of --repeats:
//   baseline  plain pread() of the data file into one reused buffer
//   fresh     the same into a buffer mapped for each read (pages never
//             touched: what any first read into new memory costs)
//   mapped    mmap of the data file, every byte read (a sum), unmapped
//   memcpy    one used buffer into another: the memory's copy speed
//   reader    BundleReader into fresh tensors, every crc checked, --threads
//             tensors at a time
//   session   Saver::Restore through Session::Run into variables (RestoreV2
//             reads in parallel on the intra-op pool, Assign adopts buffers)
// With --cold, also from a cold page cache (the files dropped from it before
// each repetition): the session's restore against the best of three plain
// sequential reads. With --save, a durable Saver::Save (data, index and
// directory synced) against a plain write + fdatasync of the same bytes.
// With --align_tensors, the checkpoint's tensors start at multiples of 64
// bytes, and the session's restores read them in place (no copy).
// With --tensor_kb, every tensor has that size (many small tensors: the
// JSON then gives the session's overhead per tensor over the baseline).
// Progress goes to stderr; the last line of stdout is one JSON object.
//
//   restore_bench --size_mb=1024 --tensors=100 --repeats=5
//   restore_bench --tensors=20000 --tensor_kb=1 --save --cold
#include <fcntl.h>
#include <sys/mman.h>
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
ABSL_FLAG(bool, align_tensors, false,
          "Write the checkpoint with every tensor at a multiple of 64 bytes (restores then use "
          "the file's pages in place)");

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

// Writes `sizes.size()` float tensors of those sizes to `prefix` and adds
// a variable for each to `root` (its initial value a Fill op, so the graph
// stays small).
absl::StatusOr<std::vector<Variable>> WriteCheckpoint(Env* env, const std::string& prefix,
                                                      const std::vector<int64_t>& sizes,
                                                      const Scope& root) {
  const size_t alignment = absl::GetFlag(FLAGS_align_tensors) ? kTensorAlignment : 1;
  MG_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(env, prefix, {.alignment = alignment}));
  std::vector<Variable> vars;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Tensor t(DT_FLOAT, TensorShape({sizes[i]}));
    float* f = t.data<float>();
    for (int64_t j = 0; j < sizes[i]; ++j) f[j] = static_cast<float>((j * 2654435761u) % 1000);
    const std::string name = absl::StrFormat("layer%03d/weights", i);
    MG_RETURN_IF_ERROR(writer->Add(name, t));
    Output zeros = ops::Fill(root, ops::Const<int64_t>(root, {sizes[i]}), ops::Const(root, 0.0f));
    vars.push_back(Variable::Create(root, name, zeros));
  }
  MG_RETURN_IF_ERROR(writer->Finish());
  return vars;
}

// One run of the benchmark over one checkpoint: each method timed
// `repeats` times, its median reported.
class RestoreBench {
 public:
  RestoreBench(Env* env, std::string dir, std::string prefix, int repeats, int threads)
      : env_(env), dir_(std::move(dir)), prefix_(std::move(prefix)),
        data_file_(DataFilename(prefix_, 0, 1)), repeats_(repeats), threads_(threads) {}

  // Writes the checkpoint (`n` tensors, `bytes` in all or `tensor_bytes`
  // each) and makes the session's graph and Saver.
  absl::Status Prepare(int n, int64_t bytes, int64_t tensor_bytes);
  // The baseline: `pread` of the whole data file, warm, into a used buffer.
  void TimeBaseline();
  // Saver::Restore through a session: the first restore of the process
  // (fresh memory) and the next ones.
  void TimeSessionRestores();
  // BundleReader::Lookup of every tensor on `threads` threads.
  void TimeReaderRestores();
  // The JSON fields of the three above.
  std::string WarmFields(int n, int64_t bytes) const;
  // --cold: the best plain cold read against a cold session restore.
  absl::StatusOr<std::string> ColdFields();
  // --save: Saver::Save against a plain write + fdatasync.
  absl::StatusOr<std::string> SaveFields();
  // Deletes the checkpoint (and the directory, when it was made here).
  void Clean(bool dir_made_here);

 private:
  void ReadAll();

  Env* const env_;
  const std::string dir_, prefix_, data_file_;
  const int repeats_, threads_;
  uint64_t file_size_ = 0;
  std::unique_ptr<char[]> buf_;
  std::unique_ptr<RandomAccessFile> file_;
  std::unique_ptr<Saver> saver_;
  std::unique_ptr<Session> session_;
  std::vector<double> base_t_, fresh_t_, mapped_t_, memcpy_t_, reader_t_, session_t_;
  double first_ = 0;
};

absl::Status RestoreBench::Prepare(int n, int64_t bytes, int64_t tensor_bytes) {
  std::mt19937 rng(1234);
  const std::vector<int64_t> sizes =
      tensor_bytes > 0 ? std::vector<int64_t>(n, tensor_bytes / 4) : MixedSizes(n, bytes / 4, &rng);
  std::fprintf(stderr, "writing %d tensors, %.1f MiB to %s\n", n, bytes / 1048576.0,
               prefix_.c_str());
  Scope root = Scope::NewRootScope();
  MG_RETURN_IF_ERROR(WriteCheckpoint(env_, prefix_, sizes, root).status());
  MG_ASSIGN_OR_RETURN(saver_, Saver::Create(root));
  MG_ASSIGN_OR_RETURN(file_size_, env_->GetFileSize(data_file_));
  buf_.reset(new char[file_size_]);
  MG_ASSIGN_OR_RETURN(file_, env_->NewRandomAccessFile(data_file_));
  SessionOptions opts;
  opts.intra_op_threads = threads_;
  MG_ASSIGN_OR_RETURN(session_, NewSession(opts));
  MG_ASSIGN_OR_RETURN(GraphDef graph, root.ToGraphDef());
  return session_->Create(graph);
}

void RestoreBench::ReadAll() {
  constexpr size_t kChunk = 16 << 20;
  for (uint64_t off = 0; off < file_size_; off += kChunk) {
    auto got = file_->Read(off, std::min<uint64_t>(kChunk, file_size_ - off), buf_.get() + off);
    MG_CHECK(got.ok());
  }
}

void RestoreBench::TimeBaseline() {
  ReadAll();  // warms the page cache and the destination buffer
  std::unique_ptr<char[]> copy(new char[file_size_]);
  std::memcpy(copy.get(), buf_.get(), file_size_);
  for (int r = 0; r < repeats_; ++r) {
    auto t0 = Clock::now();
    ReadAll();
    base_t_.push_back(Seconds(t0, Clock::now()));

    void* fresh = mmap(nullptr, file_size_, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    MG_CHECK(fresh != MAP_FAILED);
    t0 = Clock::now();
    MG_CHECK(file_->Read(0, file_size_, static_cast<char*>(fresh)).ok());
    fresh_t_.push_back(Seconds(t0, Clock::now()));
    munmap(fresh, file_size_);

    // (Not where files cannot be mapped: a ThreadSanitizer build.)
    t0 = Clock::now();
    if (absl::StatusOr<std::unique_ptr<MappedFile>> map = env_->MapFile(data_file_); map.ok()) {
      uint64_t sum = 0;
      const char* p = (*map)->data();
      for (uint64_t i = 0; i + 8 <= file_size_; i += 8) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        sum += v;
      }
      map->reset();
      mapped_t_.push_back(Seconds(t0, Clock::now()));
      MG_CHECK(sum != 1);  // keeps the sum
    }

    t0 = Clock::now();
    std::memcpy(copy.get(), buf_.get(), file_size_);
    asm volatile("" : : "r"(copy.get()) : "memory");  // the copy is used
    memcpy_t_.push_back(Seconds(t0, Clock::now()));
  }
  std::fprintf(stderr,
               "baseline: median %.3f s (fresh buffers %.3f s, mapped %.3f s, memcpy %.3f s)\n",
               Median(base_t_), Median(fresh_t_), mapped_t_.empty() ? 0.0 : Median(mapped_t_),
               Median(memcpy_t_));
}

void RestoreBench::TimeSessionRestores() {
  for (int r = 0; r < repeats_ + 1; ++r) {
    auto t0 = Clock::now();
    absl::Status s = saver_->Restore(session_.get(), prefix_);
    MG_CHECK(s.ok()) << s;
    const double t = Seconds(t0, Clock::now());
    if (r == 0) {
      first_ = t;
    } else {
      session_t_.push_back(t);
    }
  }
  std::fprintf(stderr, "session: first restore %.3f s, median %.3f s\n", first_,
               Median(session_t_));
}

void RestoreBench::TimeReaderRestores() {
  for (int r = 0; r < repeats_ + 1; ++r) {
    auto t0 = Clock::now();
    auto reader = BundleReader::Open(env_, prefix_);
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
    for (int i = 1; i < threads_; ++i) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    if (r > 0) reader_t_.push_back(Seconds(t0, Clock::now()));  // r = 0 warms fresh memory
  }
  std::fprintf(stderr, "reader: median %.3f s\n", Median(reader_t_));
}

std::string RestoreBench::WarmFields(int n, int64_t bytes) const {
  const double gb = static_cast<double>(file_size_) / 1e9;
  const double base = gb / Median(base_t_), rd = gb / Median(reader_t_),
               ss = gb / Median(session_t_);
  const double fresh = gb / Median(fresh_t_);
  return absl::StrFormat(
      "\"size_mb\":%.3f,\"tensors\":%d,\"threads\":%d,\"aligned\":%s,\"baseline_gbps\":%.2f,"
      "\"fresh_baseline_gbps\":%.2f,\"mapped_read_gbps\":%s,\"memcpy_gbps\":%.2f,"
      "\"reader_gbps\":%.2f,\"session_gbps\":%.2f,\"session_first_gbps\":%.2f,"
      "\"reader_ratio\":%.2f,\"session_ratio\":%.2f,\"session_first_ratio\":%.2f,"
      "\"session_first_vs_fresh\":%.2f,\"session_overhead_us_per_tensor\":%.3f",
      bytes / 1048576.0, n, threads_, absl::GetFlag(FLAGS_align_tensors) ? "true" : "false", base,
      fresh,
      mapped_t_.empty() ? std::string("null") : absl::StrFormat("%.2f", gb / Median(mapped_t_)),
      gb / Median(memcpy_t_), rd, ss, gb / first_, rd / base, ss / base, gb / first_ / base,
      gb / first_ / fresh, (Median(session_t_) - Median(base_t_)) / n * 1e6);
}

absl::StatusOr<std::string> RestoreBench::ColdFields() {
  // The baseline: the fastest median of three plain sequential reads of
  // the data file (16 MiB preads, 1 MiB preads, 16 MiB preads on
  // `threads` threads), each from a cold cache.
  const double gb = static_cast<double>(file_size_) / 1e9;
  struct Method {
    const char* name;
    size_t chunk;
    int threads;
  };
  const Method methods[] = {{"pread 16 MiB", 16 << 20, 1},
                            {"pread 1 MiB", 1 << 20, 1},
                            {"pread 16 MiB, threads", 16 << 20, threads_}};
  double best = 0;
  const char* best_name = "";
  for (const Method& m : methods) {
    std::vector<double> t;
    for (int r = 0; r < repeats_; ++r) {
      MG_RETURN_IF_ERROR(DropFromPageCache(data_file_));
      auto t0 = Clock::now();
      MG_RETURN_IF_ERROR(PlainRead(data_file_, file_size_, m.chunk, m.threads, buf_.get()));
      t.push_back(Seconds(t0, Clock::now()));
    }
    std::fprintf(stderr, "cold %s: median %.3f s\n", m.name, Median(t));
    if (gb / Median(t) > best) best = gb / Median(t), best_name = m.name;
  }
  std::vector<double> cold_t;
  for (int r = 0; r < repeats_; ++r) {
    for (const std::string& f : {data_file_, MetaFilename(prefix_)}) {
      MG_RETURN_IF_ERROR(DropFromPageCache(f));
    }
    auto t0 = Clock::now();
    absl::Status st = saver_->Restore(session_.get(), prefix_);
    MG_CHECK(st.ok()) << st;
    cold_t.push_back(Seconds(t0, Clock::now()));
  }
  std::fprintf(stderr, "cold session: median %.3f s\n", Median(cold_t));
  return absl::StrFormat(
      ",\"cold_baseline_gbps\":%.2f,\"cold_baseline\":\"%s\",\"cold_session_gbps\":%.2f,"
      "\"cold_session_ratio\":%.2f",
      best, best_name, gb / Median(cold_t), gb / Median(cold_t) / best);
}

absl::StatusOr<std::string> RestoreBench::SaveFields() {
  // Each repetition writes a new file (or checkpoint) and deletes it
  // afterwards, so neither side overwrites cached pages of the last.
  const double gb = static_cast<double>(file_size_) / 1e9;
  const std::string plain = JoinPath(dir_, "plain.bin");
  std::vector<double> plain_t, save_t;
  for (int r = 0; r < repeats_; ++r) {
    auto t0 = Clock::now();
    MG_RETURN_IF_ERROR(PlainDurableWrite(plain, buf_.get(), file_size_));
    plain_t.push_back(Seconds(t0, Clock::now()));
    env_->DeleteFile(plain).IgnoreError();
    const std::string saved = JoinPath(dir_, "saved");
    t0 = Clock::now();
    absl::StatusOr<std::string> s = saver_->Save(session_.get(), saved, {.write_state = false});
    MG_CHECK(s.ok()) << s.status();
    save_t.push_back(Seconds(t0, Clock::now()));
    env_->DeleteFile(DataFilename(saved, 0, 1)).IgnoreError();
    env_->DeleteFile(MetaFilename(saved)).IgnoreError();
  }
  std::fprintf(stderr, "plain write + fdatasync: median %.3f s; Saver::Save: median %.3f s\n",
               Median(plain_t), Median(save_t));
  return absl::StrFormat(",\"save_baseline_gbps\":%.2f,\"save_gbps\":%.2f,\"save_ratio\":%.2f",
                         gb / Median(plain_t), gb / Median(save_t),
                         Median(plain_t) / Median(save_t));
}

void RestoreBench::Clean(bool dir_made_here) {
  env_->DeleteFile(data_file_).IgnoreError();
  env_->DeleteFile(MetaFilename(prefix_)).IgnoreError();
  if (dir_made_here) env_->DeleteDir(dir_).IgnoreError();
}

int Run() {
  SetMinLogLevel(LogLevel::kWarning);
  Env* env = Env::Default();
  const int n = absl::GetFlag(FLAGS_tensors);
  const int64_t tensor_bytes = int64_t{absl::GetFlag(FLAGS_tensor_kb)} << 10;
  const int64_t bytes =
      tensor_bytes > 0 ? tensor_bytes * n : int64_t{absl::GetFlag(FLAGS_size_mb)} << 20;
  int threads = absl::GetFlag(FLAGS_threads);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string dir = absl::GetFlag(FLAGS_dir);
  if (dir.empty()) dir = absl::StrCat("/tmp/restore_bench.", getpid());
  if (absl::Status s = env->CreateDir(dir); !s.ok()) {
    std::fprintf(stderr, "restore_bench: cannot create --dir: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  RestoreBench bench(env, dir, JoinPath(dir, "bench"), absl::GetFlag(FLAGS_repeats), threads);
  if (absl::Status s = bench.Prepare(n, bytes, tensor_bytes); !s.ok()) return Fail(s);
  bench.TimeBaseline();
  // The session first: its first restore is this process's first use of
  // tensor memory (the reader's tensors would leave buffers behind that the
  // allocator hands out again).
  bench.TimeSessionRestores();
  bench.TimeReaderRestores();
  std::string json = bench.WarmFields(n, bytes);
  if (absl::GetFlag(FLAGS_cold)) {
    absl::StatusOr<std::string> cold = bench.ColdFields();
    if (!cold.ok()) return Fail(cold.status());
    json += *cold;
  }
  if (absl::GetFlag(FLAGS_save)) {
    absl::StatusOr<std::string> save = bench.SaveFields();
    if (!save.ok()) return Fail(save.status());
    json += *save;
  }
  std::printf("{%s}\n", json.c_str());
  if (!absl::GetFlag(FLAGS_keep)) bench.Clean(absl::GetFlag(FLAGS_dir).empty());
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Measures checkpoint restore throughput against plain pread() of the same bytes.\n"
      "  restore_bench [--size_mb=1024] [--tensors=100] [--repeats=5] [--threads=N] [--dir=D]");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  absl::Status s = minigraph::CheckFlags(rest);
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("restore_bench", s);
  return minigraph::Run();
}
