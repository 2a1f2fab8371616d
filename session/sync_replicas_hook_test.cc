// SyncReplicasOptimizer and its hook: replicas of one local:// model, each
// under a MonitoredSession, train in step on the mean of their gradients.
#include "session/sync_replicas_hook.h"

#include <memory>
#include <string>
#include <vector>

#include "core/logging.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/sync_replicas_optimizer.h"
#include "runtime/cc/variables.h"
#include "session/scaffold.h"
#include "session/targets.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

constexpr char kTarget[] = "local://sync_replicas";
constexpr int64_t kSteps = 5;

class SyncReplicasTest : public ::testing::Test {
 protected:
  SyncReplicasTest() {
    SetMinLogLevel(LogLevel::kError);
    step_ = GetOrCreateGlobalStep(root_);
    w_ = Variable::Create(root_, "w", Tensor::Scalar<float>(0.0f));
    // d loss / d w = g, fed by each replica.
    loss_ = ops::Mul(root_.WithOpName("loss"), w_.value(),
                     ops::Placeholder(root_.WithOpName("g"), DT_FLOAT));
  }
  ~SyncReplicasTest() override { ResetTarget(kTarget).IgnoreError(); }

  static int64_t Step(Session* s) {
    std::vector<Tensor> out;
    EXPECT_OK(s->Run({}, {"global_step/read:0"}, {}, &out));
    return out.empty() ? -1 : *out[0].data<int64_t>();
  }
  // A replica's loop: steps with gradient `g` until the global step reaches
  // kSteps or the token queue closes (the chief has gone).
  static absl::Status Train(MonitoredSession* s, const std::string& train, float g) {
    while (Step(s->raw_session()) < kSteps) {
      absl::Status r = s->Run({{"g:0", Tensor::Scalar<float>(g)}}, {}, {train}, nullptr);
      if (absl::IsOutOfRange(r)) break;
      MG_RETURN_IF_ERROR(r);
    }
    return absl::OkStatus();
  }

  Scope root_ = Scope::NewRootScope();
  Variable step_, w_;
  Output loss_;
};

TEST_F(SyncReplicasTest, UpdatesApplyTheMeanOfTheGradientsTheyAggregate) {
  // One replica whose every update aggregates two of its batches
  // (total_num_replicas < replicas_to_aggregate: TensorFlow's "replicas
  // compute multiple batches per update"). Replicas in separate tasks:
  // session/training/trainer_test.cc.
  GradientDescentOptimizer sgd(1.0);
  SyncReplicasOptimizer sync(&sgd, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/1);
  ASSERT_OK_AND_ASSIGN(Operation train, sync.Minimize(root_, loss_, {}, step_));
  ASSERT_OK_AND_ASSIGN(SyncReplicasHookOps chief_ops, sync.HookOps(root_, /*is_chief=*/true));
  ASSERT_OK_AND_ASSIGN(SyncReplicasHookOps worker_ops, sync.HookOps(root_, /*is_chief=*/false));
  EXPECT_EQ(chief_ops.queue_runners.size(), 1u);
  EXPECT_TRUE(worker_ops.queue_runners.empty());
  EXPECT_TRUE(worker_ops.init_tokens_op.empty());
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_));
  ASSERT_OK_AND_ASSIGN(
      auto chief,
      MonitoredSession::Create(NewChiefSessionCreator(scaffold, kTarget),
                               {std::make_shared<SyncReplicasHook>(chief_ops)}));
  EXPECT_OK(Train(chief.get(), train.name(), 2.0f));
  const int64_t steps = Step(chief->raw_session());
  std::vector<Tensor> w;
  ASSERT_OK(chief->raw_session()->Run({}, {"w/read:0"}, {}, &w));
  // Closing stops the chief's runner (its take cancelled) and closes the
  // token queue.
  EXPECT_OK(chief->Close());
  EXPECT_EQ(steps, kSteps);
  // Each update applied the mean of its gradients of 2 (their sum would be
  // 4 or more), at learning rate 1.
  EXPECT_EQ(*w[0].data<float>(), -2.0f * steps);
}

TEST_F(SyncReplicasTest, BadUsesAreErrorsThatSaySo) {
  GradientDescentOptimizer sgd(1.0);
  SyncReplicasOptimizer sync(&sgd, 2, /*total_num_replicas=*/4);
  EXPECT_EQ(sync.HookOps(root_, true).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(sync.ApplyGradients(root_, {}, step_).status().message(),
              HasSubstr("Must supply at least one variable"));
  ASSERT_OK(sync.Minimize(root_, loss_, {}, step_).status());
  EXPECT_THAT(sync.Minimize(root_, loss_, {}, step_).status().message(),
              HasSubstr("called twice"));

  SyncReplicasOptimizer short_of_tokens(&sgd, 4, /*total_num_replicas=*/2);
  Scope other = Scope::NewRootScope();
  Variable step = GetOrCreateGlobalStep(other);
  Variable v = Variable::Create(other, "v", Tensor::Scalar<float>(0.0f));
  ASSERT_OK(short_of_tokens.Minimize(other, ops::Mul(other, v.value(), v.value()), {}, step)
                .status());
  EXPECT_THAT(short_of_tokens.HookOps(other, true, /*num_tokens=*/1).status().message(),
              HasSubstr("Too few tokens to finish the first step: 1 (given) vs 2 (needed)"));
}

TEST_F(SyncReplicasTest, TheHookRefusesAModelWhoseGlobalVariablesAreUninitialized) {
  GradientDescentOptimizer sgd(1.0);
  SyncReplicasOptimizer sync(&sgd, 1);
  ASSERT_OK(sync.Minimize(root_, loss_, {}, step_).status());
  ASSERT_OK_AND_ASSIGN(SyncReplicasHookOps ops, sync.HookOps(root_, false));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> s, NewSession(SessionOptions()));
  ASSERT_OK_AND_ASSIGN(GraphDef graph, root_.ToGraphDef());
  ASSERT_OK(s->Create(graph));
  SyncReplicasHook hook(ops);
  Coordinator coord;
  absl::Status st = hook.AfterCreateSession(s.get(), &coord);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("did not make model ready for SyncReplicasOptimizer "
                                      "local_init. Init op: Assign, error: Variables not "
                                      "initialized: global_step, w"));
}

}  // namespace
}  // namespace minigraph
