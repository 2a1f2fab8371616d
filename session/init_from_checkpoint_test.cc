// InitFromCheckpoint (TensorFlow's tf.train.init_from_checkpoint): scopes
// and names mapped as TensorFlow maps them, the initializers built after it
// reading the checkpoint, and every error before the graph changes.
#include "session/init_from_checkpoint.h"

#include "checkpoint/bundle_writer.h"
#include "checkpoint/checkpoint_state.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor Floats(std::vector<float> v, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

Tensor Zeros(TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = 0;
  return t;
}

class InitFromCheckpointTest : public ::testing::Test {
 protected:
  // A pre-trained model's checkpoint, named as its own graph named things.
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto w, BundleWriter::Create(&mem_, "/pretrained/model.ckpt-7"));
    ASSERT_OK(w->Add("bert/encoder/w", Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))));
    ASSERT_OK(w->Add("bert/encoder/b", Floats({7, 8, 9}, TensorShape({3}))));
    ASSERT_OK(w->Add("cls/bias", Floats({-1, -2}, TensorShape({2}))));
    ASSERT_OK(w->Add("global_step", Tensor::Scalar<int64_t>(7)));
    ASSERT_OK(w->Finish());
  }

  // Each variable's value after GlobalVariablesInitializer runs.
  std::vector<std::string> Initialized(const Scope& root, const std::vector<Variable>& vars) {
    Operation init = GlobalVariablesInitializer(root);
    SessionOptions options;
    options.env = &mem_;
    auto session = NewSession(options);
    EXPECT_OK(session.status());
    EXPECT_OK((*session)->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    EXPECT_OK((*session)->Run({}, {}, {init.name()}, &out));
    std::vector<std::string> values;
    for (const Variable& v : vars) {
      absl::Status s = (*session)->Run({}, {v.value().name()}, {}, &out);
      values.push_back(s.ok() ? out[0].SummarizeValue(10) : std::string(s.message()));
    }
    return values;
  }

  MemEnv mem_;
};

TEST_F(InitFromCheckpointTest, ScopeToScopeAndNameToName) {
  Scope root = Scope::NewRootScope();
  const Scope classifier = root.NewSubScope("classifier");
  const Scope encoder = classifier.NewSubScope("encoder");
  Variable w = Variable::Create(encoder, "w", Zeros(TensorShape({2, 3})));
  Variable b = Variable::Create(encoder, "b", Zeros(TensorShape({3})));
  Variable bias = Variable::Create(classifier, "bias", Zeros(TensorShape({2})));
  Variable fresh = Variable::Create(root, "fresh", Floats({0.5}, TensorShape({1})));
  ASSERT_OK(InitFromCheckpoint(
      root, "/pretrained/model.ckpt-7",
      {{"bert/encoder/", "classifier/encoder/"}, {"cls/bias", "classifier/bias"}}, &mem_));
  EXPECT_THAT(Initialized(root, {w, b, bias, fresh}),
              ElementsAre("1 2 3 4 5 6", "7 8 9", "-1 -2", "0.5"));
  // Three restores, named as TensorFlow names them.
  EXPECT_OK(root.FindOp("checkpoint_initializer").status());
  EXPECT_OK(root.FindOp("checkpoint_initializer_2").status());
  EXPECT_THAT(root.FindOp("checkpoint_initializer_3"), StatusIs(absl::StatusCode::kNotFound));
  // The collections say so: a restarted graph's initializer reads it too.
  for (const Variable& v : GlobalVariables(root)) {
    if (v.name() == "fresh") continue;
    EXPECT_THAT(v.initial_value().name(), HasSubstr("checkpoint_initializer")) << v.name();
  }
}

