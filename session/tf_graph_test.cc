// A whole graph and checkpoint written by TensorFlow 1.x, run in minigraph:
// the TD-Checkers value network (../shared/testdata), from its .meta file
// (191 nodes: a two-layer sigmoid net, TD(lambda) eligibility traces,
// exponential decay with Pow and Floor, scalar and histogram summaries).
// Restored through its own SaverDef, its forward pass matches the same
// math done here from the checkpoint's tensors, and its training step runs
// with all twelve summaries.
//
// And a TensorFlow 1.7 Estimator (DNNLinearCombinedClassifier, 2477 nodes):
// its tf.data input pipeline (TextLineDataset -> ShuffleDataset ->
// ParallelMapDataset over a DecodeCSV function -> RepeatDataset ->
// BatchDataset), hash-table feature columns, and its FTRL + Adagrad
// training step, from checkpoint 3760 on.
#include <cmath>

#include "checkpoint/bundle_reader.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/summary.pb.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/import_graph.h"
#include "session/session.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

TEST(TensorFlowGraphTest, RunsTdCheckersFromItsMetaGraphAndCheckpoint) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string base =
      JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints");
  const std::string prefix = JoinPath(base, "checkpoint-779049");
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(Env::Default(), prefix + ".meta"));
  MetaGraphDef meta;
  ASSERT_TRUE(meta.ParseFromString(bytes));
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(meta.graph_def()));

  // Restore through the graph's own save/restore ops.
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{meta.saver_def().filename_tensor_name(),
                        Tensor::Scalar<std::string>(prefix)}},
                      {}, {meta.saver_def().restore_op_name()}, &out));

  // Forward pass: V(x) = sigmoid(sigmoid(x W1 + b1) W2 + b2), in double here.
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), prefix));
  ASSERT_OK_AND_ASSIGN(Tensor w1, reader->Lookup("layer1/weight"));
  ASSERT_OK_AND_ASSIGN(Tensor b1, reader->Lookup("layer1/bias"));
  ASSERT_OK_AND_ASSIGN(Tensor w2, reader->Lookup("layer2/weight"));
  ASSERT_OK_AND_ASSIGN(Tensor b2, reader->Lookup("layer2/bias"));
  ASSERT_EQ(w1.dim_size(0), 69);
  const int64_t hidden = w1.dim_size(1);
  Tensor x(DT_FLOAT, TensorShape({1, 69}));
  for (int i = 0; i < 69; ++i) x.data<float>()[i] = static_cast<float>((i * 7) % 3) - 1.0f;
  double v = b2.data<float>()[0];
  for (int64_t h = 0; h < hidden; ++h) {
    double a = b1.data<float>()[h];
    for (int i = 0; i < 69; ++i) a += x.data<float>()[i] * w1.data<float>()[i * hidden + h];
    v += w2.data<float>()[h] / (1.0 + std::exp(-a));
  }
  const double want = 1.0 / (1.0 + std::exp(-v));
  ASSERT_OK(sess->Run({{"x:0", x}}, {"layer2/activation:0", "global_step:0"}, {}, &out));
  EXPECT_NEAR(out[0].data<float>()[0], want, 1e-5);
  ASSERT_OK_AND_ASSIGN(Tensor step, reader->Lookup("global_step"));
  EXPECT_EQ(*out[1].data<int32_t>(), *step.data<int32_t>()) << "restored global_step";

  // One TD(lambda) training step, with every summary.
  Tensor v_next(DT_FLOAT, TensorShape({1, 1}));
  v_next.data<float>()[0] = 0.75f;
  ASSERT_OK(sess->Run({{"x:0", x}, {"V_next:0", v_next}}, {"Merge/MergeSummary:0"}, {"train"},
                      &out));
  Summary summary;
  ASSERT_TRUE(summary.ParseFromString(*out[0].data<std::string>()));
  ASSERT_EQ(summary.value_size(), 12);
  EXPECT_EQ(summary.value(0).tag(), "lambda_1");
  EXPECT_EQ(summary.value(3).tag(), "V");
  EXPECT_NEAR(summary.value(3).simple_value(), want, 1e-5);  // V before the update
  EXPECT_NEAR(summary.value(2).simple_value(), 0.75, 1e-6);  // V_next
  for (int i = 4; i < 12; ++i) {
    EXPECT_TRUE(summary.value(i).has_histo()) << summary.value(i).tag();
    EXPECT_GT(summary.value(i).histo().num(), 0) << summary.value(i).tag();
  }
  ASSERT_OK(sess->Run({}, {"global_step:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<int32_t>(), *step.data<int32_t>() + 1);
}

// One line of the Estimator's CSV: 20 columns of the types its DecodeCSV
// record_defaults give (int32 0-2, string 3, float 4-5, int32 6-9, float
// 10-16, string 17-19); the last is the label, "increase" or not.
std::string IpoCsvLine(int i) {
  static const char* const kCountries[] = {"Israel", "India", "Denmark", "Mexico"};
  static const char* const kExchanges[] = {"NYSE", "NasdaqGM", "SEHK", "OB"};
  static const char* const kIndustries[] = {"Consumer Finance", "Brewers", "Advertising",
                                            "Application Software"};
  return absl::StrCat(
      1 + i % 28, ",", 1 + i % 12, ",", 2000 + i % 18, ",", kIndustries[i % 4], ",", 10.0 + i % 7,
      ",", 0.25 * (i % 5), ",", 1 + (i * 7) % 28, ",", 1 + (i * 5) % 12, ",", 2001 + i % 17, ",",
      (i * 37) % 400, ",", 1e6 * (1 + i % 9), ",", 0.1 * (i % 10), ",", 0.05 * (i % 3), ",",
      1.5 * (i % 4), ",", 2.0 + i % 3, ",", 0.3 * (i % 6), ",", 0.01 * i, ",", kCountries[i % 4],
      ",", kExchanges[(i / 4) % 4], ",", i % 3 == 0 ? "increase" : "decrease");
}

TEST(TensorFlowGraphTest, TrainsAnEstimatorThroughItsTfDataPipeline) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string base = JoinPath(dir, "tf_checkpoints/lcferrara4__IPOpredictor/data_model");
  ASSERT_OK_AND_ASSIGN(std::string bytes,
                       ReadFileToString(Env::Default(), JoinPath(base, "model.ckpt-3760.meta")));
  MetaGraphDef meta;
  ASSERT_TRUE(meta.ParseFromString(bytes));

  // The session's files: the checkpoint, and the CSV file at the path the
  // graph's TextLineDataset names ("./data/ipo_data.csv"), 100 rows.
  MemEnv env;
  for (const char* suffix : {".index", ".data-00000-of-00001"}) {
    ASSERT_OK_AND_ASSIGN(
        std::string file,
        ReadFileToString(Env::Default(), JoinPath(base, "model.ckpt-3760") + suffix));
    ASSERT_OK(WriteStringToFile(&env, std::string("/ckpt/model.ckpt-3760") + suffix, file));
  }
  std::string csv;
  for (int i = 0; i < 100; ++i) absl::StrAppend(&csv, IpoCsvLine(i), "\n");
  ASSERT_OK(WriteStringToFile(&env, "./data/ipo_data.csv", csv));

  SessionOptions options;
  options.env = &env;
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(options));
  ASSERT_OK(sess->Create(meta.graph_def()));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{meta.saver_def().filename_tensor_name(),
                        Tensor::Scalar<std::string>("/ckpt/model.ckpt-3760")}},
                      {}, {meta.saver_def().restore_op_name()}, &out));
  // The Estimator's Scaffold: local_init_op (tables, local variables), then
  // the dataset initializer hook's MakeIterator.
  ASSERT_OK(sess->Run({}, {}, {"group_deps_2", "MakeIterator"}, &out));
  ASSERT_OK(sess->Run({}, {"concat:0"}, {}, &out));
  EXPECT_EQ(out[0].NumElements(), 0) << "ready_op reports nothing uninitialized";

  // 2 epochs of 100 rows in batches of 40: 5 steps, then the end.
  for (int step = 0; step < 5; ++step) {
    ASSERT_OK(sess->Run({}, {"head/weighted_loss/Sum:0", "head/predictions/probabilities:0"},
                        {"AssignAdd"}, &out))
        << "step " << step;
    const float loss = *out[0].data<float>();
    EXPECT_TRUE(std::isfinite(loss)) << "step " << step;
    EXPECT_GT(loss, 0) << "step " << step;
    const Tensor& p = out[1];
    ASSERT_EQ(p.dims(), 2);
    EXPECT_EQ(p.dim_size(0), 40) << "step " << step;
    EXPECT_EQ(p.dim_size(1), 2);
    for (int64_t r = 0; r < p.dim_size(0); ++r) {
      EXPECT_NEAR(p.data<float>()[2 * r] + p.data<float>()[2 * r + 1], 1.0, 1e-5);
    }
  }
  ASSERT_OK(sess->Run({}, {"global_step:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<int64_t>(), 3765);
  EXPECT_TRUE(absl::IsOutOfRange(sess->Run({}, {}, {"AssignAdd"}, &out)))
      << "the pipeline's two epochs are over";
}

// Both meta graphs import into the graph-building API whole, and TD-Checkers
// is then differentiated again: dV/dW1 and dV/db2 by AddSymbolicGradients on
// the imported graph, against the same derivatives worked out here from the
// checkpoint's tensors.
TEST(TensorFlowGraphTest, ImportsMetaGraphsAndDifferentiatesTdCheckersAgain) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  for (const char* path : {"HamBamLam__TD-Checkers-LiamBurke/checkpoints/checkpoint-779049.meta",
                           "lcferrara4__IPOpredictor/data_model/model.ckpt-3760.meta"}) {
    ASSERT_OK_AND_ASSIGN(
        std::string bytes,
        ReadFileToString(Env::Default(), JoinPath(JoinPath(dir, "tf_checkpoints"), path)));
    MetaGraphDef meta;
    ASSERT_TRUE(meta.ParseFromString(bytes));
    Scope root = Scope::NewRootScope();
    ASSERT_OK(ImportMetaGraphDef(root, meta)) << path;
    EXPECT_EQ(root.AllOps().size(), static_cast<size_t>(meta.graph_def().node_size())) << path;
    ASSERT_OK_AND_ASSIGN(MetaGraphDef again, root.ToMetaGraphDef());
    EXPECT_EQ(again.saver_def().restore_op_name(), meta.saver_def().restore_op_name()) << path;
    EXPECT_EQ(again.collection_def().size(), meta.collection_def().size()) << path;
  }

  const std::string prefix = JoinPath(
      dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints/checkpoint-779049");
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(Env::Default(), prefix + ".meta"));
  MetaGraphDef meta;
  ASSERT_TRUE(meta.ParseFromString(bytes));
  Scope root = Scope::NewRootScope();
  ASSERT_OK(ImportMetaGraphDef(root, meta));
  ASSERT_OK_AND_ASSIGN(Operation value, root.FindOp("layer2/activation"));
  ASSERT_OK_AND_ASSIGN(Operation w1, root.FindOp("layer1/weight"));
  ASSERT_OK_AND_ASSIGN(Operation b2, root.FindOp("layer2/bias"));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {value.output(0)}, {w1.output(0), b2.output(0)}, &grads));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(
      sess->Run({{meta.saver_def().filename_tensor_name(), Tensor::Scalar<std::string>(prefix)}},
                {}, {meta.saver_def().restore_op_name()}, &out));
  Tensor x(DT_FLOAT, TensorShape({1, 69}));
  for (int i = 0; i < 69; ++i) x.data<float>()[i] = static_cast<float>((i * 5) % 3) - 1.0f;
  ASSERT_OK(sess->Run({{"x:0", x}}, {grads[0].name(), grads[1].name()}, {}, &out));

  // V = sigmoid(sum_h w2[h] s_h + b2), s_h = sigmoid(sum_i x_i W1[i,h] + b1[h]):
  // dV/db2 = V (1 - V); dV/dW1[i,h] = V (1 - V) w2[h] s_h (1 - s_h) x_i.
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(Env::Default(), prefix));
  ASSERT_OK_AND_ASSIGN(Tensor tw1, reader->Lookup("layer1/weight"));
  ASSERT_OK_AND_ASSIGN(Tensor tb1, reader->Lookup("layer1/bias"));
  ASSERT_OK_AND_ASSIGN(Tensor tw2, reader->Lookup("layer2/weight"));
  ASSERT_OK_AND_ASSIGN(Tensor tb2, reader->Lookup("layer2/bias"));
  const int64_t hidden = tw1.dim_size(1);
  std::vector<double> s(hidden);
  double z = tb2.data<float>()[0];
  for (int64_t h = 0; h < hidden; ++h) {
    double a = tb1.data<float>()[h];
    for (int i = 0; i < 69; ++i) a += x.data<float>()[i] * tw1.data<float>()[i * hidden + h];
    s[h] = 1.0 / (1.0 + std::exp(-a));
    z += tw2.data<float>()[h] * s[h];
  }
  const double v = 1.0 / (1.0 + std::exp(-z));
  ASSERT_EQ(out[0].shape(), tw1.shape());
  ASSERT_EQ(out[1].NumElements(), 1);
  EXPECT_NEAR(out[1].data<float>()[0], v * (1 - v), 1e-6);
  for (int i = 0; i < 69; ++i) {
    for (int64_t h = 0; h < hidden; ++h) {
      const double want =
          v * (1 - v) * tw2.data<float>()[h] * s[h] * (1 - s[h]) * x.data<float>()[i];
      ASSERT_NEAR(out[0].data<float>()[i * hidden + h], want, 1e-6)
          << "W1[" << i << "," << h << "]";
    }
  }
}

}  // namespace
}  // namespace minigraph
