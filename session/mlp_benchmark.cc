// The MLP training step of the gradients issue (784-128-10, ReLU, softmax
// cross entropy, batch 32): forward + backward + update in one
// Session::Run, with plain SGD and with Adam, on 1 and 2 intra-op threads.
// Compare with ../shared/bench/eigen_mlp.cc (hand-fused Eigen) and
// torch_overhead.py run in the same session.
//   bazel run //session:mlp_benchmark
#include <random>

#include "benchmark/benchmark.h"
#include "core/logging.h"
#include "core/tensor_types.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "session/session.h"

namespace minigraph {
namespace {

void BM_MlpTrainStep(benchmark::State& state) {
  const bool adam = state.range(0) == 1;
  const int threads = static_cast<int>(state.range(1));
  Scope root = Scope::NewRootScope();
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
  SessionOptions so;
  so.intra_op_threads = threads;
  so.inter_op_threads = 1;
  auto sess = NewSession(so);
  MG_CHECK(sess.ok());
  MG_CHECK((*sess)->Create(*root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  MG_CHECK((*sess)->Run({}, {}, {init.name()}, &out).ok());
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}, {"labels", labels}};
  const std::vector<std::string> targets = {train->name()};
  for (int i = 0; i < 20; ++i) MG_CHECK((*sess)->Run(feeds, {}, targets, &out).ok());
  for (auto _ : state) {
    absl::Status s = (*sess)->Run(feeds, {}, targets, &out);
    MG_CHECK(s.ok()) << s;
  }
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_MlpTrainStep)
    ->ArgNames({"adam", "threads"})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 1})
    ->Args({1, 2})
    ->UseRealTime();

}  // namespace
}  // namespace minigraph
