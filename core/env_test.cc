#include "core/env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include "core/bus_errors.h"
#include "core/fault_injection_env.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// The same contract, checked on the POSIX Env (under TEST_TMPDIR) and MemEnv.
class EnvContractTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      env_ = Env::Default();
      root_ = TestTempPath("env_contract");
      ASSERT_OK(DeleteRecursively(env_, root_));
    } else {
      env_ = &mem_;
      root_ = "/mem/root";
    }
    ASSERT_OK(env_->CreateDir(root_));
  }
  std::string P(absl::string_view name) { return JoinPath(root_, name); }

  MemEnv mem_;
  Env* env_ = nullptr;
  std::string root_;
};

TEST_P(EnvContractTest, WriteReadRenameDelete) {
  ASSERT_OK(WriteStringToFile(env_, P("a.tmp"), "hello world", /*sync=*/true));
  EXPECT_THAT(env_->GetFileSize(P("a.tmp")), IsOkAndHolds(11u));
  ASSERT_OK(env_->RenameFile(P("a.tmp"), P("a")));
  EXPECT_THAT(env_->FileExists(P("a.tmp")), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(env_, P("a")));
  EXPECT_EQ(data, "hello world");

  ASSERT_OK_AND_ASSIGN(auto raf, env_->NewRandomAccessFile(P("a")));
  char scratch[32];
  ASSERT_OK_AND_ASSIGN(absl::string_view part, raf->Read(6, 100, scratch));
  EXPECT_EQ(part, "world");  // short only at the end of the file
  ASSERT_OK_AND_ASSIGN(absl::string_view none, raf->Read(50, 4, scratch));
  EXPECT_TRUE(none.empty());

  ASSERT_OK_AND_ASSIGN(auto seq, env_->NewSequentialFile(P("a")));
  ASSERT_OK(seq->Skip(6));
  ASSERT_OK_AND_ASSIGN(absl::string_view rest, seq->Read(32, scratch));
  EXPECT_EQ(rest, "world");

  ASSERT_OK(env_->DeleteFile(P("a")));
  EXPECT_THAT(env_->DeleteFile(P("a")), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(env_->NewRandomAccessFile(P("a")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(P("a"))));
}

TEST_P(EnvContractTest, RenameReplacesTargetAndAppendExtends) {
  ASSERT_OK(WriteStringToFile(env_, P("state"), "old"));
  ASSERT_OK(WriteStringToFile(env_, P("state.tmp"), "new"));
  ASSERT_OK(env_->RenameFile(P("state.tmp"), P("state")));
  EXPECT_THAT(ReadFileToString(env_, P("state")), IsOkAndHolds(std::string("new")));
  ASSERT_OK_AND_ASSIGN(auto f, env_->NewAppendableFile(P("state")));
  ASSERT_OK(f->Append("er"));
  ASSERT_OK(f->Close());
  EXPECT_THAT(f->Append("x"), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(ReadFileToString(env_, P("state")), IsOkAndHolds(std::string("newer")));
}

TEST_P(EnvContractTest, DirectoriesAndChildren) {
  ASSERT_OK(env_->CreateDir(P("x/y/z")));
  ASSERT_OK(env_->CreateDir(P("x/y/z")));  // exists: OK
  ASSERT_OK(WriteStringToFile(env_, P("x/f1"), "1"));
  ASSERT_OK(WriteStringToFile(env_, P("x/f2"), "2"));
  EXPECT_THAT(env_->GetChildren(P("x")),
              IsOkAndHolds(UnorderedElementsAre("f1", "f2", "y")));
  EXPECT_THAT(env_->IsDirectory(P("x/y")), IsOkAndHolds(true));
  EXPECT_THAT(env_->IsDirectory(P("x/f1")), IsOkAndHolds(false));
  EXPECT_THAT(env_->DeleteDir(P("x")), StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(env_->SyncDir(P("x")));
  ASSERT_OK(DeleteRecursively(env_, P("x")));
  EXPECT_THAT(env_->FileExists(P("x")), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(env_->GetChildren(P("missing")), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(EnvContractTest, LargeAppendsBypassTheBuffer) {
  std::string big(3 << 20, 'q');
  big[12345] = 'z';
  ASSERT_OK_AND_ASSIGN(auto f, env_->NewWritableFile(P("big")));
  ASSERT_OK(f->Append("head"));
  ASSERT_OK(f->Append(big));
  ASSERT_OK(f->Append("tail"));
  ASSERT_OK(f->Close());
  ASSERT_OK_AND_ASSIGN(std::string data, ReadFileToString(env_, P("big")));
  EXPECT_EQ(data, "head" + big + "tail");
}

TEST_P(EnvContractTest, TryLockFileFailsAtOnceWhileAnotherHolds) {
  EXPECT_THAT(env_->TryLockFile(P("missing")), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(WriteStringToFile(env_, P("lock"), ""));
  ASSERT_OK_AND_ASSIGN(auto held, env_->TryLockFile(P("lock")));
  // A second holder in this process is excluded as another process would be.
  EXPECT_THAT(env_->TryLockFile(P("lock")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(P("lock"))));
  held.reset();
  EXPECT_OK(env_->TryLockFile(P("lock")).status());
  // Shared holders coexist and keep the exclusive lock out until the last
  // one goes.
  ASSERT_OK_AND_ASSIGN(auto reader1, env_->LockFileShared(P("lock")));
  ASSERT_OK_AND_ASSIGN(auto reader2, env_->LockFileShared(P("lock")));
  EXPECT_THAT(env_->TryLockFile(P("lock")), StatusIs(absl::StatusCode::kFailedPrecondition));
  reader1.reset();
  EXPECT_THAT(env_->TryLockFile(P("lock")), StatusIs(absl::StatusCode::kFailedPrecondition));
  reader2.reset();
  EXPECT_OK(env_->TryLockFile(P("lock")).status());
  EXPECT_THAT(env_->LockFileShared(P("missing")), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(EnvContractTest, ReadFileToStringRefusesMoreThanItsLimit) {
  ASSERT_OK(WriteStringToFile(env_, P("ten"), "0123456789"));
  EXPECT_THAT(ReadFileToString(env_, P("ten"), 10), IsOkAndHolds("0123456789"));
  EXPECT_THAT(ReadFileToString(env_, P("ten"), 9),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr(P("ten")), HasSubstr("10 bytes"))));
}

TEST_P(EnvContractTest, GetMatchingPathsMatchesAsTensorFlowsGlob) {
  for (const char* name : {"m-00001-of-00002", "m-00000-of-00002", "m-00000-of-00003", ".m-1"}) {
    ASSERT_OK(WriteStringToFile(env_, P(name), "x"));
  }
  EXPECT_THAT(GetMatchingPaths(env_, P("m-?????-of-00002")),
              IsOkAndHolds(ElementsAre(P("m-00000-of-00002"), P("m-00001-of-00002"))));
  EXPECT_THAT(GetMatchingPaths(env_, P("m-0000[0]-of-*")),
              IsOkAndHolds(ElementsAre(P("m-00000-of-00002"), P("m-00000-of-00003"))));
  // As TensorFlow's: `*` matches a leading dot too.
  EXPECT_THAT(GetMatchingPaths(env_, P("*")), IsOkAndHolds(::testing::SizeIs(4)));
  EXPECT_THAT(GetMatchingPaths(env_, P("n-*")), IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(GetMatchingPaths(env_, P("missing/m-*")), IsOkAndHolds(::testing::IsEmpty()));
  // Wildcards in directories: only directories are descended into; a
  // pattern without wildcards names itself if it exists.
  ASSERT_OK(env_->CreateDir(P("d1")));
  ASSERT_OK(env_->CreateDir(P("d2")));
  ASSERT_OK(WriteStringToFile(env_, P("d1/x-1"), "x"));
  ASSERT_OK(WriteStringToFile(env_, P("d2/x-2"), "x"));
  ASSERT_OK(WriteStringToFile(env_, P("d3"), "x"));
  EXPECT_THAT(GetMatchingPaths(env_, P("d?/x-*")),
              IsOkAndHolds(ElementsAre(P("d1/x-1"), P("d2/x-2"))));
  EXPECT_THAT(GetMatchingPaths(env_, P("d[13]/*")), IsOkAndHolds(ElementsAre(P("d1/x-1"))));
  EXPECT_THAT(GetMatchingPaths(env_, P("d1/x-1")), IsOkAndHolds(ElementsAre(P("d1/x-1"))));
  EXPECT_THAT(GetMatchingPaths(env_, P("d1/x-9")), IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(GetMatchingPaths(env_, ""), IsOkAndHolds(::testing::IsEmpty()));
}

INSTANTIATE_TEST_SUITE_P(PosixAndMem, EnvContractTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Posix" : "Mem";
                         });

TEST(PathTest, JoinDirnameBasename) {
  EXPECT_EQ(JoinPath("/a/", "/b"), "/a/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(Dirname("/a/b"), "/a");
  EXPECT_EQ(Dirname("/b"), "/");
  EXPECT_EQ(Dirname("b"), "");
  EXPECT_EQ(Basename("/a/b.index"), "b.index");
  EXPECT_TRUE(IsAbsolutePath("/x"));
  EXPECT_FALSE(IsAbsolutePath("x"));
}

TEST(FakeClockEnvTest, SleepAdvancesTimeAtOnce) {
  MemEnv mem;
  FakeClockEnv env(&mem, 1000);
  EXPECT_EQ(env.NowMicros(), 1000u);
  env.SleepForMicroseconds(30'000'000);
  EXPECT_EQ(env.NowMicros(), 30'001'000u);
  env.AdvanceMicros(5);
  EXPECT_EQ(env.NowMicros(), 30'001'005u);
  EXPECT_EQ(env.sleeps(), 1);
  EXPECT_EQ(env.slept_micros(), 30'000'000);
}

TEST(FakeClockEnvTest, SleepUnlessNotifiedAdvancesTimeUntilNotified) {
  MemEnv mem;
  FakeClockEnv env(&mem, 0);
  absl::Notification n;
  EXPECT_FALSE(env.SleepUnlessNotified(n, 10));
  EXPECT_EQ(env.NowMicros(), 10u);
  n.Notify();
  EXPECT_TRUE(env.SleepUnlessNotified(n, 10));
  EXPECT_EQ(env.NowMicros(), 10u);
  EXPECT_EQ(env.sleeps(), 1);
}

// The real clock's wait ends when another thread notifies, long before the
// hour is up.
TEST(EnvTest, SleepUnlessNotifiedWakesOnNotify) {
  absl::Notification n;
  std::thread notifier([&n] { n.Notify(); });
  EXPECT_TRUE(Env::Default()->SleepUnlessNotified(n, int64_t{3600} * 1'000'000));
  notifier.join();
}

class FaultInjectionEnvTest : public ::testing::Test {
 protected:
  FaultInjectionEnvTest() : env_(&mem_) {}
  MemEnv mem_;
  FaultInjectionEnv env_;
};

TEST_F(FaultInjectionEnvTest, DropUnsyncedDataLosesExactlyTheUnsyncedTail) {
  ASSERT_OK(env_.CreateDir("/d"));
  ASSERT_OK_AND_ASSIGN(auto f, env_.NewWritableFile("/d/f"));
  ASSERT_OK(f->Append("synced-"));
  ASSERT_OK(f->Sync());
  ASSERT_OK(f->Append("lost"));
  ASSERT_OK_AND_ASSIGN(auto g, env_.NewWritableFile("/d/g"));
  ASSERT_OK(g->Append("never synced"));
  env_.DropUnsyncedData();
  EXPECT_THAT(ReadFileToString(&env_, "/d/f"), IsOkAndHolds(std::string("synced-")));
  EXPECT_THAT(ReadFileToString(&env_, "/d/g"), IsOkAndHolds(std::string("")));
}

TEST_F(FaultInjectionEnvTest, CrashForgetsNamesWhoseDirectoryWasNotSynced) {
  ASSERT_OK(env_.CreateDir("/d"));
  ASSERT_OK(WriteStringToFile(&env_, "/d/kept", "v1", /*sync=*/true));
  ASSERT_OK(env_.SyncDir("/d"));
  ASSERT_OK(WriteStringToFile(&env_, "/d/new.tmp", "v2", /*sync=*/true));
  ASSERT_OK(env_.RenameFile("/d/new.tmp", "/d/kept"));
  // Not yet durable: after a crash the old file is back and the new is gone.
  env_.SimulateCrash();
  EXPECT_THAT(ReadFileToString(&env_, "/d/kept"), IsOkAndHolds(std::string("v1")));
  EXPECT_THAT(env_.FileExists("/d/new.tmp"), StatusIs(absl::StatusCode::kNotFound));

  ASSERT_OK(WriteStringToFile(&env_, "/d/new.tmp", "v3", /*sync=*/true));
  ASSERT_OK(env_.RenameFile("/d/new.tmp", "/d/kept"));
  ASSERT_OK(env_.SyncDir("/d"));
  env_.SimulateCrash();
  EXPECT_THAT(ReadFileToString(&env_, "/d/kept"), IsOkAndHolds(std::string("v3")));
  EXPECT_THAT(env_.GetChildren("/d"), IsOkAndHolds(ElementsAre("kept")));
}

TEST_F(FaultInjectionEnvTest, FailAfterStopsEveryLaterOperation) {
  env_.FailAfter(2);  // create, append succeed; sync and later fail
  ASSERT_OK_AND_ASSIGN(auto f, env_.NewWritableFile("/f"));
  ASSERT_OK(f->Append("x"));
  EXPECT_THAT(f->Sync(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("injected")));
  EXPECT_THAT(env_.RenameFile("/f", "/g"), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_OK(env_.FileExists("/f"));
  EXPECT_EQ(env_.mutating_ops(), 4);
  env_.ClearFaults();
  EXPECT_OK(env_.RenameFile("/f", "/g"));
}

TEST_F(FaultInjectionEnvTest, FailOnceFailsOnlyTheChosenOperation) {
  env_.FailOnce(FaultInjectionEnv::Op::kRename, 1);
  ASSERT_OK(WriteStringToFile(&env_, "/a", "1"));
  ASSERT_OK(WriteStringToFile(&env_, "/b", "2"));
  EXPECT_OK(env_.RenameFile("/a", "/a2"));
  EXPECT_THAT(env_.RenameFile("/b", "/b2"), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_OK(env_.RenameFile("/b", "/b3"));
}

}  // namespace
// A directory watch wakes a waiter when a file appears (an hour's wait:
// the test would time out otherwise) and times out when nothing changes.
TEST(EnvTest, DirectoryWatchWakesOnANewFile) {
  Env* env = Env::Default();
  const std::string dir = TestTempPath("watched");
  ASSERT_OK(env->CreateDir(dir));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<DirectoryWatch> watch, env->WatchDirectory(dir));
  EXPECT_FALSE(watch->Wait(1000));  // nothing yet
  std::thread writer([&] { ASSERT_OK(WriteStringToFile(env, JoinPath(dir, "checkpoint"), "x")); });
  EXPECT_TRUE(watch->Wait(int64_t{3600} * 1'000'000));
  writer.join();
  EXPECT_THAT(env->WatchDirectory(JoinPath(dir, "missing")).status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("missing")));
  FakeClockEnv fake(env);
  EXPECT_THAT(fake.WatchDirectory(dir).status(), StatusIs(absl::StatusCode::kUnimplemented));
  MemEnv mem;
  EXPECT_THAT(mem.WatchDirectory("/").status(), StatusIs(absl::StatusCode::kUnimplemented));
}

// A mapped file reads as the file, outlives its deletion, and a read past
// the end of a file truncated since it was mapped fails instead of killing
// the process; the process's own later bus errors still go where they did.
TEST(EnvTest, MappedFileOutlivesDeletionAndItsTruncationIsCaught) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  Env* env = Env::Default();
  const std::string path = TestTempPath("mapped");
  std::string bytes(3 * 4096 + 5, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  ASSERT_OK(WriteStringToFile(env, path, bytes));

  // Mapped while the file is open for writing: no lease can be had, so
  // nothing guards the mapping.
  const int writer = open(path.c_str(), O_WRONLY);
  ASSERT_GE(writer, 0);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MappedFile> map, env->MapFile(path));
  close(writer);
  EXPECT_FALSE(map->guarded());
  ASSERT_EQ(map->size(), bytes.size());
  EXPECT_EQ(std::string(map->data(), map->size()), bytes);

  // Truncated in place to one page: the first page reads, the last fails.
  ASSERT_EQ(truncate(path.c_str(), 4096), 0);
  std::string copy(bytes.size(), '\0');
  EXPECT_TRUE(RunCatchingBusErrors([&] { std::memcpy(&copy[0], map->data(), 4096); }));
  EXPECT_EQ(copy.substr(0, 4096), bytes.substr(0, 4096));
  bool finished = false;
  EXPECT_FALSE(RunCatchingBusErrors([&] {
    std::memcpy(&copy[0], map->data(), map->size());
    finished = true;
  }));
  EXPECT_FALSE(finished);
  // Nested: the inner call catches its own; the outer one goes on.
  EXPECT_TRUE(RunCatchingBusErrors([&] {
    EXPECT_FALSE(RunCatchingBusErrors([&] { copy[0] = map->data()[2 * 4096]; }));
  }));

  // Deleted: a mapping of the whole file still reads it.
  ASSERT_OK(WriteStringToFile(env, path, bytes));
  ASSERT_OK_AND_ASSIGN(map, env->MapFile(path));
  ASSERT_OK(env->DeleteFile(path));
  EXPECT_EQ(std::string(map->data(), map->size()), bytes);

  EXPECT_THAT(env->MapFile(path).status(), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(WriteStringToFile(env, path, ""));
  ASSERT_OK_AND_ASSIGN(map, env->MapFile(path));
  EXPECT_EQ(map->size(), 0u);
  MemEnv mem;
  EXPECT_THAT(mem.MapFile("/x").status(), StatusIs(absl::StatusCode::kUnimplemented));
  FakeClockEnv fake(env);
  EXPECT_OK(fake.MapFile(path).status());
}

TEST(EnvTest, ThreadSanitizerBuildsDoNotMapFiles) {
  if (kCanCatchBusErrors) GTEST_SKIP() << "this build maps files";
  const std::string path = TestTempPath("not_mapped");
  ASSERT_OK(WriteStringToFile(Env::Default(), path, "x"));
  EXPECT_THAT(Env::Default()->MapFile(path).status(),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr(path)));
}

// A guarded mapping (a lease) keeps its bytes when another process
// truncates the file: that process waits while the pages are copied, then
// goes on; the mapping reads as the file was, and writes to it stay
// private.
TEST(EnvTest, GuardedMappingKeepsItsBytesWhenAnotherProcessTruncatesTheFile) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  Env* env = Env::Default();
  const std::string path = TestTempPath("guarded");
  std::string bytes(5 * 4096 + 7, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13);
  ASSERT_OK(WriteStringToFile(env, path, bytes));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MappedFile> map, env->MapFile(path));
  ASSERT_TRUE(map->guarded()) << "the kernel refused a read lease on " << path;
  map->mutable_data()[1] = 'x';  // a private page
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(truncate(path.c_str(), 0) == 0 ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the truncation failed";
  EXPECT_THAT(env->GetFileSize(path), IsOkAndHolds(0u));
  std::string expected = bytes;
  expected[1] = 'x';
  EXPECT_EQ(std::string(map->data(), map->size()), expected);
  ASSERT_OK_AND_ASSIGN(std::string on_disk, ReadFileToString(env, path));
  EXPECT_EQ(on_disk, "");
}

// Writes to a guarded mapping while another process truncates the file are
// all kept: each waits while the pages are swapped for their copy.
TEST(EnvTest, GuardedMappingKeepsEveryWriteMadeWhileItIsCopied) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  Env* env = Env::Default();
  const std::string path = TestTempPath("guarded_writes");
  const size_t slots = size_t{4} << 20;  // 32 MiB of int64 slots
  ASSERT_OK(WriteStringToFile(env, path, std::string(slots * 8, '\0')));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MappedFile> map, env->MapFile(path));
  ASSERT_TRUE(map->guarded());
  std::atomic<bool> started{false};
  std::thread writer([&] {
    for (size_t i = 0; i < slots; ++i) {
      const int64_t v = static_cast<int64_t>(i) + 1;
      std::memcpy(map->mutable_data() + i * 8, &v, 8);
      if (i == slots / 8) started.store(true);
    }
  });
  while (!started.load()) std::this_thread::yield();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(truncate(path.c_str(), 0) == 0 ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  writer.join();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  size_t lost = 0;
  for (size_t i = 0; i < slots; ++i) {
    int64_t v;
    std::memcpy(&v, map->data() + i * 8, 8);
    lost += v != static_cast<int64_t>(i) + 1;
  }
  EXPECT_EQ(lost, 0u);
}

// Files minigraph writes are never written through a symbolic link: each
// way of writing refuses one planted at the name, dangling or not, and the
// file it names is left as it was.
TEST(EnvTest, WritesDoNotFollowASymbolicLink) {
  Env* env = Env::Default();
  const std::string dir = TestTempPath("symlinks");
  ASSERT_OK(DeleteRecursively(env, dir));
  ASSERT_OK(env->CreateDir(dir));
  const std::string victim = JoinPath(dir, "victim");
  ASSERT_OK(WriteStringToFile(env, victim, "precious"));
  const std::string link = JoinPath(dir, "link");
  const std::string dangling = JoinPath(dir, "dangling");
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  ASSERT_EQ(symlink(JoinPath(dir, "made").c_str(), dangling.c_str()), 0);
  for (const std::string& path : {link, dangling}) {
    EXPECT_THAT(env->NewWritableFile(path),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(path), HasSubstr("symbolic link"))));
    EXPECT_THAT(env->NewAppendableFile(path),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(path)));
    EXPECT_THAT(WriteStringToFile(env, path, "overwritten"),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(path)));
  }
  EXPECT_THAT(ReadFileToString(env, victim), IsOkAndHolds("precious"));
  EXPECT_THAT(env->FileExists(JoinPath(dir, "made")), StatusIs(absl::StatusCode::kNotFound));
  // Reading through a link is as before.
  EXPECT_THAT(ReadFileToString(env, link), IsOkAndHolds("precious"));
}

// Only regular files are opened: a FIFO would block the open for ever, a
// directory or device has no size to read.
TEST(EnvTest, SpecialFilesAreRefusedAtOnceNamingWhatTheyAre) {
  Env* env = Env::Default();
  const std::string dir = TestTempPath("special");
  ASSERT_OK(DeleteRecursively(env, dir));
  ASSERT_OK(env->CreateDir(dir));
  const std::string fifo = JoinPath(dir, "fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  for (const auto& [path, kind] : std::vector<std::pair<std::string, std::string>>{
           {fifo, "a FIFO"}, {dir, "a directory"}, {"/dev/zero", "a character device"}}) {
    SCOPED_TRACE(path);
    EXPECT_THAT(env->NewSequentialFile(path),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr(path), HasSubstr(kind))));
    EXPECT_THAT(env->NewRandomAccessFile(path),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kind)));
    EXPECT_THAT(ReadFileToString(env, path),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kind)));
    if (kCanCatchBusErrors) {
      EXPECT_THAT(env->MapFile(path),
                  StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kind)));
    }
  }
  // Nor written: the FIFO has no reader, a device is no file.
  EXPECT_FALSE(env->NewWritableFile(fifo).ok());
  EXPECT_THAT(env->NewAppendableFile("/dev/null"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("a character device")));
  // A lock on a FIFO does not wait for a writer either.
  EXPECT_OK(env->TryLockFile(fifo).status());
}

