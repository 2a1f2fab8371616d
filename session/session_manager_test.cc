// SessionManager against TensorFlow's session_manager_test.py, plus
// local:// targets. One naming scheme: a test TensorFlow has is named
// T<n>_<its name without "test"> (T1-T22 SessionManagerTest's tests in
// order, T23-T28 ObsoleteSessionManagerTest's, "Obsolete" added); one of
// the supplementary cases TensorFlow's tests leave out (X1-X9: the ready
// message's order, errors that propagate, the checkpoint wait's clock, ...)
// X<n>_<what it shows>; any other, what it shows. All waiting runs on a
// fake clock.
#include "session/session_manager.h"

#include <cstdlib>
#include <random>
#include <thread>

#include "absl/strings/escaping.h"

#include "checkpoint/proto/tensor_bundle.pb.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/cc/variables.h"
#include "session/targets.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "core/path.h"
#include "tests/testing/shared_testdata.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class SessionManagerTest : public ::testing::Test {
 protected:
  SessionManagerTest() { SetMinLogLevel(LogLevel::kError); }

  SessionManager::Options Opts() {
    SessionManager::Options o;
    o.env = &env_;
    return o;
  }
  SessionManager::PrepareOptions Prep() {
    SessionManager::PrepareOptions p;
    p.config.env = &env_;
    return p;
  }
  std::unique_ptr<SessionManager> Make(const Scope& root, SessionManager::Options o) {
    auto sm = SessionManager::Create(*root.ToGraphDef(), std::move(o));
    EXPECT_OK(sm.status());
    return *std::move(sm);
  }
  static std::string Value(Session* s, const std::string& name) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {name}, {}, &out);
    return st.ok() ? out[0].SummarizeValue(10) : std::string(st.message());
  }
  static bool IsInit(Session* s, const std::string& var) {
    return Value(s, var + "/read").find("uninitialized") == std::string::npos;
  }

  // The two ready ops of the catalogue: report_uninitialized_variables()
  // (SessionManagerTest) and assert_variables_initialized()
  // (ObsoleteSessionManagerTest, T23-T28).
  using ReadyOp = std::vector<std::string> (*)(const Scope&);
  static std::vector<std::string> ReportReady(const Scope& root) {
    return {ReportUninitializedVariables(root).tensor_name()};
  }
  static std::vector<std::string> AssertReady(const Scope& root) {
    return {AssertVariablesInitialized(root, GlobalVariables(root)).tensor_name()};
  }

  // Bodies shared by a test and its Obsolete twin.
  void TestPrepareSessionSucceeds(ReadyOp ready) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
  SessionManager::Options o = Opts();
  o.ready_op = ready(root);
  Operation init = GlobalVariablesInitializer(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {init.name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1 2 3");
}

  void TestPrepareSessionSucceedsWithInitFeedDict(ReadyOp ready) {
  Scope root = Scope::NewRootScope();
  Output p_in = ops::Placeholder(root.WithOpName("p"), DT_FLOAT, PartialShape({3}));
  Variable::Create(root, "v", p_in);
  SessionManager::Options o = Opts();
  o.ready_op = ready(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {"v/Assign"};
  p.init_feed_dict = {{"p:0", Tensor::Vector<float>({1, 2, 3})}};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1 2 3");
}

  void TestPrepareSessionSucceedsWithInitFn(ReadyOp ready) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Vector<int32_t>({125}));
  SessionManager::Options o = Opts();
  o.ready_op = ready(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  Session* seen = nullptr;
  p.init_fn = [&](Session* s) {
    seen = s;
    std::vector<Tensor> out;
    return s->Run({}, {}, {v.initializer().name()}, &out);
  };
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(seen, sess.get());
  EXPECT_EQ(Value(sess.get(), "v/read"), "125");
}

  void TestPrepareSessionFails(ReadyOp ready) {
  ASSERT_OK(env_.CreateDir("/tmp/prepare_session"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
  SessionManager::Options o = Opts();
  o.ready_op = ready(root);
  Operation init = GlobalVariablesInitializer(root);
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {init.name()};
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/prepare_session";
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1 2 3");
  ASSERT_OK(saver->Save(sess.get(), "/tmp/prepare_session/prepare_session_checkpoint").status());
  // Move the checkpoint away: waiting 2 s with the default 30 s recovery
  // wait sleeps exactly once, then gives up with nothing to initialize.
  ASSERT_OK(env_.RenameFile("/tmp/prepare_session/checkpoint", "/tmp/moved_checkpoint"));
  SessionManager::PrepareOptions wait = Prep();
  wait.saver = saver.get();
  wait.checkpoint_dir = "/tmp/prepare_session";
  wait.wait_for_checkpoint = true;
  wait.max_wait = absl::Seconds(2);
  const int64_t sleeps = clock_.sleeps();
  EXPECT_THAT(sm->PrepareSession("", wait),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no init_op or init_fn or local_init_op was given")));
  EXPECT_EQ(clock_.sleeps() - sleeps, 1);
  EXPECT_EQ(clock_.slept_micros(), 30'000'000);
  ASSERT_OK(env_.RenameFile("/tmp/moved_checkpoint", "/tmp/prepare_session/checkpoint"));
  ASSERT_OK_AND_ASSIGN(sess, sm->PrepareSession("", wait));
  EXPECT_TRUE(IsInit(sess.get(), "v"));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1 2 3");
}

  void TestWaitForSessionReturnsNoneAfterTimeout(ReadyOp ready) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  SessionManager::Options o = Opts();
  o.ready_op = ready(root);
  o.recovery_wait = absl::Seconds(1);
  auto sm = Make(root, o);
  const uint64_t start = clock_.NowMicros();
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(3)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("Session was not ready after waiting 3 secs.")));
  // Attempts take no time on the fake clock, so they run at t = 0, 1, 2 and
  // 3 s (the spec's "a 4th is possible with very fast attempts"); after the
  // fourth, less than one recovery wait remains.
  EXPECT_EQ(clock_.NowMicros() - start, 3'000'000u);
  EXPECT_EQ(clock_.sleeps(), 3);
}

  FakeClockEnv clock_{Env::Default()};
  MemEnv env_{&clock_};
};

// T1: ready_for_local_init_op without local_init_op is InvalidArgument.
TEST_F(SessionManagerTest, T1_InitWithNoneLocalInitOpError) {
  Scope root = Scope::NewRootScope();
  Output r = ReportUninitializedVariables(root, GlobalVariables(root));
  SessionManager::Options o = Opts();
  o.ready_for_local_init_op = {r.tensor_name()};
  EXPECT_THAT(SessionManager::Create(*root.ToGraphDef(), o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       StartsWith("If you pass a ready_for_local_init_op you must also pass a "
                                  "local_init_op , ready_for_local_init_op [")));
}

// T2: init_op initializes the model and PrepareSession returns it ready.
TEST_F(SessionManagerTest, T2_PrepareSessionSucceeds) {
  TestPrepareSessionSucceeds(&SessionManagerTest::ReportReady);
}

// T3: init_feed_dict is fed to the init_op run.
TEST_F(SessionManagerTest, T3_PrepareSessionSucceedsWithInitFeedDict) {
  TestPrepareSessionSucceedsWithInitFeedDict(&SessionManagerTest::ReportReady);
}

// T6: no checkpoint after waiting and no init op is FailedPrecondition; the
// checkpoint restored later makes the model ready.
TEST_F(SessionManagerTest, T6_PrepareSessionFails) {
  TestPrepareSessionFails(&SessionManagerTest::ReportReady);
}

// T14: RecoverSession restores from a directory or a prefix (not both), and
// reports initialized = false when there is nothing to restore.
TEST_F(SessionManagerTest, T14_RecoverSession) {
  ASSERT_OK(env_.CreateDir("/tmp/recover_session"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/recover_session";
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", p));
  EXPECT_FALSE(r.initialized);
  std::vector<Tensor> out;
  ASSERT_OK(r.session->Run({}, {}, {"v/Assign"}, &out));
  ASSERT_OK(
      saver->Save(r.session.get(), "/tmp/recover_session/recover_session_checkpoint").status());
  ASSERT_OK_AND_ASSIGN(r, sm->RecoverSession("", p));
  EXPECT_TRUE(r.initialized);
  EXPECT_EQ(Value(r.session.get(), "v/read"), "1");
  SessionManager::PrepareOptions both = p;
  both.checkpoint_filename_with_path = "/tmp/recover_session/recover_session_checkpoint";
  EXPECT_THAT(sm->RecoverSession("", both),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Can not provide both checkpoint_dir and "
                                 "checkpoint_filename_with_path.")));
  SessionManager::PrepareOptions by_file = Prep();
  by_file.saver = saver.get();
  by_file.checkpoint_filename_with_path = "/tmp/recover_session/recover_session_checkpoint";
  ASSERT_OK_AND_ASSIGN(r, sm->RecoverSession("", by_file));
  EXPECT_TRUE(r.initialized);
}