// A partitioned variable is found under its full name, and each part
// restores its slice (TensorFlow's _set_variable_or_list_initializer), by
// name or through a scope.
TEST_F(InitFromCheckpointTest, PartitionedVariablesTakeTheirSlices) {
  Scope root = Scope::NewRootScope();
  const Scope encoder = root.NewSubScope("encoder");
  ASSERT_OK_AND_ASSIGN(
      PartitionedVariable w,
      PartitionedVariable::Create(encoder, "w", Zeros(TensorShape({2, 3})), {1, 2}));
  ASSERT_OK_AND_ASSIGN(PartitionedVariable bias,
                       PartitionedVariable::Create(root, "bias", Zeros(TensorShape({2})), {2}));
  ASSERT_OK(InitFromCheckpoint(root, "/pretrained/model.ckpt-7",
                               {{"bert/encoder/", "encoder/"}, {"cls/bias", "bias"}}, &mem_));
  EXPECT_THAT(Initialized(root, {w.parts()[0], w.parts()[1], bias.parts()[0], bias.parts()[1]}),
              ElementsAre("1 2 4 5", "3 6", "-1", "-2"));

  // The full shape is what must match.
  Scope other = Scope::NewRootScope();
  ASSERT_OK(PartitionedVariable::Create(other, "w", Zeros(TensorShape({3, 2})), {3, 1}).status());
  EXPECT_THAT(
      InitFromCheckpoint(other, "/pretrained/model.ckpt-7", {{"bert/encoder/w", "w"}}, &mem_)
          .message(),
      AllOf(HasSubstr("Shape of variable w ([3,2])"), HasSubstr("[2,3]")));
}

TEST_F(InitFromCheckpointTest, DirectoriesRootScopesAndResourceVariables) {
  ASSERT_OK(UpdateCheckpointState(&mem_, "/pretrained", "/pretrained/model.ckpt-7"));
  Scope root = Scope::NewRootScope();
  // "bert/" -> "/": every variable from bert/ and its own name.
  const Scope encoder = root.NewSubScope("encoder");
  Variable w = Variable::Create(encoder, "w", Zeros(TensorShape({2, 3})), {.use_resource = true});
  Variable b = Variable::Create(encoder, "b", Zeros(TensorShape({3})));
  ASSERT_OK(InitFromCheckpoint(root, "/pretrained", {{"bert/", "/"}}, &mem_));
  // "/" -> "copy/": a variable under copy/ from the name without it.
  Variable step = Variable::Create(root.NewSubScope("copy"), "global_step",
                                   Tensor::Scalar<int64_t>(0), {.collections = {kLocalVariables}});
  ASSERT_OK(InitFromCheckpoint(root, "/pretrained", {{"/", "copy/"}}, &mem_));
  Operation local_init = LocalVariablesInitializer(root);
  EXPECT_THAT(Initialized(root.WithControlDependencies({local_init}), {w, b}),
              ElementsAre("1 2 3 4 5 6", "7 8 9"));
  ASSERT_OK_AND_ASSIGN(Variable local, Variable::FromDef(root, LocalVariables(root)[0].ToDef()));
  EXPECT_THAT(local.initial_value().name(), HasSubstr("checkpoint_initializer"));
  (void)step;
}

