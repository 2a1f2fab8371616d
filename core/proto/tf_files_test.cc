// Parses files that real TensorFlow wrote with our protos.
#include <string>

#include "absl/container/flat_hash_map.h"
#include "core/env.h"
#include "core/path.h"
#include "core/proto/meta_graph.pb.h"
#include "core/status_matchers.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

absl::flat_hash_map<std::string, int> CountOps(const GraphDef& g) {
  absl::flat_hash_map<std::string, int> n;
  for (const NodeDef& node : g.node()) ++n[node.op()];
  return n;
}

void ReadMeta(const std::string& path, MetaGraphDef* meta) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, ReadFileToString(Env::Default(), path));
  ASSERT_TRUE(meta->ParseFromString(bytes)) << path;
  // Nothing is dropped: fields we do not model stay as unknown fields.
  EXPECT_EQ(meta->ByteSizeLong(), bytes.size()) << path;
}

TEST(TfFilesTest, TdCheckersMetaGraphs) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string ckpts =
      JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/checkpoints");
  struct Case {
    const char* file;
    int nodes;
    const char* tf_version;
  };
  for (const Case& c : {Case{"checkpoint-779049.meta", 191, "1.14.0"},
                        Case{"checkpoint-100815.meta", 207, "1.14.0"},
                        Case{"checkpoint-14882021.meta", 419, "0.12.1"}}) {
    SCOPED_TRACE(c.file);
    MetaGraphDef meta;
    ReadMeta(JoinPath(ckpts, c.file), &meta);
    EXPECT_EQ(meta.graph_def().node_size(), c.nodes);
    EXPECT_EQ(meta.meta_info_def().tensorflow_version(), c.tf_version);
    EXPECT_GT(meta.meta_info_def().stripped_op_list().op_size(), 0);
    const SaverDef& saver = meta.saver_def();
    EXPECT_EQ(saver.filename_tensor_name(), "save/Const:0");
    EXPECT_EQ(saver.save_tensor_name(), "save/control_dependency:0");
    EXPECT_EQ(saver.restore_op_name(), "save/restore_all");
    EXPECT_EQ(saver.max_to_keep(), 1);
    EXPECT_EQ(saver.version(), SaverDef::V2);
    auto ops = CountOps(meta.graph_def());
    EXPECT_EQ(ops["SaveV2"], 1);
    EXPECT_GE(ops["RestoreV2"], 1);  // TF 0.12 restored each variable separately
    ASSERT_TRUE(meta.collection_def().contains("trainable_variables"));
    EXPECT_TRUE(meta.collection_def().at("variables").has_bytes_list());
  }
  MetaGraphDef meta;
  ReadMeta(JoinPath(ckpts, "checkpoint-779049.meta"), &meta);
  auto ops = CountOps(meta.graph_def());
  EXPECT_EQ(ops["VariableV2"], 10);
  EXPECT_EQ(ops["Const"], 52);
  EXPECT_EQ(ops["Assign"], 25);
  EXPECT_EQ(ops["MatMul"], 6);
  EXPECT_EQ(ops["RestoreV2"], 1);
}

// Keeps the expected "no field named library" warnings out of the test log.
class SilentErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    ADD_FAILURE() << line << ":" << column << ": " << message;
  }
  void AddWarning(int, int, const std::string&) override {}
};

TEST(TfFilesTest, EstimatorMetaGraphAndTextGraphAgree) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string model = JoinPath(dir, "tf_checkpoints/lcferrara4__IPOpredictor/data_model");
  MetaGraphDef meta;
  ReadMeta(JoinPath(model, "model.ckpt-3760.meta"), &meta);
  EXPECT_EQ(meta.graph_def().node_size(), 2477);
  EXPECT_EQ(meta.meta_info_def().tensorflow_version(), "1.7.0");
  EXPECT_TRUE(meta.saver_def().sharded());
  EXPECT_EQ(meta.saver_def().save_tensor_name(), "save/Identity:0");
  EXPECT_EQ(meta.saver_def().max_to_keep(), 5);

  ASSERT_OK_AND_ASSIGN(std::string text,
                       ReadFileToString(Env::Default(), JoinPath(model, "graph.pbtxt")));
  GraphDef graph;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(true);  // `library` is not modelled
  SilentErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  ASSERT_TRUE(parser.ParseFromString(text, &graph));
  ASSERT_EQ(graph.node_size(), meta.graph_def().node_size());
  for (int i = 0; i < graph.node_size(); ++i) {
    ASSERT_EQ(graph.node(i).name(), meta.graph_def().node(i).name());
    ASSERT_EQ(graph.node(i).op(), meta.graph_def().node(i).op());
  }
  EXPECT_EQ(CountOps(graph)["MergeV2Checkpoints"], 1);
}

TEST(TfFilesTest, KerasSavedModel) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  ASSERT_OK_AND_ASSIGN(
      std::string bytes,
      ReadFileToString(Env::Default(),
                       JoinPath(dir, "tf_checkpoints/MurphyAdam__flask-ai/sentiment_model/"
                                     "saved_model.pb")));
  SavedModel sm;
  ASSERT_TRUE(sm.ParseFromString(bytes));
  EXPECT_EQ(sm.ByteSizeLong(), bytes.size());
  ASSERT_EQ(sm.meta_graphs_size(), 1);
  const MetaGraphDef& meta = sm.meta_graphs(0);
  EXPECT_EQ(meta.meta_info_def().tensorflow_version(), "2.15.0");
  ASSERT_EQ(meta.meta_info_def().tags_size(), 1);
  EXPECT_EQ(meta.meta_info_def().tags(0), "serve");
  EXPECT_EQ(meta.graph_def().node_size(), 108);
  EXPECT_TRUE(meta.signature_def().contains("serving_default"));
}

}  // namespace
}  // namespace minigraph
