// Executor and session overheads, and compute through a session against the
// same computation in plain Eigen, measured in one run.
//   bazel run //session:local_session_benchmark
#include <thread>

#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "core/allocator.h"
#include "core/logging.h"
#include "core/tensor_types.h"
#include "google/protobuf/text_format.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "session/monitored_session.h"
#include "session/session.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {
namespace {

// As the tools run (tools/flag_checks.cc): without the debug-mode deadlock
// detection Debian's Abseil is built with.
const bool kDeadlockDetectionOff = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return true;
}();

std::unique_ptr<Session> MakeSession(const Scope& root, int inter, int intra) {
  SessionOptions opts;
  opts.inter_op_threads = inter;
  opts.intra_op_threads = intra;
  auto s = NewSession(opts);
  MG_CHECK(s.ok()) << s.status();
  auto def = root.ToGraphDef();
  MG_CHECK(def.ok()) << def.status();
  MG_CHECK((*s)->Create(*def).ok());
  return *std::move(s);
}

void RunOrDie(Session* s, const std::vector<std::string>& fetches) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, fetches, {}, &out);
  MG_CHECK(st.ok()) << st;
}

// A chain of `n` scalar Adds: per-node executor cost.
void BM_ScalarChain(benchmark::State& state) {
  const int n = state.range(0);
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, 1.0f);
  Output one = ops::Const(root, 1.0f);
  for (int i = 0; i < n; ++i) x = ops::AddV2(root, x, one);
  ops::Identity(root.WithOpName("out"), x);
  auto s = MakeSession(root, 1, 1);
  RunOrDie(s.get(), {"out"});
  for (auto _ : state) RunOrDie(s.get(), {"out"});
  // Seconds per node (shown as a time: "us" means microseconds per node).
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ScalarChain)->Arg(1000);

// A while loop of 1000 iterations, each adding to a scalar counter and a
// 256-float vector: the cost of one iteration (frames, Merge/Switch, the
// back edge) with 1 and 2 inter-op threads.
void BM_WhileLoop(benchmark::State& state) {
  const int n = 1000;
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), ops::Const<float>(root, {0.f}, TensorShape({256}))},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, n));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)),
                ops::Add(b, v[1], ops::Const<float>(b, 1.f))};
      });
  auto s = MakeSession(root, state.range(0), 1);
  const std::vector<std::string> fetches = {out[0].name(), out[1].name()};
  RunOrDie(s.get(), fetches);
  for (auto _ : state) RunOrDie(s.get(), fetches);
  state.counters["per_iteration"] =
      benchmark::Counter(static_cast<double>(n) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WhileLoop)->Arg(1)->Arg(2)->UseRealTime();

// A while loop that pushes a 16-float tensor onto a TensorList `n` times
// (what a While's gradient and Keras' recurrent layers do each step), and
// one that pops them all again: the cost per push and pop, which stays flat
// as the list grows only when the list is updated in place.
void BM_TensorListPushPop(benchmark::State& state) {
  const int n = state.range(0);
  Scope root = Scope::NewRootScope();
  Output empty = root.AddOp("EmptyTensorList",
                            {{ops::Const<int32_t>(root, -1)}, {ops::Const<int32_t>(root, -1)}},
                            {{"element_dtype", MakeAttrValue(DT_FLOAT)}})
                     .output(0);
  Output item = ops::Const<float>(root, {1.f}, TensorShape({16}));
  std::vector<Output> pushed = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), empty},
      [n](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, n));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)),
                b.AddOp("TensorListPushBack", {{v[1]}, {ops::LoopInvariant(b, item)}}).output(0)};
      });
  std::vector<Output> popped = ops::WhileLoop(
      root, pushed,
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Operation pop = b.AddOp("TensorListPopBack", {{v[1]}, {ops::Const<int32_t>(b, -1)}},
                                {{"element_dtype", MakeAttrValue(DT_FLOAT)}});
        return {ops::Sub(b, v[0], ops::Const<int32_t>(b, 1)), pop.output(0)};
      });
  Output length = root.AddOp("TensorListLength", {{pushed[1]}}).output(0);
  auto s = MakeSession(root, 1, 1);
  std::vector<Tensor> out;
  MG_CHECK(s->Run({}, {length.name()}, {}, &out).ok());
  MG_CHECK(out[0].data<int32_t>()[0] == n) << "pushed " << out[0].data<int32_t>()[0];
  const std::vector<std::string> fetches = {popped[0].name()};
  RunOrDie(s.get(), fetches);
  for (auto _ : state) RunOrDie(s.get(), fetches);
  state.counters["per_push_pop"] =
      benchmark::Counter(static_cast<double>(n) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TensorListPushPop)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

