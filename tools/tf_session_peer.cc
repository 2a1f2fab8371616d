// TensorFlow's own C++ client as the peer of minigraph's per-step overhead:
// Session::Run of libtensorflow_cc from the TensorFlow 2.21 wheel (the
// virtualenv of `tools/setup.sh tf`), on the graphs `tools/tf_bench.py
// session_graphs --export=DIR` writes, beside minigraph's BM_OneOpRun and
// BM_MlpTrainStep: a C++ call against a C++ call, where `tf_bench.py oneop`
// times TensorFlow's Python client.
//
//   tf_session_peer DIR [RUNS]
//
// Prints one JSON line: microseconds per Session::Run of DIR/oneop.meta's
// Const "c", and steps/s of DIR/mlp.meta's SGD step (x and labels fed
// every step, target "train") at 1 and 2 intra-op threads (one inter-op
// thread), the median of 5 repetitions of RUNS calls.
//
// Not part of the Bazel build (minigraph never links TensorFlow):
// tools/bench.sh compiles it with TensorFlow's own flags
// (tf.sysconfig.get_compile_flags) against the wheel's headers.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tensorflow/core/platform/env.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"
#include "tensorflow/core/public/session.h"

namespace {

void Check(const absl::Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "tf_session_peer: %s: %s\n", what, std::string(s.message()).c_str());
  std::exit(1);
}

std::unique_ptr<tensorflow::Session> Load(const std::string& path, int threads) {
  tensorflow::MetaGraphDef meta;
  Check(tensorflow::ReadBinaryProto(tensorflow::Env::Default(), path, &meta), path.c_str());
  tensorflow::SessionOptions options;
  options.config.set_intra_op_parallelism_threads(threads);
  options.config.set_inter_op_parallelism_threads(1);
  std::unique_ptr<tensorflow::Session> session(tensorflow::NewSession(options));
  Check(session->Create(meta.graph_def()), path.c_str());
  return session;
}

// The median of 5 repetitions of `runs` calls of `call`, in seconds per call.
template <typename Call>
double SecondsPerCall(int runs, Call call) {
  for (int i = 0; i < std::max(runs / 10, 10); ++i) call();
  std::vector<double> per_call;
  for (int r = 0; r < 5; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) call();
    per_call.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / runs);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tf_session_peer DIR [RUNS]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int runs = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::vector<tensorflow::Tensor> out;

  auto one = Load(dir + "/oneop.meta", 1);
  const double one_op = SecondsPerCall(runs * 10, [&] {
    Check(one->Run({}, {"c:0"}, {}, &out), "one op");
  });

  tensorflow::Tensor x(tensorflow::DT_FLOAT, tensorflow::TensorShape({32, 784}));
  tensorflow::Tensor labels(tensorflow::DT_INT64, tensorflow::TensorShape({32}));
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < x.NumElements(); ++i) x.flat<float>()(i) = normal(rng);
  for (int i = 0; i < 32; ++i) labels.flat<int64_t>()(i) = rng() % 10;
  double mlp[2];
  for (int threads = 1; threads <= 2; ++threads) {
    auto session = Load(dir + "/mlp.meta", threads);
    Check(session->Run({}, {}, {"init"}, nullptr), "mlp init");
    mlp[threads - 1] = 1.0 / SecondsPerCall(runs, [&] {
      Check(session->Run({{"x", x}, {"labels", labels}}, {}, {"train"}, &out), "mlp step");
    });
  }
  std::printf("{\"one_op_run_us\": %.3f, \"mlp_steps_per_s\": {\"1\": %.1f, \"2\": %.1f}}\n",
              one_op * 1e6, mlp[0], mlp[1]);
  return 0;
}
