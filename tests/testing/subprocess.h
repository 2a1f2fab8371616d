// Child processes for end-to-end tests: start a binary, read its stderr
// line by line until a line appears, signal it, and wait for it to end,
// each bounded in time and without sleeping (poll on the pipe).
//
//   ASSERT_OK_AND_ASSIGN(auto server, Subprocess::Start({binary, "--job_name=ps"}));
//   ASSERT_OK(server->WaitForLine("serving at", absl::Seconds(30)));
//   server->Signal(SIGTERM);
//   ASSERT_OK_AND_ASSIGN(int status, server->Wait(absl::Seconds(30)));
//
// Thread-compatible: one thread at a time uses a Subprocess (its output is
// read on the calling thread); distinct Subprocesses are independent.

#ifndef MINIGRAPH_TESTS_TESTING_SUBPROCESS_H_
#define MINIGRAPH_TESTS_TESTING_SUBPROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace minigraph {

class Subprocess {
 public:
  // Starts argv[0] with the given arguments; stderr, and stdout too when
  // `with_stdout` (else it is discarded), is kept (output()). Returns the
  // error naming the binary if it cannot start.
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(const std::vector<std::string>& argv,
                                                           bool with_stdout = false);

  // Kills the process (SIGKILL) if it still runs.
  ~Subprocess();

  // Reads the output until a line containing `text` arrives (lines already
  // read count). DeadlineExceeded after `timeout`; FailedPrecondition if
  // the process closes stderr (exits) first. Both include the output so far.
  absl::Status WaitForLine(absl::string_view text, absl::Duration timeout);

  void Signal(int sig);

  // Reads stderr to its end, then reaps the process: returns its wait
  // status (WIFEXITED, WEXITSTATUS...). DeadlineExceeded after `timeout`
  // (the process is then killed).
  absl::StatusOr<int> Wait(absl::Duration timeout);

  pid_t pid() const { return pid_; }
  // Everything read from stderr so far.
  const std::string& output() const { return output_; }

 private:
  Subprocess(pid_t pid, int err_fd) : pid_(pid), err_fd_(err_fd) {}
  // Reads what is available within `timeout`; false at end of file.
  bool ReadSome(absl::Duration timeout);

  pid_t pid_;
  int err_fd_;
  bool reaped_ = false;
  std::string output_;
};

// A TCP port on 127.0.0.1 that nothing listens on right now, below the
// kernel's ephemeral range (so no outgoing connection takes it as its
// source port), and that this process has not been given before. Another
// process could still bind it before the test does.
absl::StatusOr<int> PickUnusedPort();

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_SUBPROCESS_H_