// T19: a model never made ready ends WaitForSession with DeadlineExceeded.
TEST_F(SessionManagerTest, T19_WaitForSessionReturnsNoneAfterTimeout) {
  TestWaitForSessionReturnsNoneAfterTimeout(&SessionManagerTest::ReportReady);
}

// T20: on a shared target, WaitForSession runs local_init_op itself once
// the chief has initialized the globals, and returns without sleeping.
TEST_F(SessionManagerTest, T20_WaitForSessionLocalInit) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("wait_for_session_local_init"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  Variable w = Variable::Create(root, "w", v.InitializedValue(root),
                                {.trainable = false, .collections = {kLocalVariables}});
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.ready_for_local_init_op = {
      ReportUninitializedVariables(root, GlobalVariables(root)).tensor_name()};
  o.local_init_op = {w.initializer().name()};
  auto sm = Make(root, o);
  SessionOptions so;
  so.target = server->target();
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(so));
  ASSERT_OK(s->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
  ASSERT_OK_AND_ASSIGN(auto sess, sm->WaitForSession(server->target(), {}, absl::Seconds(3)));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1");
  EXPECT_EQ(Value(sess.get(), "w/read"), "1");
  EXPECT_EQ(clock_.sleeps(), 0);
}

TEST_F(SessionManagerTest, ManyWaitersSeeTheChiefsInitializationOnALocalTarget) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("chief_and_waiters"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
  Operation init = GlobalVariablesInitializer(root);
  SessionManager::Options o;  // real clock: waiters poll until the chief is done
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Milliseconds(1);
  auto sm = Make(root, o);
  std::vector<std::string> seen(16);
  std::vector<std::thread> waiters;
  for (int i = 0; i < 16; ++i) {
    waiters.emplace_back([&, i] {
      auto s = sm->WaitForSession(server->target(), {}, absl::Seconds(60));
      seen[i] = s.ok() ? Value(s->get(), "v/read") : std::string(s.status().message());
    });
  }
  SessionManager::PrepareOptions p;
  p.init_op = {init.name()};
  ASSERT_OK_AND_ASSIGN(auto chief, sm->PrepareSession(server->target(), p));
  for (auto& t : waiters) t.join();
  for (const std::string& s : seen) EXPECT_EQ(s, "1 2 3");
}


// Beyond TensorFlow (Options::wake_on_state_change): a waiter asleep for an
// hour's recovery_wait wakes when the chief initializes the model on the
// local:// target; the test would time out if it slept the hour.
TEST_F(SessionManagerTest, WaiterWakesWhenTheChiefInitializesTheLocalModel) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("waiter_wakes"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Vector<float>({1, 2, 3}));
  Operation init = GlobalVariablesInitializer(root);
  SleepSignalEnv env(Env::Default());
  SessionManager::Options o;
  o.env = &env;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Hours(1);
  auto sm = Make(root, o);
  absl::StatusOr<std::unique_ptr<Session>> worker;
  std::thread waiter([&] { worker = sm->WaitForSession(server->target(), {}, absl::Hours(3)); });
  env.WaitForSleeps(1);  // the worker found the model not ready
  SessionManager::PrepareOptions p;
  p.init_op = {init.name()};
  p.config.env = &env;
  ASSERT_OK_AND_ASSIGN(auto chief, sm->PrepareSession(server->target(), p));
  waiter.join();
  ASSERT_OK(worker.status());
  EXPECT_EQ(Value(worker->get(), "v/read"), "1 2 3");
}

// A cancellation still ends the wait while the waiter sleeps on the watch.
TEST_F(SessionManagerTest, CancellationEndsAWaitOnTheWatch) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("waiter_cancelled"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(1));
  SleepSignalEnv env(Env::Default());
  SessionManager::Options o;
  o.env = &env;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Hours(1);
  auto sm = Make(root, o);
  absl::Notification cancel;
  absl::StatusOr<std::unique_ptr<Session>> worker;
  std::thread waiter(
      [&] { worker = sm->WaitForSession(server->target(), {}, std::nullopt, &cancel); });
  env.WaitForSleeps(1);
  cancel.Notify();
  waiter.join();
  EXPECT_THAT(worker.status(), StatusIs(absl::StatusCode::kCancelled));
}

// With the option off, the waiter polls as TensorFlow does: every attempt
// sleeps the full recovery_wait on the (fake) clock.
TEST_F(SessionManagerTest, WithoutTheWatchTheWaiterSleepsTheFullInterval) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("waiter_polls"));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(1));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.wake_on_state_change = false;
  auto sm = Make(root, o);
  EXPECT_THAT(sm->WaitForSession(server->target(), {}, absl::Seconds(95)),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_EQ(clock_.sleeps(), 3);
  EXPECT_EQ(clock_.slept_micros(), 90'000'000);
}

// Graph "GL" of the catalogue: v = 1 (global), w = v's value (local, through
// the initialized_value guard).
struct GL {
  explicit GL(int v_init = 1) {
    v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(v_init));
    w = Variable::Create(root, "w", v.InitializedValue(root),
                         {.trainable = false, .collections = {kLocalVariables}});
  }
  Scope root = Scope::NewRootScope();
  Variable v, w;
};

// T4: init_fn alone initializes the model, called with the new session.
TEST_F(SessionManagerTest, T4_PrepareSessionSucceedsWithInitFn) {
  TestPrepareSessionSucceedsWithInitFn(&SessionManagerTest::ReportReady);
}

// T5: local_init_op alone is enough, run with local_init_feed_dict.
TEST_F(SessionManagerTest, T5_PrepareSessionSucceedsWithLocalInitFeedDict) {
  Scope root = Scope::NewRootScope();
  Output p_in = ops::Placeholder(root.WithOpName("p"), DT_FLOAT, PartialShape({3}));
  Variable v = Variable::Create(root, "v", p_in, {.collections = {kLocalVariables}});
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.local_init_op = {v.initializer().name()};
  o.local_init_feed_dict = {{"p:0", Tensor::Vector<float>({1, 2, 3})}};
  auto sm = Make(root, o);
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", Prep()));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1 2 3");
}

