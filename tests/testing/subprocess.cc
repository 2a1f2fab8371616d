#include "tests/testing/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

extern char** environ;

namespace minigraph {

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(const std::vector<std::string>& argv,
                                                              bool with_stdout) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (with_stdout) {
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(rc)));
  }
  return std::unique_ptr<Subprocess>(new Subprocess(pid, pipefd[0]));
}

Subprocess::~Subprocess() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  close(err_fd_);
}

bool Subprocess::ReadSome(absl::Duration timeout) {
  pollfd p{err_fd_, POLLIN, 0};
  const int ms = static_cast<int>(std::max<int64_t>(0, absl::ToInt64Milliseconds(timeout)));
  if (poll(&p, 1, ms) <= 0) return true;  // nothing yet
  char buf[4096];
  const ssize_t n = read(err_fd_, buf, sizeof(buf));
  if (n <= 0) return false;
  output_.append(buf, n);
  return true;
}

absl::Status Subprocess::WaitForLine(absl::string_view text, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    // Only whole lines count.
    const size_t end = output_.rfind('\n');
    if (end != std::string::npos &&
        absl::StrContains(absl::string_view(output_).substr(0, end), text)) {
      return absl::OkStatus();
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(absl::StrCat("no line with '", text, "' within ",
                                                      absl::FormatDuration(timeout),
                                                      "; output so far:\n", output_));
    }
    if (!ReadSome(left)) {
      return absl::FailedPreconditionError(
          absl::StrCat("process ended before a line with '", text, "'; its output:\n", output_));
    }
  }
}

void Subprocess::Signal(int sig) {
  if (!reaped_) kill(pid_, sig);
}

absl::StatusOr<int> Subprocess::Wait(absl::Duration timeout) {
  if (reaped_) return absl::FailedPreconditionError("process already reaped");
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      reaped_ = true;
      return absl::DeadlineExceededError(absl::StrCat("process ", pid_, " still ran after ",
                                                      absl::FormatDuration(timeout),
                                                      " (killed); output:\n", output_));
    }
    if (!ReadSome(left)) break;  // stderr closed: the process is ending
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  reaped_ = true;
  return status;
}

namespace {

// The lowest port of the kernel's ephemeral range (source ports of
// outgoing connections), 32768 where it cannot be read.
int EphemeralLow() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  if (!(range >> low) || low <= 1024) low = 32768;
  return low;
}

// Whether 127.0.0.1:`port` can be bound right now.
absl::StatusOr<bool> Bindable(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return bound;
}

}  // namespace

absl::StatusOr<int> PickUnusedPort() {
  // Below the ephemeral range: a port the kernel picks for port 0 is one it
  // may also give an outgoing connection (a task dialing another) as its
  // source port before the test's server binds it. Never handed out twice
  // in a process.
  static absl::Mutex mu(absl::kConstInit);
  static auto* given = new std::set<int>;
  static const int low = EphemeralLow();
  const int first = std::max(1025, low - 16384);
  std::random_device seed;
  std::mt19937 pick(seed());
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = first + static_cast<int>(pick() % static_cast<unsigned>(low - first));
    {
      absl::MutexLock l(&mu);
      if (given->count(port) > 0) continue;
    }
    absl::StatusOr<bool> free = Bindable(port);
    if (!free.ok()) return free.status();
    if (!*free) continue;
    absl::MutexLock l(&mu);
    if (given->insert(port).second) return port;
  }
  return absl::ResourceExhaustedError(absl::StrCat("no free port in [", first, ", ", low,
                                                   ") that this process has not handed out"));
}

}  // namespace minigraph
