// A //tools:server that restored a checkpoint in place (its variable on the
// data file's mapped pages) is stopped (SIGSTOP) for longer than the
// kernel's lease-break time while another process rewrites or truncates the
// data file: the kernel revokes the mapping's lease and lets the writer go
// ahead. Once the server runs again, no step trusts the variable: each
// fails with DataLoss naming it and the file until it is restored again,
// and touching the truncated pages never kills the server with SIGBUS.
//
// The lease-break time is lowered to 1 s for the test
// (/proc/sys/fs/lease-break-time, as root; skipped otherwise) and put back
// after.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/bus_errors.h"
#include "core/env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session.h"
#include "tests/testing/binary_under_test.h"
#include "tests/testing/servers.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kLeaseBreakTime[] = "/proc/sys/fs/lease-break-time";
constexpr int kFloats = 100000;  // 400 KB: many pages

// Sets the kernel's lease-break time for the test's length; ok() is false
// where it cannot (not root, no /proc/sys).
class LeaseBreakTime {
 public:
  explicit LeaseBreakTime(int seconds) {
    std::ifstream in(kLeaseBreakTime);
    if (!(in >> old_)) return;
    std::ofstream out(kLeaseBreakTime);
    ok_ = static_cast<bool>(out << seconds << "\n");
  }
  ~LeaseBreakTime() {
    if (ok_) std::ofstream(kLeaseBreakTime) << old_ << "\n";
  }
  bool ok() const { return ok_; }

 private:
  int old_ = 0;
  bool ok_ = false;
};

struct Model {
  Scope root = Scope::NewRootScope();
  std::unique_ptr<Saver> saver;
};

// v: kFloats ones, and their total; saved aligned (so restores use the
// data file's pages in place) as DIR/model-1 and DIR/model-2.
void SaveAligned(Model* m, const std::string& dir) {
  Tensor ones(DT_FLOAT, TensorShape({kFloats}));
  for (int i = 0; i < kFloats; ++i) ones.data<float>()[i] = 1.0f;
  Variable v = Variable::Create(m->root, "v", ones);
  ops::Sum(m->root.WithOpName("total"), v.value(), ops::Const<int32_t>(m->root, 0));
  Operation init = GlobalVariablesInitializer(m->root);
  Env* env = Env::Default();
  ASSERT_OK(DeleteRecursively(env, dir));
  ASSERT_OK(env->CreateDir(dir));
  auto made = Saver::Create(m->root, {.max_to_keep = 5, .align_tensors = true}, env);
  ASSERT_OK(made.status());
  m->saver = *std::move(made);
  auto local = NewSession(SessionOptions());
  ASSERT_OK(local.status());
  ASSERT_OK((*local)->Create(*m->root.ToGraphDef()));
  ASSERT_OK((*local)->Run({}, {}, {init.name()}, nullptr));
  for (int step = 1; step <= 2; ++step) {
    ASSERT_OK(m->saver->Save(local->get(), dir + "/model", {.global_step = step}).status());
  }
}

// Stops `server`, lets `attack` (which opens the file for writing, so it
// waits out the lease-break time) run to its end, and continues the server;
// then waits for the server to say the lease was revoked.
void AttackWhileStopped(Subprocess* server, const std::function<void()>& attack) {
  server->Signal(SIGSTOP);
  std::thread attacker(attack);
  attacker.join();
  server->Signal(SIGCONT);
  ASSERT_OK(server->WaitForLine("lease was revoked", absl::Seconds(30)));
}

class LeaseRevocationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
    if (!breaks_.ok()) GTEST_SKIP() << "cannot set " << kLeaseBreakTime << " (not root?)";
    dir_ = TestTempPath("lease_revocation");
    SaveAligned(&model_, dir_);
    auto p = Subprocess::Start({BinaryUnderTest(), "--inter_op_threads=2", "--intra_op_threads=1"});
    ASSERT_OK(p.status());
    server_ = *std::move(p);
    ASSERT_OK(server_->WaitForLine("serving at", absl::Seconds(60)));
    const std::string& log = server_->output();
    const size_t at = log.find("serving at ") + strlen("serving at ");
    session_ = Connect("grpc://" + log.substr(at, log.find_first_of(" \n", at) - at));
    ASSERT_OK(session_->Create(*model_.root.ToGraphDef()));
    ASSERT_OK(model_.saver->Restore(session_.get(), dir_ + "/model-1"));
    ASSERT_THAT(Total(), IsOkAndHolds(double{kFloats}));
  }

  void TearDown() override {
    if (HasFailure() && server_ != nullptr) {
      server_->Wait(absl::Seconds(5)).IgnoreError();
      std::printf("server's output:\n%s\n", server_->output().c_str());
    }
  }

  absl::StatusOr<double> Total() {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(session_->Run({}, {"total:0"}, {}, &out));
    return *out[0].data<float>();
  }
  std::string Data(int step) {
    return absl::StrCat(dir_, "/model-", step, ".data-00000-of-00001");
  }

  LeaseBreakTime breaks_{1};
  std::string dir_;
  Model model_;
  std::unique_ptr<Subprocess> server_;
  std::unique_ptr<Session> session_;
};

TEST_F(LeaseRevocationTest, AFileRewrittenWhileTheServerWasStoppedFailsEveryStepUntilRestored) {
  AttackWhileStopped(server_.get(), [&] {
    const int fd = open(Data(1).c_str(), O_WRONLY);  // waits for the lease break
    ASSERT_GE(fd, 0);
    const std::string junk(kFloats * 4, '\x7f');
    ASSERT_EQ(pwrite(fd, junk.data(), junk.size(), 0), static_cast<ssize_t>(junk.size()));
    close(fd);
  });
  for (int i = 0; i < 2; ++i) {
    EXPECT_THAT(Total(), StatusIs(absl::StatusCode::kDataLoss,
                                  AllOf(HasSubstr("variable v"), HasSubstr(Data(1)),
                                        HasSubstr("lease was revoked"))));
  }
  ASSERT_OK(model_.saver->Restore(session_.get(), dir_ + "/model-2"));
  EXPECT_THAT(Total(), IsOkAndHolds(double{kFloats}));
}

TEST_F(LeaseRevocationTest, AFileTruncatedWhileTheServerWasStoppedIsNoBusError) {
  AttackWhileStopped(server_.get(), [&] {
    // truncate() waits for the lease break too.
    ASSERT_EQ(truncate(Data(1).c_str(), 0), 0);
  });
  // The step reads every page, past the file's new end: zeros, not SIGBUS.
  EXPECT_THAT(Total(), StatusIs(absl::StatusCode::kDataLoss,
                                AllOf(HasSubstr("variable v"), HasSubstr(Data(1)))));
  ASSERT_OK(model_.saver->Restore(session_.get(), dir_ + "/model-2"));
  EXPECT_THAT(Total(), IsOkAndHolds(double{kFloats}));
  server_->Signal(SIGTERM);
  ASSERT_OK_AND_ASSIGN(int status, server_->Wait(absl::Seconds(60)));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server_->output();
}

}  // namespace
}  // namespace minigraph
