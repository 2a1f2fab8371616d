// Minimal logging and checks. Abseil 20220623 has no absl/log.
//
//   MG_LOG(INFO) << "Restored model from " << path;
//   MG_CHECK(ptr != nullptr) << "what went wrong";
//   SetMinLogLevel(LogLevel::kWarning);   // tests keep INFO quiet
//
// Messages go to stderr as one line each: "I 20:31:02.123 file.cc:42] text".
// A log sink can be installed to capture lines (tests, tools).

#ifndef MINIGRAPH_CORE_LOGGING_H_
#define MINIGRAPH_CORE_LOGGING_H_

#include <functional>
#include <sstream>
#include <string>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"

namespace minigraph {

enum class LogLevel { kInfo = 0, kWarning = 1, kError = 2, kFatal = 3 };

// Lines below `level` are dropped. Default: kInfo, or the value of the
// environment variable MG_MIN_LOG_LEVEL (0-3) when it is set. Thread-safe.
void SetMinLogLevel(LogLevel level);
LogLevel MinLogLevel();

// Replaces where lines go; nullptr restores stderr. The sink gets the level
// and the formatted message without the prefix. Thread-safe; the sink must be
// safe to call from any thread.
using LogSink = std::function<void(LogLevel, absl::string_view)>;
void SetLogSink(LogSink sink);

namespace logging_internal {

class LogMessage {
 public:
  LogMessage(const char* file, int line, LogLevel level);
  ~LogMessage();
  std::ostream& stream() { return stream_; }

 protected:
  const char* file_;
  int line_;
  LogLevel level_;
  std::ostringstream stream_;
};

class LogMessageFatal : public LogMessage {
 public:
  LogMessageFatal(const char* file, int line);
  ABSL_ATTRIBUTE_NORETURN ~LogMessageFatal();
};

// Swallows a stream expression in the disabled branch of a macro.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace logging_internal
}  // namespace minigraph

#define MG_LOG_INFO \
  ::minigraph::logging_internal::LogMessage(__FILE__, __LINE__, \
                                            ::minigraph::LogLevel::kInfo)
#define MG_LOG_WARNING \
  ::minigraph::logging_internal::LogMessage(__FILE__, __LINE__, \
                                            ::minigraph::LogLevel::kWarning)
#define MG_LOG_ERROR \
  ::minigraph::logging_internal::LogMessage(__FILE__, __LINE__, \
                                            ::minigraph::LogLevel::kError)
#define MG_LOG_FATAL \
  ::minigraph::logging_internal::LogMessageFatal(__FILE__, __LINE__)

#define MG_LOG(severity) MG_LOG_##severity.stream()

// Aborts with the message when `cond` is false. For main() and truly
// impossible states; fallible paths return absl::Status.
#define MG_CHECK(cond)                                      \
  ABSL_PREDICT_TRUE(cond)                                   \
  ? (void)0                                                 \
  : ::minigraph::logging_internal::Voidify() &              \
        MG_LOG_FATAL.stream() << "Check failed: " #cond " "

#ifdef NDEBUG
#define MG_DCHECK(cond) \
  while (false) MG_CHECK(cond)
#else
#define MG_DCHECK(cond) MG_CHECK(cond)
#endif

#endif  // MINIGRAPH_CORE_LOGGING_H_