// T7: init_op, then a list local_init_op once ready_for_local_init_op passes.
TEST_F(SessionManagerTest, T7_PrepareSessionWithReadyForLocalInitOp) {
  GL g;
  Variable x = Variable::Create(g.root, "x",
                                ops::Mul(g.root, ops::Const<int32_t>(g.root, 3),
                                         g.v.InitializedValue(g.root)),
                                {.trainable = false, .collections = {kLocalVariables}});
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {
      ReportUninitializedVariables(g.root, GlobalVariables(g.root)).tensor_name()};
  o.local_init_op = {g.w.initializer().name(), x.initializer().name()};
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {g.v.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1");
  EXPECT_EQ(Value(sess.get(), "w/read"), "1");
  EXPECT_EQ(Value(sess.get(), "x/read"), "3");
}

// T8: local_init_op alone; locals take their globals' initial values
// through the initializer guard while the globals stay uninitialized.
TEST_F(SessionManagerTest, T8_PrepareSessionWithPartialInitOp) {
  // v = 1, w = v (local), x = 3 * v (local), and the same again as v_res,
  // w_res, x_res. The spec turns resource variables off for its suite, so
  // there all six are ref variables; here the _res ones are resource
  // variables (VarHandleOp, VarIsInitializedOp in the guard), the half of
  // the test TensorFlow runs with resource variables on.
  Scope root = Scope::NewRootScope();
  std::vector<std::string> local_init;
  for (const bool res : {false, true}) {
    const std::string suffix = res ? "_res" : "";
    const VariableOptions global = {.use_resource = res};
    const VariableOptions local = {
        .trainable = false, .collections = {kLocalVariables}, .use_resource = res};
    Variable v = Variable::Create(root, "v" + suffix, Tensor::Scalar<int32_t>(1), global);
    Variable w = Variable::Create(root, "w" + suffix, v.InitializedValue(root), local);
    Variable x = Variable::Create(
        root, "x" + suffix,
        ops::Mul(root, ops::Const<int32_t>(root, 3), v.InitializedValue(root)), local);
    local_init.push_back(w.initializer().name());
    local_init.push_back(x.initializer().name());
  }
  SessionManager::Options o = Opts();
  o.local_init_op = local_init;
  auto sm = Make(root, o);
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", Prep()));
  EXPECT_FALSE(IsInit(sess.get(), "v"));
  EXPECT_TRUE(IsInit(sess.get(), "w"));
  EXPECT_TRUE(IsInit(sess.get(), "x"));
  EXPECT_EQ(Value(sess.get(), "w/read"), "1");
  EXPECT_EQ(Value(sess.get(), "x/read"), "3");
  EXPECT_THAT(Value(sess.get(), "v_res/Read/ReadVariableOp"),
              HasSubstr("Could not find variable v_res"));
  EXPECT_EQ(Value(sess.get(), "w_res/Read/ReadVariableOp"), "1");
  EXPECT_EQ(Value(sess.get(), "x_res/Read/ReadVariableOp"), "3");
}

// T9: an init_op that contains a while loop initializes the model.
TEST_F(SessionManagerTest, T9_PrepareSessionWithCyclicInitializer) {
  // i = while_loop(lambda i: i < 1, lambda i: i + 1, [0]); v = Variable(identity(i))
  Scope root = Scope::NewRootScope();
  std::vector<Output> i = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& x) {
        return ops::Less(c, x[0], ops::Const<int32_t>(c, 1));
      },
      [](const Scope& b, const std::vector<Output>& x) -> std::vector<Output> {
        return {ops::Add(b, x[0], ops::Const<int32_t>(b, 1))};
      });
  ASSERT_OK(root.status());
  Variable v = Variable::Create(root, "v", ops::Identity(root, i[0]));
  SessionManager::Options o = Opts();
  o.ready_op = ReportReady(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {v.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1");
  EXPECT_TRUE(IsInit(sess.get(), "v"));
}

// T10: a local variable left uninitialized fails with TensorFlow's full
// "Init operations did not make model ready" message.
TEST_F(SessionManagerTest, T10_PrepareSessionDidNotInitLocalVariable) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {g.v.initializer().name()};
  EXPECT_THAT(
      sm->PrepareSession("", p),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               ::testing::Eq("Init operations did not make model ready.  Init op: v/Assign, "
                             "init fn: None, local_init_op: None, error: Variables not "
                             "initialized: w")));
}

// T11: the same with a list init_op, named as Python names a list.
TEST_F(SessionManagerTest, T11_PrepareSessionDidNotInitLocalVariableList) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {g.v.initializer().name(), "init_noop"};
  ops::NoOp(g.root.WithOpName("init_noop"));
  sm = Make(g.root, o);
  EXPECT_THAT(sm->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Init op: <no name for <class 'list'>>")));
}

// T12: ready_for_local_init_op not satisfied: local init does not run and
// PrepareSession fails "... not ready for local_init".
TEST_F(SessionManagerTest, T12_PrepareSessionWithReadyNotReadyForLocal) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {
      ReportUninitializedVariables(g.root, GlobalVariables(g.root)).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  auto sm = Make(g.root, o);
  EXPECT_THAT(sm->PrepareSession("", Prep()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::Eq("Init operations did not make model ready for local_init.  "
                                   "Init op: None, init fn: None, error: Variables not "
                                   "initialized: v")));
}

// T13: without ready_for_local_init_op, local init runs and ready_op still
// reports the uninitialized global.
TEST_F(SessionManagerTest, T13_PrepareSessionWithInsufficientReadyForLocalInitCheck) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  auto sm = Make(g.root, o);
  EXPECT_THAT(sm->PrepareSession("", Prep()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(StartsWith("Init operations did not make model ready"),
                                      HasSubstr("error: Variables not initialized: v"))));
}

// T15/T16: save v = 1 into `dir` from a first graph.
void SaveV1(Env* env, const std::string& dir, SessionManagerTest* t) {
  ASSERT_OK(env->CreateDir(dir));
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, env));
  SessionOptions so;
  so.env = env;
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(so));
  ASSERT_OK(s->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
  ASSERT_OK(saver->Save(s.get(), dir + "/recover_session_checkpoint").status());
}

// T15: after a restore, local_init_op copies the restored value.
TEST_F(SessionManagerTest, T15_RecoverSessionWithReadyForLocalInitOp) {
  SaveV1(&env_, "/tmp/recover_session_ready_for_local_init", this);
  GL g(2);
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {
      ReportUninitializedVariables(g.root, GlobalVariables(g.root)).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(g.root, {.var_list = {g.v}}, &env_));
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/recover_session_ready_for_local_init";
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", p));
  EXPECT_TRUE(r.initialized);
  EXPECT_EQ(Value(r.session.get(), "v/read"), "1");
  EXPECT_EQ(Value(r.session.get(), "w/read"), "1");  // the restored value, not 2
}

// T16: restored, but ready_for_local_init_op fails: initialized = false,
// no error, locals untouched.
TEST_F(SessionManagerTest, T16_RecoverSessionWithReadyForLocalInitOpFailsToReadyLocal) {
  SaveV1(&env_, "/tmp/recover_fails_to_ready_local", this);
  GL g(2);
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(g.root, {.var_list = {g.v}}, &env_));
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/recover_fails_to_ready_local";
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", p));
  EXPECT_FALSE(r.initialized);
  EXPECT_EQ(Value(r.session.get(), "v/read"), "1");
  EXPECT_FALSE(IsInit(r.session.get(), "w"));
}

// T17: nothing to restore, yet local_init_op runs exactly once.
TEST_F(SessionManagerTest, T17_RecoverSessionNoChkptStillRunsLocalInitOp) {
  Scope root = Scope::NewRootScope();
  Variable w = Variable::Create(root, "w", Tensor::Scalar<int32_t>(1),
                                {.trainable = false, .collections = {kLocalVariables}});
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.local_init_op = {w.initializer().name()};
  auto sm = Make(root, o);
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", Prep()));
  EXPECT_FALSE(r.initialized);
  EXPECT_EQ(Value(r.session.get(), "w/read"), "1");
}

// T18: an empty checkpoint directory: local_init_op runs, readiness is not
// checked, no error.
TEST_F(SessionManagerTest, T18_RecoverSessionFailsStillRunsLocalInitOp) {
  ASSERT_OK(env_.CreateDir("/tmp/recover_fails_still_run"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(2));
  Variable w = Variable::Create(root, "w", Tensor::Scalar<int32_t>(1),
                                {.trainable = false, .collections = {kLocalVariables}});
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.local_init_op = {w.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {.var_list = {v}}, &env_));
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/recover_fails_still_run";
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", p));
  EXPECT_FALSE(r.initialized);
  EXPECT_FALSE(IsInit(r.session.get(), "v"));
  EXPECT_EQ(Value(r.session.get(), "w/read"), "1");
}

// T21: max_wait below one recovery_wait ends the wait at once, unslept.
TEST_F(SessionManagerTest, T21_WaitForSessionWithReadyForLocalInitOpFailsToReadyLocal) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  auto sm = Make(g.root, o);
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(3)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("Session was not ready after waiting 3 secs.")));
  EXPECT_EQ(clock_.sleeps(), 0);
}

// T22: local init runs but ready_op fails: DeadlineExceeded at once.
TEST_F(SessionManagerTest, T22_WaitForSessionInsufficientReadyForLocalInitCheck) {
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  auto sm = Make(g.root, o);
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(3)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       StartsWith("Session was not ready after waiting")));
  EXPECT_EQ(clock_.sleeps(), 0);
}

// ObsoleteSessionManagerTest (T23-T28): ready_op = assert_variables_initialized().