// A lock says when its file was deleted or replaced: it then excludes
// nobody, since a second holder opens and locks whatever the name is now.
TEST(EnvTest, FileLockCheckFailsOnceItsFileIsDeletedOrReplaced) {
  Env* env = Env::Default();
  const std::string path = TestTempPath("checked_lock");
  ASSERT_OK(WriteStringToFile(env, path, ""));
  ASSERT_OK_AND_ASSIGN(auto lock, env->TryLockFile(path));
  EXPECT_OK(lock->Check());
  ASSERT_OK(env->DeleteFile(path));
  EXPECT_THAT(lock->Check(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      AllOf(HasSubstr(path), HasSubstr("deleted"))));
  ASSERT_OK(WriteStringToFile(env, path, ""));
  EXPECT_THAT(lock->Check(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                      AllOf(HasSubstr(path), HasSubstr("replaced"))));
  ASSERT_OK_AND_ASSIGN(auto second, env->TryLockFile(path));
  EXPECT_OK(second->Check());
  // The in-memory Env locks names, which deletion does not free.
  MemEnv mem;
  ASSERT_OK(WriteStringToFile(&mem, "/l", ""));
  ASSERT_OK_AND_ASSIGN(auto named, mem.TryLockFile("/l"));
  ASSERT_OK(mem.DeleteFile("/l"));
  EXPECT_OK(named->Check());
}

// A bus error outside RunCatchingBusErrors still kills the process.
TEST(EnvDeathTest, BusErrorOutsideTheGuardIsFatal) {
  if (!kCanCatchBusErrors) GTEST_SKIP() << "files are not mapped in this build (TSan)";
  EXPECT_TRUE(RunCatchingBusErrors([] {}));  // the handler is installed
  Env* env = Env::Default();
  const std::string path = TestTempPath("mapped_fatal");
  ASSERT_OK(WriteStringToFile(env, path, std::string(8192, 'x')));
  const int writer = open(path.c_str(), O_WRONLY);  // no lease, no guard
  ASSERT_GE(writer, 0);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MappedFile> map, env->MapFile(path));
  close(writer);
  ASSERT_FALSE(map->guarded());
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  EXPECT_DEATH(
      {
        volatile char c = map->data()[4096];
        (void)c;
      },
      "");
}

}  // namespace minigraph