// A training step of a tanh RNN (T = 32 steps, batch 32, 64 units): the
// gradients of sum(h_T) with respect to both weight matrices. Arg 0: the
// RNN as a TensorFlow 1 while loop, differentiated through stacks (each
// iteration's values pushed going forward, popped by a backward loop);
// arg 1: the same RNN unrolled into 32 copies of the cell, the baseline
// with no loop and no stacks.
void BM_RnnGradientStep(benchmark::State& state) {
  constexpr int kT = 32, kB = 32, kH = 64;
  const bool unrolled = state.range(0) == 1;
  // As `train` does: the stacks hold every iteration's values until the
  // backward loop pops them, and glibc would otherwise return that memory
  // to the kernel after each step (page faults on the next).
  RetainFreedMemory();
  Scope root = Scope::NewRootScope();
  Tensor x0(DT_FLOAT, TensorShape({kB, kH})), w0(DT_FLOAT, TensorShape({kH, kH}));
  x0.flat<float>().setRandom();
  w0.flat<float>().setRandom();
  w0.flat<float>() = w0.flat<float>() * 0.1f;
  Output x = ops::Const(root, x0);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT, PartialShape({kH, kH}));
  Output u = ops::Placeholder(root.WithOpName("u"), DT_FLOAT, PartialShape({kH, kH}));
  auto cell = [](const Scope& s, Output h, Output x, Output w, Output u) {
    return ops::Tanh(s, ops::Add(s, ops::MatMul(s, x, w), ops::MatMul(s, h, u)));
  };
  Output h = ops::Const(root, Tensor(DT_FLOAT, TensorShape({kB, kH})));
  if (unrolled) {
    for (int t = 0; t < kT; ++t) h = cell(root, h, x, w, u);
  } else {
    h = ops::WhileLoop(
        root, {ops::Const<int32_t>(root, 0), h},
        [](const Scope& c, const std::vector<Output>& v) {
          return ops::Less(c, v[0], ops::Const<int32_t>(c, kT));
        },
        [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
          return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)),
                  cell(b, v[1], ops::LoopInvariant(b, x), ops::LoopInvariant(b, w),
                       ops::LoopInvariant(b, u))};
        })[1];
  }
  Output loss = ops::Sum(root, h, ops::Const<int32_t>(root, {0, 1}));
  std::vector<Output> grads;
  MG_CHECK(AddSymbolicGradients(root, {loss}, {w, u}, &grads).ok());
  auto s = MakeSession(root, 2, 1);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"w", w0}, {"u", w0}};
  const std::vector<std::string> fetches = {grads[0].name(), grads[1].name()};
  std::vector<Tensor> out;
  MG_CHECK(s->Run(feeds, fetches, {}, &out).ok());
  for (auto _ : state) {
    absl::Status st = s->Run(feeds, fetches, {}, &out);
    MG_CHECK(st.ok()) << st;
  }
}
BENCHMARK(BM_RnnGradientStep)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