// T23: T2 with the assert_variables_initialized() ready op.
TEST_F(SessionManagerTest, T23_ObsoletePrepareSessionSucceeds) {
  TestPrepareSessionSucceeds(&SessionManagerTest::AssertReady);
}

// T24: T3 with the assert_variables_initialized() ready op.
TEST_F(SessionManagerTest, T24_ObsoletePrepareSessionSucceedsWithInitFeedDict) {
  TestPrepareSessionSucceedsWithInitFeedDict(&SessionManagerTest::AssertReady);
}

// T25: T4 with the assert_variables_initialized() ready op.
TEST_F(SessionManagerTest, T25_ObsoletePrepareSessionSucceedsWithInitFn) {
  TestPrepareSessionSucceedsWithInitFn(&SessionManagerTest::AssertReady);
}

// T26: T6 with the assert_variables_initialized() ready op.
TEST_F(SessionManagerTest, T26_ObsoletePrepareSessionFails) {
  TestPrepareSessionFails(&SessionManagerTest::AssertReady);
}

// T27: the old T14 (restore from a directory) with the obsolete ready op.
TEST_F(SessionManagerTest, T27_ObsoleteRecoverSession) {
  SaveV1(&env_, "/tmp/recover_session", this);
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(2));
  SessionManager::Options o = Opts();
  o.ready_op = AssertReady(root);
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/recover_session";
  ASSERT_OK_AND_ASSIGN(auto r, sm->RecoverSession("", p));
  EXPECT_TRUE(r.initialized);
  EXPECT_EQ(Value(r.session.get(), "v/read"), "1");
}

// T28: T19 with the assert_variables_initialized() ready op.
TEST_F(SessionManagerTest, T28_ObsoleteWaitForSessionReturnsNoneAfterTimeout) {
  TestWaitForSessionReturnsNoneAfterTimeout(&SessionManagerTest::AssertReady);
}

// X6: a checkpoint that appears during the wait is picked up.
class WritesCheckpointOnSecondSleep : public FakeClockEnv {
 public:
  using FakeClockEnv::FakeClockEnv;
  std::function<void()> on_second_sleep;
  void SleepForMicroseconds(int64_t micros) override {
    FakeClockEnv::SleepForMicroseconds(micros);
    if (sleeps() == 2 && on_second_sleep) on_second_sleep();
  }
};

TEST(SessionManagerWaitTest, X6_CheckpointAppearingDuringTheWaitIsPickedUp) {
  SetMinLogLevel(LogLevel::kError);
  WritesCheckpointOnSecondSleep clock(Env::Default());
  MemEnv env(&clock);
  ASSERT_OK(env.CreateDir("/ckpt"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(9));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env));
  SessionManager::Options o;
  o.env = &env;
  o.recovery_wait = absl::Seconds(5);
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(*root.ToGraphDef(), o));
  clock.on_second_sleep = [&] {
    SessionOptions so;
    so.env = &env;
    auto s = NewSession(so);
    ASSERT_OK(s.status());
    ASSERT_OK((*s)->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK((*s)->Run({}, {}, {v.initializer().name()}, &out));
    ASSERT_OK(saver->Save(s->get(), "/ckpt/model").status());
  };
  SessionManager::PrepareOptions p;
  p.config.env = &env;
  p.saver = saver.get();
  p.checkpoint_dir = "/ckpt";
  p.wait_for_checkpoint = true;
  p.max_wait = absl::Seconds(60);
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(clock.sleeps(), 2);
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({}, {"v/read"}, {}, &out));
  EXPECT_EQ(*out[0].data<int32_t>(), 9);
}

// Beyond TensorFlow (wake_on_state_change): a restart waiting for its
// checkpoint sleeps on a watch of the directory (an hour's recovery_wait:
// the test would time out if it slept it) and restores as soon as the
// checkpoint is saved.
TEST(SessionManagerWaitTest, WaitForCheckpointWakesWhenTheCheckpointIsSaved) {
  SetMinLogLevel(LogLevel::kError);
  SleepSignalEnv env(Env::Default());
  const std::string dir = TestTempPath("wait_for_checkpoint");
  ASSERT_OK(env.CreateDir(dir));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(9));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env));
  SessionManager::Options o;
  o.env = &env;
  o.recovery_wait = absl::Hours(1);
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(*root.ToGraphDef(), o));
  SessionManager::PrepareOptions p;
  p.config.env = &env;
  p.saver = saver.get();
  p.checkpoint_dir = dir;
  p.wait_for_checkpoint = true;
  p.max_wait = absl::Hours(2);
  absl::StatusOr<std::unique_ptr<Session>> restarted;
  std::thread waiter([&] { restarted = sm->PrepareSession("", p); });
  env.WaitForSleeps(1);  // no checkpoint yet: asleep on the directory
  SessionOptions so;
  so.env = &env;
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(so));
  ASSERT_OK(s->Create(*root.ToGraphDef()));
  ASSERT_OK(s->Run({}, {}, {v.initializer().name()}, nullptr));
  ASSERT_OK(saver->Save(s.get(), JoinPath(dir, "model")).status());
  waiter.join();
  ASSERT_OK(restarted.status());
  std::vector<Tensor> out;
  ASSERT_OK((*restarted)->Run({}, {"v/read"}, {}, &out));
  EXPECT_EQ(*out[0].data<int32_t>(), 9);
}

// X1: "Variables not initialized: a, b" lists names in creation order.
TEST_F(SessionManagerTest, X1_ReadyMessageListsVariablesInCreationOrder) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "a", Tensor::Scalar<float>(1));
  Variable::Create(root, "b", Tensor::Scalar<float>(1));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_fn = [](Session*) { return absl::OkStatus(); };
  EXPECT_THAT(sm->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::EndsWith("error: Variables not initialized: a, b")));
}

// An op of the test's own whose kernel fails the way a lookup table's does
// before its initializer has run: FailedPrecondition without the word
// "uninitialized", which is an error, not a readiness answer.
class TableNotInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext*) const override {
    return absl::FailedPreconditionError("Table not initialized.");
  }
};

void RegisterTableNotInitializedOp() {
  static const bool registered = [] {
    EXPECT_OK(RegisterOp(OpDefBuilder("TableNotInitializedForTest").Output("names: string")));
    RegisterKernel("TableNotInitializedForTest", MakeFactory<TableNotInitializedOp>());
    return true;
  }();
  (void)registered;
}

