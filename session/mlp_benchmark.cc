// The MLP training step (784-128-10, ReLU, softmax cross entropy, batch
// 32): forward + backward + update in one Session::Run, with plain SGD and
// with Adam, on 1 and 2 intra-op threads. tools/bench.sh runs it beside its
// peers (a hand-fused Eigen step, PyTorch) and gives the ratios. BM_MlpTrainStepSaving: the
// Adam step with a checkpoint every 10 steps, none / Save / SaveAsync.
//   bazel run //session:mlp_benchmark
#include <cstdlib>
#include <random>

#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/tensor_types.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "session/session.h"

namespace minigraph {
namespace {

// As the tools run (tools/flag_checks.cc): without the debug-mode deadlock
// detection Debian's Abseil is built with.
const bool kDeadlockDetectionOff = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return true;
}();

// The model, its session (variables initialized, 20 warm-up steps) and
// what a step feeds and runs.
struct Mlp {
  Mlp(bool adam, int threads) {
    RetainFreedMemory();  // as `train` does
    std::mt19937 rng(0);
    std::normal_distribution<float> normal(0.f, 1.f);
    Tensor x(DT_FLOAT, TensorShape({32, 784}));
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = normal(rng);
    Tensor labels(DT_INT64, TensorShape({32}));
    for (int i = 0; i < 32; ++i) labels.data<int64_t>()[i] = rng() % 10;
    auto weights = [&](int64_t rows, int64_t cols) {
      Tensor t(DT_FLOAT, TensorShape({rows, cols}));
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = normal(rng) * 0.05f;
      return t;
    };
    auto zeros = [](int64_t n) {
      Tensor t(DT_FLOAT, TensorShape({n}));
      t.flat<float>().setZero();
      return t;
    };
    Variable w1 = Variable::Create(root, "w1", weights(784, 128));
    Variable b1 = Variable::Create(root, "b1", zeros(128));
    Variable w2 = Variable::Create(root, "w2", weights(128, 10));
    Variable b2 = Variable::Create(root, "b2", zeros(10));
    Output in = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({32, 784}));
    Output lab = ops::Placeholder(root.WithOpName("labels"), DT_INT64, PartialShape({32}));
    Output h = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, in, w1.value()), b1.value()));
    Output logits = ops::BiasAdd(root, ops::MatMul(root, h, w2.value()), b2.value());
    Output loss = ops::Mean(root.WithOpName("loss"),
                            ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, lab).loss,
                            ops::Const<int32_t>(root, 0));
    Variable step = GetOrCreateGlobalStep(root);
    std::unique_ptr<Optimizer> opt;
    if (adam) {
      opt = std::make_unique<AdamOptimizer>(0.001);
    } else {
      opt = std::make_unique<GradientDescentOptimizer>(0.01);
    }
    auto train = opt->Minimize(root, loss, {}, &step);
    MG_CHECK(train.ok()) << train.status();
    Operation init = GlobalVariablesInitializer(root);
    auto made = Saver::Create(root, {.max_to_keep = 5});
    MG_CHECK(made.ok()) << made.status();
    saver = *std::move(made);
    SessionOptions so;
    so.intra_op_threads = threads;
    so.inter_op_threads = 1;
    auto sess = NewSession(so);
    MG_CHECK(sess.ok());
    session = *std::move(sess);
    MG_CHECK(session->Create(*root.ToGraphDef()).ok());
    MG_CHECK(session->Run({}, {}, {init.name()}, &out).ok());
    feeds = {{"x", x}, {"labels", labels}};
    targets = {train->name()};
    for (int i = 0; i < 20; ++i) Step();
  }
  void Step() {
    absl::Status s = session->Run(feeds, {}, targets, &out);
    MG_CHECK(s.ok()) << s;
  }

  Scope root = Scope::NewRootScope();
  std::unique_ptr<Saver> saver;
  std::unique_ptr<Session> session;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> targets;
  std::vector<Tensor> out;
};

void BM_MlpTrainStep(benchmark::State& state) {
  Mlp mlp(state.range(0) == 1, static_cast<int>(state.range(1)));
  for (auto _ : state) mlp.Step();
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The Adam step with a checkpoint every `every` steps (max_to_keep 5,
// durable: files and directory synced): save = 0 none, 1 Save, 2 SaveAsync.
// Files go to a fresh directory under $TMPDIR (or /tmp). With one save in
// flight, SaveAsync hides a save only when it takes less than `every` steps.
void BM_MlpTrainStepSaving(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const int64_t every = state.range(1);
  Mlp mlp(/*adam=*/true, /*threads=*/1);
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = JoinPath(tmp != nullptr ? tmp : "/tmp", "mlp_saving_XXXXXX");
  MG_CHECK(mkdtemp(dir.data()) != nullptr) << dir;
  const std::string prefix = JoinPath(dir, "model.ckpt");
  int64_t step = 0;
  for (auto _ : state) {
    mlp.Step();
    if (++step % every != 0 || mode == 0) continue;
    absl::StatusOr<std::string> saved =
        mode == 1 ? mlp.saver->Save(mlp.session.get(), prefix, {.global_step = step})
                  : mlp.saver->SaveAsync(mlp.session.get(), prefix, {.global_step = step});
    MG_CHECK(saved.ok()) << saved.status();
  }
  MG_CHECK(mlp.saver->Wait().ok());
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["saves"] = static_cast<double>(mode == 0 ? 0 : step / every);
  std::vector<std::string> left = *Env::Default()->GetChildren(dir);
  for (const std::string& f : left) Env::Default()->DeleteFile(JoinPath(dir, f)).IgnoreError();
  Env::Default()->DeleteDir(dir).IgnoreError();
}

BENCHMARK(BM_MlpTrainStepSaving)
    ->ArgNames({"save", "every"})
    ->ArgsProduct({{0, 1, 2}, {10, 50}})
    ->UseRealTime();

BENCHMARK(BM_MlpTrainStep)
    ->ArgNames({"adam", "threads"})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 1})
    ->Args({1, 2})
    ->UseRealTime();

}  // namespace
}  // namespace minigraph