// A warm start from a live trainer's directory: the trainer saves with
// leases and keeps one checkpoint. The reader InitFromCheckpoint hands out
// keeps the chosen checkpoint from retention until the initializers have
// read it; released, it goes at the next save.
TEST_F(InitFromCheckpointTest, TheChosenCheckpointOutlivesRetentionWhileItsReaderIsHeld) {
  Scope trainer = Scope::NewRootScope();
  Variable tw = Variable::Create(trainer, "w", Floats({1, 2}, TensorShape({2})));
  ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(trainer, {.max_to_keep = 1,
                                                           .lease_checkpoints = true}, &mem_));
  Operation trainer_init = GlobalVariablesInitializer(trainer);
  SessionOptions options;
  options.env = &mem_;
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(options));
  ASSERT_OK(session->Create(*trainer.ToGraphDef()));
  ASSERT_OK(session->Run({}, {}, {trainer_init.name()}, nullptr));
  ASSERT_OK(mem_.CreateDir("/run"));
  ASSERT_OK(saver->Save(session.get(), "/run/model", {.global_step = 1}).status());

  Scope root = Scope::NewRootScope();
  Variable w = Variable::Create(root, "w", Zeros(TensorShape({2})));
  std::unique_ptr<BundleReader> held;
  ASSERT_OK(InitFromCheckpoint(root, "/run", {{"w", "w"}}, &mem_, &held));
  ASSERT_NE(held, nullptr);
  ASSERT_OK(saver->Save(session.get(), "/run/model", {.global_step = 2}).status());
  EXPECT_TRUE(CheckpointExists(&mem_, "/run/model-1"));
  EXPECT_THAT(Initialized(root, {w}), ElementsAre("1 2"));
  held.reset();
  ASSERT_OK(saver->Save(session.get(), "/run/model", {.global_step = 3}).status());
  EXPECT_FALSE(CheckpointExists(&mem_, "/run/model-1"));
}

TEST_F(InitFromCheckpointTest, ErrorsComeBeforeAnyChange) {
  Scope root = Scope::NewRootScope();
  const Scope classifier = root.NewSubScope("classifier");
  const Scope encoder = classifier.NewSubScope("encoder");
  Variable w = Variable::Create(encoder, "w", Zeros(TensorShape({2, 3})));
  Variable extra = Variable::Create(encoder, "extra", Zeros(TensorShape({1})));
  Variable bias = Variable::Create(classifier, "bias", Zeros(TensorShape({3})));
  Variable steps = Variable::Create(root, "steps", Floats({0}, TensorShape({})));
  const std::string ckpt = "/pretrained/model.ckpt-7";
  EXPECT_THAT(InitFromCheckpoint(root, ckpt, {{"bert/nope", "classifier/bias"}}, &mem_),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Tensor bert/nope is not found in /pretrained/model.ckpt-7 "
                                 "checkpoint")));
  EXPECT_THAT(InitFromCheckpoint(root, ckpt, {{"bert/encoder/", "classifier/encoder/"}}, &mem_),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Tensor bert/encoder/extra (extra in bert/encoder/) is not found "
                                 "in /pretrained/model.ckpt-7 checkpoint")));
  EXPECT_THAT(InitFromCheckpoint(root, ckpt, {{"cls/bias", "classifier/bias"}}, &mem_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape of variable classifier/bias ([3]) doesn't match with shape "
                                 "of tensor cls/bias ([2]) from checkpoint reader")));
  EXPECT_THAT(InitFromCheckpoint(root, ckpt, {{"global_step", "steps"}}, &mem_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("variable steps is float, but tensor global_step in checkpoint "
                                 "/pretrained/model.ckpt-7 is int64")));
  EXPECT_THAT(InitFromCheckpoint(root, ckpt, {{"cls/bias", "classifier/bais"}}, &mem_),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Assignment map with scope only name classifier should map to "
                                 "scope only cls/bias. Should be 'scope/': 'other_scope/'.")));
  ASSERT_OK(mem_.CreateDir("/empty"));
  EXPECT_THAT(InitFromCheckpoint(root, "/empty", {{"/", "/"}}, &mem_),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Couldn't find 'checkpoint' file or checkpoints in given "
                                 "directory /empty")));
  // A failed call left every variable with its own initial value, and
  // a pair that resolves after one that does not changes nothing either.
  EXPECT_THAT(
      InitFromCheckpoint(
          root, ckpt, {{"bert/encoder/w", "classifier/encoder/w"}, {"cls/bias", "classifier/bias"}},
          &mem_),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(root.FindOp("checkpoint_initializer"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Initialized(root, {w, extra, bias, steps}),
              ElementsAre("0 0 0 0 0 0", "0", "0 0 0", "0"));
}

}  // namespace
}  // namespace minigraph