// X2: a ready op's FailedPrecondition without "uninitialized" is an error
// that every entry point returns unchanged, not a "not ready" answer.
TEST_F(SessionManagerTest, X2_OtherFailedPreconditionsPropagate) {
  RegisterTableNotInitializedOp();
  ASSERT_OK(env_.CreateDir("/tmp/x2"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  root.WithOpName("table_ready").AddOp("TableNotInitializedForTest", {});
  ops::NoOp(root.WithOpName("noop"));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  const auto table_error =
      StatusIs(absl::StatusCode::kFailedPrecondition, StartsWith("Table not initialized."));

  // prepare_session: the ready op's error comes back unchanged, not as
  // "Init operations did not make model ready".
  SessionManager::Options o = Opts();
  o.ready_op = {"table_ready:0"};
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {v.initializer().name()};
  EXPECT_THAT(sm->PrepareSession("", p), table_error);

  // recover_session: from a restored checkpoint the ready op runs, and its
  // error propagates instead of "initialized = false".
  {
    ASSERT_OK_AND_ASSIGN(auto sess, Make(root, Opts())->PrepareSession("", p));
    ASSERT_OK(saver->Save(sess.get(), "/tmp/x2/model").status());
  }
  SessionManager::PrepareOptions r = Prep();
  r.saver = saver.get();
  r.checkpoint_dir = "/tmp/x2";
  EXPECT_THAT(sm->RecoverSession("", r), table_error);

  // wait_for_session: the error ends the wait at once.
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(60)), table_error);
  EXPECT_EQ(clock_.sleeps(), 0);

  // The same through ready_for_local_init_op.
  SessionManager::Options lo = Opts();
  lo.ready_for_local_init_op = {"table_ready:0"};
  lo.local_init_op = {"noop"};
  EXPECT_THAT(Make(root, lo)->PrepareSession("", p), table_error);

  // Any other error code propagates too (here a placeholder nobody feeds).
  ops::Placeholder(root.WithOpName("needs_feed"), DT_INT32);
  SessionManager::Options po = Opts();
  po.ready_op = {"needs_feed:0"};
  EXPECT_THAT(Make(root, po)->PrepareSession("", p),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// X3: a ready op returning int32, or an op ("^name") returning nothing,
// means ready.
TEST_F(SessionManagerTest, X3_Int32AndOpReadyOpsMeanReady) {
  Scope root = Scope::NewRootScope();
  ops::Const<int32_t>(root.WithOpName("ranks"), {1, 2});
  ops::NoOp(root.WithOpName("an_op"));
  for (const char* ready : {"ranks:0", "^an_op"}) {
    SessionManager::Options o = Opts();
    o.ready_op = {ready};
    o.local_init_op = {"an_op"};
    auto sm = Make(root, o);
    EXPECT_OK(sm->PrepareSession("", Prep()).status()) << ready;
  }
}

// X4/X5: a state file naming a missing checkpoint, or naming none, is
// InvalidArgument from RecoverSession.
TEST_F(SessionManagerTest, X4_X5_BadCheckpointStatesPropagate) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  auto sm = Make(root, Opts());
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/bad_state";
  ASSERT_OK(WriteStringToFile(&env_, "/tmp/bad_state/checkpoint",
                              "model_checkpoint_path: \"/tmp/bad_state/gone\"\n"));
  EXPECT_THAT(
      sm->RecoverSession("", p),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("The passed save_path is not a valid checkpoint: /tmp/bad_state/gone")));
  ASSERT_OK(WriteStringToFile(&env_, "/tmp/bad_state/checkpoint", "\n"));
  EXPECT_THAT(sm->RecoverSession("", p),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid checkpoint state loaded from /tmp/bad_state")));
}

// X6: waiting for a checkpoint polls 1 + ceil(max_wait / recovery_wait)
// times, counted in nominal sleeps.
TEST_F(SessionManagerTest, X6_CheckpointWaitCountsNominalSleeps) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  SessionManager::Options o = Opts();
  o.recovery_wait = absl::Seconds(4);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.saver = saver.get();
  p.checkpoint_dir = "/tmp/never";
  p.wait_for_checkpoint = true;
  p.max_wait = absl::Seconds(10);
  p.init_fn = [](Session*) { return absl::OkStatus(); };
  ASSERT_OK(sm->PrepareSession("", p).status());
  EXPECT_EQ(clock_.sleeps(), 3);  // ceil(10 / 4)
}

// X9: WaitForSession without max_wait waits until the model is ready.
TEST_F(SessionManagerTest, X9_WaitForeverUntilTheChiefIsDone) {
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("x9_wait_forever"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(4));
  SessionManager::Options o;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Milliseconds(1);
  auto sm = Make(root, o);
  std::thread chief([&] {
    SessionOptions so;
    so.target = server->target();
    auto s = NewSession(so);
    ASSERT_OK(s.status());
    ASSERT_OK((*s)->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK((*s)->Run({}, {}, {v.initializer().name()}, &out));
  });
  ASSERT_OK_AND_ASSIGN(auto sess, sm->WaitForSession(server->target()));  // no max_wait
  chief.join();
  EXPECT_EQ(Value(sess.get(), "v/read"), "4");
}


// X7: after a restore from a directory, the Saver tracks the state file's
// checkpoints that exist.
TEST_F(SessionManagerTest, X7_RestoreFromDirRecoversTheSaversCheckpointList) {
  ASSERT_OK(env_.CreateDir("/tmp/x7"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {.max_to_keep = 3}, &env_));
  auto sm = Make(root, Opts());
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {v.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  for (int step = 1; step <= 3; ++step) {
    ASSERT_OK(saver->Save(sess.get(), "/tmp/x7/model", {.global_step = step}).status());
  }
  RemoveCheckpoint(&env_, "/tmp/x7/model-1");  // listed in the state file, gone on disk
  auto fresh = Saver::FromSaverDef(saver->saver_def(), &env_);
  p.saver = fresh.get();
  p.checkpoint_dir = "/tmp/x7";
  ASSERT_OK_AND_ASSIGN(sess, sm->PrepareSession("", p));
  EXPECT_EQ(fresh->last_checkpoints(),
            (std::vector<std::string>{"/tmp/x7/model-2", "/tmp/x7/model-3"}));
}

// A session kind of the test's own (through RegisterSessionFactory): a
// private-state session that records the RunOptions of every Run.
struct RunRecord {
  std::vector<std::string> targets;
  int64_t timeout_in_ms;
};

class RecordingSession : public Session {
 public:
  RecordingSession(std::unique_ptr<Session> inner, std::vector<RunRecord>* log)
      : inner_(std::move(inner)), log_(log) {}
  absl::Status Create(const GraphDef& graph) override { return inner_->Create(graph); }
  absl::Status Extend(const GraphDef& graph) override { return inner_->Extend(graph); }
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) override {
    log_->push_back({targets, options.timeout_in_ms});
    return inner_->Run(options, feeds, fetches, targets, outputs);
  }
  absl::Status Close() override { return inner_->Close(); }
  GraphDef graph_def() const override { return inner_->graph_def(); }

 private:
  std::unique_ptr<Session> inner_;
  std::vector<RunRecord>* log_;
};

std::vector<RunRecord>* RecordedRuns() {
  static auto* log = new std::vector<RunRecord>;
  static const bool registered = [] {
    EXPECT_OK(RegisterSessionFactory("recording", [](const SessionOptions& options)
                                                      -> absl::StatusOr<std::unique_ptr<Session>> {
      SessionOptions inner = options;
      inner.target = "";
      MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, NewSession(inner));
      return std::unique_ptr<Session>(new RecordingSession(std::move(s), log));
    }));
    return true;
  }();
  (void)registered;
  return log;
}

// X8: local_init_run_options reach the local_init_op run and no other.
TEST_F(SessionManagerTest, X8_LocalInitRunOptionsGoToTheLocalInitRunOnly) {
  std::vector<RunRecord>* runs = RecordedRuns();
  runs->clear();
  GL g;
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(g.root).tensor_name()};
  o.ready_for_local_init_op = {
      ReportUninitializedVariables(g.root, GlobalVariables(g.root)).tensor_name()};
  o.local_init_op = {g.w.initializer().name()};
  o.local_init_run_options.timeout_in_ms = 4321;
  auto sm = Make(g.root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {g.v.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("recording://x8", p));
  EXPECT_EQ(Value(sess.get(), "w/read"), "1");
  // init_op, ready_for_local_init_op, local_init_op, ready_op, then our read.
  ASSERT_EQ(runs->size(), 5u);
  int local_init_runs = 0;
  for (const RunRecord& r : *runs) {
    const bool is_local_init = r.targets == std::vector<std::string>{"w/Assign"};
    local_init_runs += is_local_init;
    EXPECT_EQ(r.timeout_in_ms, is_local_init ? 4321 : 0);
  }
  EXPECT_EQ(local_init_runs, 1);
  // A scheme is registered once; "local" and malformed schemes never.
  EXPECT_THAT(RegisterSessionFactory("recording", nullptr),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(RegisterSessionFactory("local", nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RegisterSessionFactory("no spaces", nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(SessionManagerTest, WaitForSessionHonoursMaxWaitWithinOneRecoveryWait) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Seconds(1);
  auto sm = Make(root, o);
  for (double max_wait : {0.0, 0.5, 1.0, 2.5, 10.0}) {
    const uint64_t start = clock_.NowMicros();
    EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(max_wait)),
                StatusIs(absl::StatusCode::kDeadlineExceeded));
    const double waited = (clock_.NowMicros() - start) * 1e-6;
    EXPECT_LE(waited, max_wait) << max_wait;
    EXPECT_GT(waited, max_wait - 1.0) << max_wait;
  }
}

TEST_F(SessionManagerTest, PrepareSessionRestoresTensorFlowCheckpointExactly) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string ckpt_dir =
      JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints");
  ASSERT_OK_AND_ASSIGN(auto latest, LatestCheckpoint(Env::Default(), ckpt_dir));
  ASSERT_TRUE(latest.has_value());
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), *latest));
  Scope root = Scope::NewRootScope();
  for (const std::string& key : reader->keys()) {
    ASSERT_OK_AND_ASSIGN(const BundleEntryProto* e, reader->GetEntry(key));
    ASSERT_OK_AND_ASSIGN(TensorShape shape, reader->GetShape(key));
    Tensor init(e->dtype(), shape);
    std::memset(init.raw_data(), 0, init.TotalBytes());
    Variable::Create(root, key, init);
  }
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root));
  SessionManager::Options o;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p;
  p.init_op = {GlobalVariablesInitializer(root).name()};
  sm = Make(root, o);
  p.saver = saver.get();
  p.checkpoint_dir = ckpt_dir;
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  for (const std::string& key : reader->keys()) {
    ASSERT_OK_AND_ASSIGN(Tensor want, reader->Lookup(key));
    std::vector<Tensor> out;
    ASSERT_OK(sess->Run({}, {key + "/read"}, {}, &out));
    EXPECT_EQ(out[0].tensor_data(), want.tensor_data()) << key;
  }
  EXPECT_EQ(saver->last_checkpoints(), std::vector<std::string>{*latest});
}

