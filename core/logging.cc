#include "core/logging.h"

#include <sys/time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <utility>

#include "absl/base/const_init.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"

namespace minigraph {
namespace {

int InitialLevel() {
  const char* v = std::getenv("MG_MIN_LOG_LEVEL");
  if (v == nullptr || v[0] < '0' || v[0] > '3' || v[1] != '\0') return 0;
  return v[0] - '0';
}

std::atomic<int>& MinLevel() {
  static std::atomic<int> level(InitialLevel());
  return level;
}

ABSL_CONST_INIT absl::Mutex sink_mu(absl::kConstInit);
LogSink* sink ABSL_GUARDED_BY(sink_mu) = nullptr;

const char* Basename(const char* path) {
  const char* base = path;
  for (const char* p = path; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

}  // namespace

void SetMinLogLevel(LogLevel level) {
  MinLevel().store(static_cast<int>(level), std::memory_order_relaxed);
}

LogLevel MinLogLevel() {
  return static_cast<LogLevel>(MinLevel().load(std::memory_order_relaxed));
}

void SetLogSink(LogSink new_sink) {
  absl::MutexLock lock(&sink_mu);
  delete sink;
  sink = new_sink ? new LogSink(std::move(new_sink)) : nullptr;
}

namespace logging_internal {

LogMessage::LogMessage(const char* file, int line, LogLevel level)
    : file_(file), line_(line), level_(level) {}

LogMessage::~LogMessage() {
  if (static_cast<int>(level_) < static_cast<int>(MinLogLevel()) &&
      level_ != LogLevel::kFatal) {
    return;
  }
  const std::string text = stream_.str();
  {
    absl::MutexLock lock(&sink_mu);
    if (sink != nullptr) {
      (*sink)(level_, text);
      return;
    }
  }
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  static constexpr char kLetters[] = "IWEF";
  const std::string line = absl::StrFormat(
      "%c %02d:%02d:%02d.%03d %s:%d] %s\n", kLetters[static_cast<int>(level_)],
      tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(tv.tv_usec / 1000),
      Basename(file_), line_, text);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

LogMessageFatal::LogMessageFatal(const char* file, int line)
    : LogMessage(file, line, LogLevel::kFatal) {}

LogMessageFatal::~LogMessageFatal() {
  // The base destructor cannot run first, so flush by hand.
  const std::string text = stream_.str();
  std::fprintf(stderr, "F %s:%d] %s\n", Basename(file_), line_, text.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace logging_internal
}  // namespace minigraph