// The same RNN as TensorFlow 2 builds it: a While over a library function
// (its step: h <- tanh(x w + h u)). Arg 0: the forward loop alone; arg 1:
// the training step, the gradients of sum(h_T) with respect to w and u,
// which minigraph's gradient builds by keeping each iteration's values (the
// forward loop pushes them) for a backward loop. Their ratio is what the
// gradient costs in forward passes.
constexpr char kRnnFunctions[] = R"pb(
  function {
    signature {
      name: "rnn_cond"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "h" type: DT_FLOAT }
      input_arg { name: "x" type: DT_FLOAT }
      input_arg { name: "w" type: DT_FLOAT }
      input_arg { name: "u" type: DT_FLOAT }
      output_arg { name: "go_on" type: DT_BOOL }
    }
    node_def {
      name: "steps"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 32 } } }
    }
    node_def {
      name: "less"
      op: "Less"
      input: "i"
      input: "steps:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    ret { key: "go_on" value: "less:z:0" }
  }
  function {
    signature {
      name: "rnn_step"
      input_arg { name: "i" type: DT_INT32 }
      input_arg { name: "h" type: DT_FLOAT }
      input_arg { name: "x" type: DT_FLOAT }
      input_arg { name: "w" type: DT_FLOAT }
      input_arg { name: "u" type: DT_FLOAT }
      output_arg { name: "i_next" type: DT_INT32 }
      output_arg { name: "h_next" type: DT_FLOAT }
      output_arg { name: "x_out" type: DT_FLOAT }
      output_arg { name: "w_out" type: DT_FLOAT }
      output_arg { name: "u_out" type: DT_FLOAT }
    }
    node_def {
      name: "one"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } }
    }
    node_def {
      name: "inc"
      op: "AddV2"
      input: "i"
      input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } }
    }
    node_def {
      name: "xw"
      op: "MatMul"
      input: "x"
      input: "w"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node_def {
      name: "hu"
      op: "MatMul"
      input: "h"
      input: "u"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node_def {
      name: "sum"
      op: "AddV2"
      input: "xw:product:0"
      input: "hu:product:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node_def {
      name: "act"
      op: "Tanh"
      input: "sum:z:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    ret { key: "i_next" value: "inc:z:0" }
    ret { key: "h_next" value: "act:y:0" }
    ret { key: "x_out" value: "x" }
    ret { key: "w_out" value: "w" }
    ret { key: "u_out" value: "u" }
  }
)pb";

void BM_FunctionalRnnStep(benchmark::State& state) {
  constexpr int kB = 32, kH = 64;
  const bool gradient = state.range(0) == 1;
  RetainFreedMemory();
  Scope root = Scope::NewRootScope();
  FunctionDefLibrary library;
  MG_CHECK(google::protobuf::TextFormat::ParseFromString(kRnnFunctions, &library));
  root.AddFunctionLibrary(library);
  Tensor x0(DT_FLOAT, TensorShape({kB, kH})), w0(DT_FLOAT, TensorShape({kH, kH}));
  x0.flat<float>().setRandom();
  w0.flat<float>().setRandom();
  w0.flat<float>() = w0.flat<float>() * 0.1f;
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT, PartialShape({kH, kH}));
  Output u = ops::Placeholder(root.WithOpName("u"), DT_FLOAT, PartialShape({kH, kH}));
  AttrValue cond, body;
  cond.mutable_func()->set_name("rnn_cond");
  body.mutable_func()->set_name("rnn_step");
  AttrValue shapes;
  for (const PartialShape& p : {PartialShape({}), PartialShape({kB, kH}), PartialShape({kB, kH}),
                                PartialShape({kH, kH}), PartialShape({kH, kH})}) {
    p.AsProto(shapes.mutable_list()->add_shape());
  }
  Operation loop = root.AddOp(
      "While",
      {{ops::Const<int32_t>(root, 0), ops::Const(root, Tensor(DT_FLOAT, TensorShape({kB, kH}))),
        ops::Const(root, x0), w, u}},
      {{"cond", cond}, {"body", body}, {"output_shapes", shapes}});
  Output loss = ops::Sum(root, loop.output(1), ops::Const<int32_t>(root, {0, 1}));
  std::vector<std::string> fetches = {loss.name()};
  if (gradient) {
    std::vector<Output> grads;
    absl::Status st = AddSymbolicGradients(root, {loss}, {w, u}, &grads);
    MG_CHECK(st.ok()) << st;
    fetches = {grads[0].name(), grads[1].name()};
  }
  auto s = MakeSession(root, 2, 1);
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"w", w0}, {"u", w0}};
  std::vector<Tensor> out;
  MG_CHECK(s->Run(feeds, fetches, {}, &out).ok());
  for (auto _ : state) {
    absl::Status st = s->Run(feeds, fetches, {}, &out);
    MG_CHECK(st.ok()) << st;
  }
}
BENCHMARK(BM_FunctionalRnnStep)->Arg(0)->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);

// Session::Run on a graph of one op.
void BM_OneOpRun(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 1.0f);
  auto s = MakeSession(root, 1, 1);
  RunOrDie(s.get(), {"c"});
  for (auto _ : state) RunOrDie(s.get(), {"c"});
}
BENCHMARK(BM_OneOpRun);

// A SessionCreator of MakeSession's sessions over `root`.
class BenchCreator : public SessionCreator {
 public:
  explicit BenchCreator(const Scope& root) : root_(root) {
    auto def = root.ToGraphDef();
    MG_CHECK(def.ok()) << def.status();
    graph_ = *std::move(def);
  }
  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    return MakeSession(root_, 1, 1);
  }
  const GraphDef& graph() const override { return graph_; }

 private:
  const Scope root_;
  GraphDef graph_;
};

// A hook that fetches a tensor each step, as the global step's readers do.
class FetchingHook : public SessionRunHook {
 public:
  absl::Status BeforeRun(SessionRunContext*, SessionRunArgs* request) override {
    request->fetches = {"c"};
    return absl::OkStatus();
  }
};