// Issue 16: where minigraph departed from TensorFlow, and the C++ API's traps.

// variables.py: with the global and local collections empty, the readiness
// report falls back to every VariableV2 op, so a variable built outside the
// collections is not "ready" while uninitialized.
TEST_F(SessionManagerTest, ReadyOpReportsVariablesOutsideTheCollections) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(1), {.collections = {}});
  ops::NoOp(root.WithOpName("nothing"));
  SessionManager::Options o = Opts();
  o.ready_op = ReportReady(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {"nothing"};
  EXPECT_THAT(sm->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Init operations did not make model ready.  Init op: nothing, "
                                 "init fn: None, local_init_op: None, error: Variables not "
                                 "initialized: v")));
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(60)),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  p.init_op = {v.initializer().name()};
  ASSERT_OK_AND_ASSIGN(auto sess, sm->PrepareSession("", p));
  EXPECT_EQ(Value(sess.get(), "v/read"), "1");
}

// The obsolete assert_variables_initialized() falls back the same way.
TEST_F(SessionManagerTest, AssertReadyOpCoversVariablesOutsideTheCollections) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(1), {.collections = {}});
  ops::NoOp(root.WithOpName("nothing"));
  SessionManager::Options o = Opts();
  o.ready_op = {AssertVariablesInitialized(root).tensor_name()};
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {"nothing"};
  EXPECT_THAT(sm->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Attempting to use uninitialized value v")));
  p.init_op = {v.initializer().name()};
  EXPECT_OK(sm->PrepareSession("", p).status());
}

// A ready op given as a bare node name (a tensor missing its ":0") would be
// run as an op and always count as ready; it is rejected. "^node" runs an op
// on purpose (X3).
TEST_F(SessionManagerTest, BareNodeNameAsReadyOpIsInvalidArgument) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(1));
  Output ready = ReportUninitializedVariables(root);
  ops::NoOp(root.WithOpName("local_init"));
  const GraphDef graph = *root.ToGraphDef();
  SessionManager::Options o = Opts();
  o.ready_op = {ready.op().name()};
  EXPECT_THAT(SessionManager::Create(graph, o),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("ready_op \"" + ready.op().name() + "\" is a bare node name")));
  o = Opts();
  o.local_init_op = {"local_init"};
  o.ready_for_local_init_op = {ready.op().name()};
  EXPECT_THAT(SessionManager::Create(graph, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ready_for_local_init_op")));
  o.ready_for_local_init_op = {ready.tensor_name()};
  o.ready_op = {"^" + ready.op().name()};
  EXPECT_OK(SessionManager::Create(graph, o).status());
}

// One Env: the sessions a manager creates use its Env, so a checkpoint in an
// in-memory directory is found and restored without setting it three times.
TEST_F(SessionManagerTest, SessionsUseTheManagersEnv) {
  ASSERT_OK(env_.CreateDir("/mem_only"));
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(3));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &env_));
  SessionManager::Options o = Opts();
  o.ready_op = ReportReady(root);
  auto sm = Make(root, o);
  SessionManager::PrepareOptions p;  // config.env left as it is
  p.init_op = {v.initializer().name()};
  p.saver = saver.get();
  p.checkpoint_dir = "/mem_only";
  ASSERT_OK_AND_ASSIGN(auto first, sm->PrepareSession("", p));
  ASSERT_OK(saver->Save(first.get(), "/mem_only/model").status());
  p.init_op.clear();
  ASSERT_OK_AND_ASSIGN(auto restored, sm->RecoverSession("", p));
  EXPECT_TRUE(restored.initialized);
  EXPECT_EQ(Value(restored.session.get(), "v/read"), "3");
}

TEST_F(SessionManagerTest, MismatchedEnvsAreInvalidArgument) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(3));
  ASSERT_OK_AND_ASSIGN(auto posix_saver, Saver::Create(root, {}, Env::Default()));
  auto sm = Make(root, Opts());
  SessionManager::PrepareOptions p = Prep();
  p.init_op = {v.initializer().name()};
  p.saver = posix_saver.get();
  p.checkpoint_dir = "/logs";
  EXPECT_THAT(sm->PrepareSession("", p),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the Saver's Env differs")));
  EXPECT_THAT(sm->RecoverSession("", p),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the Saver's Env differs")));
  MemEnv other;
  SessionOptions config;
  config.env = &other;
  EXPECT_THAT(sm->WaitForSession("", config, absl::Seconds(1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the session config's Env differs")));
}

// WaitForSession without max_wait can be cancelled: between attempts ...
class NotifiesOnThirdSleep : public FakeClockEnv {
 public:
  using FakeClockEnv::FakeClockEnv;
  absl::Notification* to_notify = nullptr;
  void SleepForMicroseconds(int64_t micros) override {
    FakeClockEnv::SleepForMicroseconds(micros);
    if (sleeps() == 3) to_notify->Notify();
  }
};

TEST(SessionManagerWaitTest, WaitForSessionEndsWhenCancelled) {
  SetMinLogLevel(LogLevel::kError);
  absl::Notification cancel;
  NotifiesOnThirdSleep clock(Env::Default());
  clock.to_notify = &cancel;
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(1));
  SessionManager::Options o;
  o.env = &clock;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(*root.ToGraphDef(), o));
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), std::nullopt, &cancel),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("WaitForSession on \"\"")));
  EXPECT_EQ(clock.sleeps(), 3);
  // Already cancelled: no attempt, no sleep.
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), std::nullopt, &cancel),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(clock.sleeps(), 3);
}

// ... and in the middle of a real sleep: with an hour's recovery_wait this
// test would time out if the cancellation waited for the sleep to end.
TEST(SessionManagerWaitTest, CancellationInterruptsARealSleep) {
  SetMinLogLevel(LogLevel::kError);
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(1));
  SessionManager::Options o;
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Hours(1);
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(*root.ToGraphDef(), o));
  absl::Notification cancel;
  std::thread canceller([&cancel] { cancel.Notify(); });
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), std::nullopt, &cancel),
              StatusIs(absl::StatusCode::kCancelled));
  canceller.join();
}

// A model the chief prepared on local:// outlives the chief's session, so a
// worker that connects later (or between its attempts) finds it ready;
// ResetTarget lets it go.
TEST_F(SessionManagerTest, PreparedLocalModelOutlivesItsSessions) {
  const std::string target = "local://kept_alive_by_prepare_session";
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(7));
  SessionManager::Options o = Opts();
  o.ready_op = ReportReady(root);
  auto sm = Make(root, o);
  {
    SessionManager::PrepareOptions p = Prep();
    p.init_op = {v.initializer().name()};
    ASSERT_OK_AND_ASSIGN(auto chief, sm->PrepareSession(target, p));
    ASSERT_OK(chief->Close());
  }
  ASSERT_OK_AND_ASSIGN(auto worker,
                       sm->WaitForSession(target, SessionOptions(), absl::Seconds(60)));
  EXPECT_EQ(Value(worker.get(), "v/read"), "7");
  EXPECT_EQ(clock_.sleeps(), 0);
  worker.reset();
  ASSERT_OK(ResetTarget(target));
  EXPECT_THAT(sm->WaitForSession(target, SessionOptions(), absl::Seconds(60)),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(KeepTargetAlive("local://"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TargetsTest, LocalTargetsShareStateAndBadTargetsAreErrors) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<float>(5));
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("shared_state_test"));
  EXPECT_EQ(server->target(), "local://shared_state_test");
  SessionOptions so;
  so.target = server->target();
  ASSERT_OK_AND_ASSIGN(auto a, NewSession(so));
  ASSERT_OK_AND_ASSIGN(auto b, NewSession(so));
  ASSERT_OK(a->Create(*root.ToGraphDef()));
  ASSERT_OK(b->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(a->Run({}, {}, {"v/Assign"}, &out));
  ASSERT_OK(b->Run({}, {"v/read"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 5.0f);
  for (const char* bad : {"local://", "ftp://x", "local://has space", "nonsense"}) {
    so.target = bad;
    EXPECT_THAT(NewSession(so), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad)));
  }
  // grpc:// sessions are not linked into this test: the error says where
  // they come from.
  so.target = "grpc://localhost:2222";
  EXPECT_THAT(NewSession(so), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       HasSubstr("//session/distributed:grpc_session")));
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

