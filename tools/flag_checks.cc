#include "tools/flag_checks.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "core/allocator.h"

ABSL_FLAG(int64_t, max_tensor_bytes, 0,
          "Largest tensor a graph or checkpoint may make this process allocate, in bytes; a "
          "larger one is an error naming it (0: the machine's physical memory)");

namespace minigraph {
namespace {

std::atomic<bool> parsing{false};

// absl's parser reports a bad command line and calls exit(1); while it
// parses, this handler, run by that exit, ends the process with 2 instead.
void ExitTwoWhileParsing() {
  if (!parsing.load()) return;
  std::fflush(nullptr);
  _exit(2);
}

// Whether `argv` asks for usage (--help, --helpfull, --helpshort,
// --helppackage, --helpmatch=S, --version, --only_check_args), which absl
// answers and exits on with codes of its own.
bool AsksForUsage(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--") break;
    arg = absl::StripPrefix(absl::StripPrefix(arg, "-"), "-");
    if (absl::StartsWith(arg, "help") || arg == "version" || arg == "only_check_args") return true;
  }
  return false;
}

// `argv` with the occurrences of each flag of `list_flags` ("--name=v" or
// "--name v", one dash or two, before a "--") joined into one, where the
// first was.
std::vector<std::string> JoinListFlags(int argc, char** argv,
                                       const std::vector<std::string>& list_flags) {
  std::vector<std::string> out;
  std::map<std::string, size_t> first;  // flag -> its place in `out`
  int i = 0;
  for (; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    absl::string_view body = arg;
    if (i == 0 || !absl::ConsumePrefix(&body, "-")) {
      out.emplace_back(arg);
      continue;
    }
    absl::ConsumePrefix(&body, "-");
    const size_t eq = body.find('=');
    const std::string name(body.substr(0, eq));
    if (std::find(list_flags.begin(), list_flags.end(), name) == list_flags.end()) {
      out.emplace_back(arg);
      continue;
    }
    std::string value;
    if (eq != absl::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (i + 1 < argc) {
      value = argv[++i];
    }
    auto [it, inserted] = first.emplace(name, out.size());
    if (inserted) {
      out.push_back(absl::StrCat("--", name, "=", value));
    } else if (!value.empty()) {
      std::string& joined = out[it->second];
      absl::StrAppend(&joined, joined.back() == '=' ? "" : ",", value);
    }
  }
  for (; i < argc; ++i) out.emplace_back(argv[i]);
  return out;
}

}  // namespace

std::vector<char*> ParseFlags(int argc, char** argv, const std::vector<std::string>& list_flags) {
  // Debian builds Abseil with its debug-mode deadlock detection on: every
  // absl::Mutex lock then updates a process-wide graph of locks (5% of an
  // LSTM training step, whose loop bookkeeping locks per node). The tools
  // run without it, as a release build of Abseil does; tests keep it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // The joined arguments live for the process, as argv does: what absl
  // leaves over points into them.
  static auto* joined = new std::vector<std::string>();
  static auto* pointers = new std::vector<char*>();
  *joined = JoinListFlags(argc, argv, list_flags);
  pointers->clear();
  for (std::string& a : *joined) pointers->push_back(a.data());
  pointers->push_back(nullptr);
  if (!AsksForUsage(argc, argv)) {
    std::atexit(ExitTwoWhileParsing);
    parsing.store(true);
  }
  std::vector<char*> rest =
      absl::ParseCommandLine(static_cast<int>(joined->size()), pointers->data());
  parsing.store(false);
  return rest;
}

absl::Status NoPositionalArguments(const std::vector<char*>& rest) {
  if (rest.size() <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected argument \"", rest[1], "\"; flags take the form --name=value"));
}

absl::Status ApplyMaxTensorBytes() {
  const int64_t bytes = absl::GetFlag(FLAGS_max_tensor_bytes);
  if (bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_tensor_bytes=", bytes, " is out of range: give a byte count, or 0 for the default"));
  }
  if (bytes > 0) SetMaxTensorBytes(static_cast<size_t>(bytes));
  return absl::OkStatus();
}

int UsageError(absl::string_view tool, const absl::Status& s) {
  std::fprintf(stderr, "%s: %s (see --help)\n", std::string(tool).c_str(),
               std::string(s.message()).c_str());
  return 2;
}

}  // namespace minigraph
