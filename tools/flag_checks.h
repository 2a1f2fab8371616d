// Checks for the tools' command lines: a stray argument or a flag out of its
// range is an error that names it, never a silent default or a crash later.
//
//   std::vector<char*> rest = ParseFlags(argc, argv);   // exit code 2 on a bad flag
//   absl::Status s = NoPositionalArguments(rest);
//   if (s.ok()) s = FlagInRange("batch", absl::GetFlag(FLAGS_batch), 1, 65536);
//   if (s.ok()) s = ApplyMaxTensorBytes();
//   if (!s.ok()) return UsageError("train", s);   // exit code 2

#ifndef MINIGRAPH_TOOLS_FLAG_CHECKS_H_
#define MINIGRAPH_TOOLS_FLAG_CHECKS_H_

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace minigraph {

// absl::ParseCommandLine, except that a command line absl refuses (an
// unknown flag, a value that does not parse or overflows its type) exits with
// code 2, as every other bad command line of the tools does, not absl's 1.
// --help and the other usage flags exit as absl has them. Call once, from
// main.
//
// absl keeps only the last value of a flag given twice; each flag named in
// `list_flags` (a std::vector<std::string> flag, comma-separated) takes
// every one instead: "--input=a=A.npy --input=b=B.npy" is
// "--input=a=A.npy,b=B.npy".
//
// Also turns off Abseil's debug-mode deadlock detection for the process
// (absl::SetMutexDeadlockDetectionMode), which Debian's Abseil has on and
// which costs every absl::Mutex lock a walk of a global lock graph.
std::vector<char*> ParseFlags(int argc, char** argv,
                              const std::vector<std::string>& list_flags = {});

// InvalidArgument naming the first argument ParseCommandLine left over.
absl::Status NoPositionalArguments(const std::vector<char*>& rest);

// InvalidArgument "--flag=value is out of range: give lo to hi" unless
// lo <= value <= hi (and, for floating point, value is finite).
template <typename T>
absl::Status FlagInRange(absl::string_view flag, T value, T lo, T hi) {
  bool ok = lo <= value && value <= hi;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(value);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, " is out of range: give ", lo, " to ", hi));
}

// Applies --max_tensor_bytes (defined here, so every tool has it): the
// largest tensor a graph or checkpoint may make this process allocate.
absl::Status ApplyMaxTensorBytes();

// Prints "<tool>: <message> (see --help)" and returns exit code 2.
int UsageError(absl::string_view tool, const absl::Status& s);

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_FLAG_CHECKS_H_