// Beyond TensorFlow: PrepareOptions::fallback_to_valid_checkpoint and
// PrepareOptions::strict.
class RecoveryOptionsTest : public SessionManagerTest {
 protected:
  // v (int32) saved as 1, 2, 3 at steps 1, 2, 3 in /ckpt.
  void SetUp() override {
    ASSERT_OK(env_.CreateDir("/ckpt"));
    v_ = Variable::Create(root_, "v", Tensor::Scalar<int32_t>(0));
    ops::Assign(root_.WithOpName("set"), v_.ref(),
                ops::Placeholder(root_.WithOpName("value"), DT_INT32));
    init_ = GlobalVariablesInitializer(root_);
    ASSERT_OK_AND_ASSIGN(saver_, Saver::Create(root_, {}, &env_));
    SessionManager::Options o = Opts();
    o.ready_op = {ReportUninitializedVariables(root_).tensor_name()};
    sm_ = Make(root_, o);
    ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", Prepare()));
    for (int step = 1; step <= 3; ++step) {
      std::vector<Tensor> out;
      ASSERT_OK(s->Run({{"value", Tensor::Scalar<int32_t>(step)}}, {}, {"set"}, &out));
      ASSERT_OK(saver_->Save(s.get(), "/ckpt/model", {.global_step = step}).status());
    }
  }
  SessionManager::PrepareOptions Prepare() {
    SessionManager::PrepareOptions p = Prep();
    p.init_op = {init_.name()};
    p.saver = saver_.get();
    p.checkpoint_dir = "/ckpt";
    p.restored_from = &restored_from_;
    return p;
  }
  void Corrupt(const std::string& prefix) {
    const std::string data = DataFilename(prefix, 0, 1);
    ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(&env_, data));
    bytes[0] ^= 1;
    ASSERT_OK(WriteStringToFile(&env_, data, bytes));
  }

  Scope root_ = Scope::NewRootScope();
  Variable v_;
  Operation init_;
  std::unique_ptr<Saver> saver_;
  std::unique_ptr<SessionManager> sm_;
  std::string restored_from_;
};

TEST_F(RecoveryOptionsTest, FallsBackToTheNewestCheckpointThatRestores) {
  Corrupt("/ckpt/model-3");
  ASSERT_OK(env_.DeleteFile(MetaFilename("/ckpt/model-2")));
  // TensorFlow's behaviour stays the default: the corrupt newest one stops it.
  EXPECT_THAT(sm_->PrepareSession("", Prepare()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("model-3")));
  SessionManager::PrepareOptions p = Prepare();
  p.fallback_to_valid_checkpoint = true;
  ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", p));
  EXPECT_EQ(Value(s.get(), "v/read"), "1");
  EXPECT_EQ(restored_from_, "/ckpt/model-1");
  // With none left, every reason is listed.
  Corrupt("/ckpt/model-1");
  EXPECT_THAT(sm_->PrepareSession("", p),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("No checkpoint in /ckpt could be restored (3 tried"),
                             HasSubstr("/ckpt/model-3: Checksum does not match"),
                             HasSubstr("/ckpt/model-2: The passed save_path is not a valid"),
                             HasSubstr("/ckpt/model-1: Checksum does not match"))));
}

TEST_F(RecoveryOptionsTest, FallbackSkipsACheckpointOfAnotherShape) {
  // A newest checkpoint whose v is a vector: the graph's scalar cannot take it.
  {
    Scope other = Scope::NewRootScope();
    Variable::Create(other, "v", Tensor::Vector<int32_t>({7, 7}));
    ASSERT_OK_AND_ASSIGN(auto other_saver, Saver::Create(other, {}, &env_));
    SessionOptions o;
    o.env = &env_;
    ASSERT_OK_AND_ASSIGN(auto s, NewSession(o));
    ASSERT_OK(s->Create(*other.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
    ASSERT_OK(other_saver->Save(s.get(), "/ckpt/model", {.global_step = 4}).status());
  }
  ASSERT_OK(UpdateCheckpointState(&env_, "/ckpt", "/ckpt/model-4",
                                  {"/ckpt/model-2", "/ckpt/model-3", "/ckpt/model-4"}, {},
                                  std::nullopt, "checkpoint", false));
  SessionManager::PrepareOptions p = Prepare();
  p.fallback_to_valid_checkpoint = true;
  ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", p));
  EXPECT_EQ(Value(s.get(), "v/read"), "3");
  EXPECT_EQ(restored_from_, "/ckpt/model-3");
  p.fallback_to_valid_checkpoint = false;
  EXPECT_THAT(sm_->PrepareSession("", p), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(RecoveryOptionsTest, StrictRefusesToInitializeOverCheckpointFiles) {
  ASSERT_OK(env_.DeleteFile("/ckpt/checkpoint"));
  // TensorFlow's behaviour: no state file, so a fresh start.
  ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", Prepare()));
  EXPECT_EQ(Value(s.get(), "v/read"), "0");
  EXPECT_EQ(restored_from_, "");
  SessionManager::PrepareOptions p = Prepare();
  p.strict = true;
  EXPECT_THAT(sm_->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("strict: /ckpt holds 6 checkpoint file(s)"),
                             HasSubstr("model-1.data-00000-of-00001"),
                             HasSubstr("refusing to initialize from scratch"))));
  // A state file that does not parse counts too.
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", "not a state file {"));
  EXPECT_THAT(sm_->PrepareSession("", p), StatusIs(absl::StatusCode::kFailedPrecondition));
  // An empty directory is a fresh start, strict or not.
  ASSERT_OK(env_.CreateDir("/empty"));
  p.checkpoint_dir = "/empty";
  EXPECT_OK(sm_->PrepareSession("", p).status());
}

// A state file that does not parse, is missing, or names nothing that
// exists: with recover_state_from_directory the newest complete checkpoint
// in the directory is restored and the state file rewritten from it.
TEST_F(RecoveryOptionsTest, RecoversTheStateFromTheDirectory) {
  // Leftovers of killed saves are no checkpoints.
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/model-4.index.tempstate7", "x"));
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/model-5.data-00000-of-00001", "x"));
  for (const std::string& bad :
       {std::string("model_checkpoint_path: \"x\"\x01\n"), std::string(""),
        std::string("model_checkpoint_path: \"/ckpt/model-9\"\n"
                    "all_model_checkpoint_paths: \"/ckpt/model-8\"\n"),
        std::string("<missing>")}) {
    SCOPED_TRACE(bad);
    if (bad == "<missing>") {
      ASSERT_OK(env_.DeleteFile("/ckpt/checkpoint"));
    } else {
      ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", bad));
    }
    SessionManager::PrepareOptions p = Prepare();
    p.recover_state_from_directory = true;
    p.strict = true;
    ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", p));
    EXPECT_EQ(Value(s.get(), "v/read"), "3");
    EXPECT_EQ(restored_from_, "/ckpt/model-3");
    ASSERT_OK_AND_ASSIGN(std::string state, ReadFileToString(&env_, "/ckpt/checkpoint"));
    EXPECT_THAT(state, AllOf(HasSubstr("model_checkpoint_path: \"model-3\""),
                             HasSubstr("all_model_checkpoint_paths: \"model-1\""),
                             HasSubstr("all_model_checkpoint_timestamps")));
    EXPECT_THAT(saver_->last_checkpoints(),
                ElementsAre("/ckpt/model-1", "/ckpt/model-2", "/ckpt/model-3"));
  }
  // TensorFlow's behaviour stays the default: a bad state file is a fresh
  // start, and one naming a missing checkpoint an error.
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", "model_checkpoint_path: \"x\"\x01\n"));
  ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", Prepare()));
  EXPECT_EQ(Value(s.get(), "v/read"), "0");
  ASSERT_OK(UpdateCheckpointState(&env_, "/ckpt", "/ckpt/model-9"));
  EXPECT_THAT(sm_->PrepareSession("", Prepare()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a valid checkpoint")));
  // Nothing complete to recover: strict refuses, naming the files.
  for (int step = 1; step <= 3; ++step) {
    ASSERT_OK(env_.DeleteFile(MetaFilename("/ckpt/model-" + std::to_string(step))));
  }
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", "garbage"));
  SessionManager::PrepareOptions p = Prepare();
  p.recover_state_from_directory = true;
  p.strict = true;
  EXPECT_THAT(sm_->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("model-1.data-00000-of-00001"),
                             Not(HasSubstr("tempstate")))));
}

// A state file naming another run's checkpoint, outside the directory:
// with recover_state_from_directory the directory's own newest checkpoint
// is restored and the state file rewritten, so retention keeps tracking the
// directory's checkpoints; a directory with none of its own restores
// nothing, by name. TensorFlow (the default) follows the path.
TEST_F(RecoveryOptionsTest, AStateFileNamingAnotherRunsCheckpointIsNotFollowed) {
  ASSERT_OK(env_.CreateDir("/other"));
  {
    ASSERT_OK_AND_ASSIGN(auto s, sm_->PrepareSession("", Prepare()));
    std::vector<Tensor> out;
    ASSERT_OK(s->Run({{"value", Tensor::Scalar<int32_t>(9)}}, {}, {"set"}, &out));
    ASSERT_OK(saver_->Save(s.get(), "/other/model", {.global_step = 9, .write_state = false})
                  .status());
  }
  const std::string outside = "model_checkpoint_path: \"/other/model-9\"\n";
  ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", outside));
  ASSERT_OK_AND_ASSIGN(auto followed, sm_->PrepareSession("", Prepare()));
  EXPECT_EQ(Value(followed.get(), "v/read"), "9");
  SessionManager::PrepareOptions p = Prepare();
  p.recover_state_from_directory = true;
  p.strict = true;
  ASSERT_OK_AND_ASSIGN(auto own, sm_->PrepareSession("", p));
  EXPECT_EQ(Value(own.get(), "v/read"), "3");
  EXPECT_EQ(restored_from_, "/ckpt/model-3");
  EXPECT_THAT(ReadFileToString(&env_, "/ckpt/checkpoint"),
              IsOkAndHolds(HasSubstr("model_checkpoint_path: \"model-3\"")));
  ASSERT_OK(env_.CreateDir("/fresh"));
  ASSERT_OK(WriteStringToFile(&env_, "/fresh/checkpoint", outside));
  p.checkpoint_dir = "/fresh";
  EXPECT_THAT(sm_->PrepareSession("", p),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("/fresh/checkpoint"), HasSubstr("/other/model-9"),
                             HasSubstr("no checkpoint of its own"))));
}