// BM_OneOpRun's step through MonitoredSession::Run with `hooks` hooks that
// each fetch one tensor: the hooks' machinery per step (their requests
// merged, the fetches split back), beside BM_OneOpRun.
void BM_MonitoredOneOpRun(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 1.0f);
  HookList hooks;
  for (int i = 0; i < state.range(0); ++i) hooks.push_back(std::make_shared<FetchingHook>());
  auto s = MonitoredSession::Create(std::make_unique<BenchCreator>(root), hooks);
  MG_CHECK(s.ok()) << s.status();
  std::vector<Tensor> out;
  for (auto _ : state) MG_CHECK((*s)->Run({}, {"c"}, {}, &out).ok());
}
BENCHMARK(BM_MonitoredOneOpRun)->Arg(0)->Arg(3);

constexpr int kMatDim = 1024;

void BM_MatMulSession(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  Tensor a(DT_FLOAT, TensorShape({kMatDim, kMatDim}));
  a.flat<float>().setRandom();
  Output c = ops::Const(root, a);
  ops::MatMul(root.WithOpName("mm"), c, c);
  const int threads = state.range(0);
  auto s = MakeSession(root, 1, threads);
  RunOrDie(s.get(), {"mm"});
  for (auto _ : state) RunOrDie(s.get(), {"mm"});
  state.SetItemsProcessed(state.iterations() * 2LL * kMatDim * kMatDim * kMatDim);
}
BENCHMARK(BM_MatMulSession)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same product with Eigen called directly: the floor.
void BM_MatMulEigen(benchmark::State& state) {
  const int threads = state.range(0);
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  Eigen::Tensor<float, 2, Eigen::RowMajor> a(kMatDim, kMatDim), out(kMatDim, kMatDim);
  a.setRandom();
  Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
      Eigen::IndexPair<Eigen::DenseIndex>(1, 0)};
  for (auto _ : state) {
    // A fresh output each time, as a kernel allocates its output.
    Eigen::Tensor<float, 2, Eigen::RowMajor> fresh(kMatDim, kMatDim);
    fresh.device(device) = a.contract(a, dims);
    benchmark::DoNotOptimize(fresh.data());
  }
  state.SetItemsProcessed(state.iterations() * 2LL * kMatDim * kMatDim * kMatDim);
}
BENCHMARK(BM_MatMulEigen)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

constexpr int kUnarySize = 1 << 20;

// An element-wise op with vectorized math (Tanh) over 4 MiB of floats.
void BM_TanhSession(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  Tensor a(DT_FLOAT, TensorShape({kUnarySize}));
  a.flat<float>().setRandom();
  ops::Tanh(root.WithOpName("t"), ops::Const(root, a));
  auto s = MakeSession(root, 1, state.range(0));
  RunOrDie(s.get(), {"t"});
  for (auto _ : state) RunOrDie(s.get(), {"t"});
  state.SetBytesProcessed(state.iterations() * 2LL * kUnarySize * sizeof(float));
}
BENCHMARK(BM_TanhSession)->Arg(1)->Arg(2)->UseRealTime();

// The same with Eigen called directly: the floor.
void BM_TanhEigen(benchmark::State& state) {
  const int threads = state.range(0);
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  Eigen::Tensor<float, 1, Eigen::RowMajor> a(kUnarySize);
  a.setRandom();
  for (auto _ : state) {
    Eigen::Tensor<float, 1, Eigen::RowMajor> fresh(kUnarySize);
    fresh.device(device) = a.tanh();
    benchmark::DoNotOptimize(fresh.data());
  }
  state.SetBytesProcessed(state.iterations() * 2LL * kUnarySize * sizeof(float));
}
BENCHMARK(BM_TanhEigen)->Arg(1)->Arg(2)->UseRealTime();

// 64 independent 256x256 MatMuls: inter-op parallelism (intra-op off).
void BM_WideMatMuls(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> outs;
  for (int i = 0; i < 64; ++i) {
    Tensor a(DT_FLOAT, TensorShape({256, 256}));
    a.flat<float>().setRandom();
    Output c = ops::Const(root, a);
    outs.push_back(ops::MatMul(root, c, c));
  }
  std::vector<Operation> deps;
  for (const Output& o : outs) deps.push_back(o.op());
  ops::Group(root.WithOpName("all"), deps);
  auto s = MakeSession(root, state.range(0), 1);
  std::vector<Tensor> out;
  MG_CHECK(s->Run({}, {}, {"all"}, &out).ok());
  for (auto _ : state) MG_CHECK(s->Run({}, {}, {"all"}, &out).ok());
}
BENCHMARK(BM_WideMatMuls)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace minigraph