// The state file's bytes mutated at random, 400 times: with recovery on, a
// run never starts from scratch while a valid checkpoint exists.
TEST_F(RecoveryOptionsTest, AMangledStateFileNeverRestartsFromScratch) {
  ASSERT_OK_AND_ASSIGN(const std::string good, ReadFileToString(&env_, "/ckpt/checkpoint"));
  std::mt19937 rng(20261203);
  int recovered = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bytes = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = bytes.empty() ? 0 : rng() % bytes.size();
      switch (rng() % 4) {
        case 0: if (!bytes.empty()) bytes[at] = static_cast<char>(rng()); break;
        case 1: bytes.insert(at, 1, static_cast<char>(rng())); break;
        case 2: bytes.erase(at, 1 + rng() % 8); break;
        default: bytes.resize(at); break;
      }
    }
    ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", bytes));
    SessionManager::PrepareOptions p = Prepare();
    p.recover_state_from_directory = true;
    p.strict = true;
    restored_from_.clear();
    absl::StatusOr<std::unique_ptr<Session>> s = sm_->PrepareSession("", p);
    ASSERT_OK(s.status()) << absl::CEscape(bytes);
    ASSERT_THAT(restored_from_, AnyOf("/ckpt/model-1", "/ckpt/model-2", "/ckpt/model-3"))
        << absl::CEscape(bytes);
    recovered += restored_from_ == "/ckpt/model-3";
    ASSERT_OK(WriteStringToFile(&env_, "/ckpt/checkpoint", good));
  }
  EXPECT_GT(recovered, 300);
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

// Beyond TensorFlow: SessionManager::ReadinessReport, CheckReady and the
// throttled wait log (Options::on_readiness).
TEST_F(SessionManagerTest, CheckReadyReportsWhatIsMissingWithoutWaiting) {
  Scope root = Scope::NewRootScope();
  Variable w = Variable::Create(root, "w", Tensor::Scalar<int32_t>(1));
  Variable::Create(root, "b", Tensor::Scalar<int32_t>(2));
  Variable::Create(root, "c", Tensor::Scalar<int32_t>(3));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  auto sm = Make(root, o);
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("check_ready"));
  SessionOptions config;
  config.env = &env_;
  ASSERT_OK_AND_ASSIGN(SessionManager::ReadinessReport r, sm->CheckReady(server->target(), config));
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.reported_by, "ready_op");
  EXPECT_THAT(r.uninitialized, ::testing::ElementsAre("w", "b", "c"));
  EXPECT_EQ(r.message, "Variables not initialized: w, b, c");
  EXPECT_FALSE(r.chief_seen);
  EXPECT_EQ(clock_.sleeps(), 0);  // it did not wait
  // The chief initializes one variable: it has been at work.
  ASSERT_OK_AND_ASSIGN(auto chief, NewSession([&] {
                         SessionOptions c = config;
                         c.target = server->target();
                         return c;
                       }()));
  ASSERT_OK(chief->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(chief->Run({}, {}, {"w/Assign"}, &out));
  ASSERT_OK_AND_ASSIGN(r, sm->CheckReady(server->target(), config));
  EXPECT_THAT(r.uninitialized, ::testing::ElementsAre("b", "c"));
  EXPECT_TRUE(r.chief_seen);
  EXPECT_EQ(r.ToString(),
            "not ready (ready_op): 2 of 3 variables uninitialized (b, c); the chief has been at "
            "work; attempt 1; waited 0");
  ASSERT_OK(chief->Run({}, {}, {"b/Assign", "c/Assign"}, &out));
  ASSERT_OK_AND_ASSIGN(r, sm->CheckReady(server->target(), config));
  EXPECT_TRUE(r.ready);
}

TEST_F(SessionManagerTest, TheWaitReportsAChangeOnceThenOnceAMinute) {
  Scope root = Scope::NewRootScope();
  Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  SessionManager::Options o = Opts();
  o.ready_op = {ReportUninitializedVariables(root).tensor_name()};
  o.recovery_wait = absl::Seconds(1);
  std::vector<SessionManager::ReadinessReport> reports;
  o.on_readiness = [&](const SessionManager::ReadinessReport& r) { reports.push_back(r); };
  auto sm = Make(root, o);
  // 150 attempts a second apart, all "v is uninitialized": reported at 0,
  // 60 and 120 s, not 150 times.
  EXPECT_THAT(sm->WaitForSession("", SessionOptions(), absl::Seconds(150)),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports[0].attempts, 1);
  EXPECT_EQ(reports[1].waited, absl::Seconds(60));
  EXPECT_EQ(reports[2].waited, absl::Seconds(120));
  EXPECT_EQ(reports[2].deadline_left, absl::Seconds(30));
  EXPECT_EQ(reports[2].ToString(),
            "not ready (ready_op): 1 of 1 variables uninitialized (v); no sign of the chief yet; "
            "attempt 121; waited 2m, 30s left");
}

}  // namespace
}  // namespace minigraph
