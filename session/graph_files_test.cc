// The graph-file readers on an in-memory Env: each kind of file, each in its
// binary and text forms, and what is missing or does not parse.
#include "session/graph_files.h"

#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

MetaGraphDef TaggedMeta(std::initializer_list<const char*> tags, const char* node) {
  MetaGraphDef meta;
  for (const char* t : tags) meta.mutable_meta_info_def()->add_tags(t);
  NodeDef* n = meta.mutable_graph_def()->add_node();
  n->set_name(node);
  n->set_op("NoOp");
  return meta;
}

class GraphFilesTest : public ::testing::Test {
 protected:
  void Write(const std::string& path, const std::string& bytes) {
    ASSERT_OK(WriteStringToFile(&env_, path, bytes));
  }
  MemEnv env_;
};

TEST_F(GraphFilesTest, ReadsASavedModelBinaryOrText) {
  SavedModel model;
  *model.add_meta_graphs() = TaggedMeta({"serve"}, "a");
  ASSERT_OK(env_.CreateDir("/bin"));
  Write("/bin/saved_model.pb", model.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(SavedModel read, ReadSavedModel(&env_, "/bin"));
  EXPECT_EQ(read.meta_graphs(0).graph_def().node(0).name(), "a");

  ASSERT_OK(env_.CreateDir("/text"));
  Write("/text/saved_model.pbtxt",
        "meta_graphs { meta_info_def { tags: 'serve' } graph_def { node { name: 'b' op: 'NoOp' "
        "} } }");
  ASSERT_OK_AND_ASSIGN(read, ReadSavedModel(&env_, "/text"));
  EXPECT_EQ(read.meta_graphs(0).graph_def().node(0).name(), "b");
}

TEST_F(GraphFilesTest, SavedModelErrorsNameTheDirectoryOrFile) {
  ASSERT_OK(env_.CreateDir("/empty"));
  EXPECT_THAT(ReadSavedModel(&env_, "/empty"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("SavedModel not found in export directory: /empty (no "
                                 "saved_model.pb or saved_model.pbtxt)")));
  ASSERT_OK(env_.CreateDir("/bad"));
  Write("/bad/saved_model.pb", "\xff\x00garbage");
  EXPECT_THAT(ReadSavedModel(&env_, "/bad"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/bad/saved_model.pb is not a SavedModel")));
  ASSERT_OK(env_.CreateDir("/badtext"));
  Write("/badtext/saved_model.pbtxt", "meta_graphs { nonsense: 1 }");
  EXPECT_THAT(ReadSavedModel(&env_, "/badtext"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/badtext/saved_model.pbtxt is not a SavedModel (")));
}

TEST_F(GraphFilesTest, FindsTheMetaGraphWithExactlyTheTags) {
  SavedModel model;
  *model.add_meta_graphs() = TaggedMeta({"serve", "gpu"}, "gpu");
  *model.add_meta_graphs() = TaggedMeta({"serve"}, "cpu");
  ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, FindMetaGraph(model, {"serve"}, "/m"));
  EXPECT_EQ(meta.graph_def().node(0).name(), "cpu");
  ASSERT_OK_AND_ASSIGN(meta, FindMetaGraph(model, {"gpu", "serve"}, "/m"));
  EXPECT_EQ(meta.graph_def().node(0).name(), "gpu");
  EXPECT_THAT(FindMetaGraph(model, {"train"}, "/m"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Could not find meta graph def matching supplied tags: { train "
                                 "}. The SavedModel in /m has: { serve gpu }, { serve }")));
  EXPECT_THAT(FindMetaGraph(SavedModel(), {"serve"}, "/m"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("/m has: no meta graph")));
}

TEST_F(GraphFilesTest, ReadsAMetaGraphFileBinaryOrText) {
  Write("/m.meta", TaggedMeta({}, "x").SerializeAsString());
  ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, ReadMetaGraphFile(&env_, "/m.meta"));
  EXPECT_EQ(meta.graph_def().node(0).name(), "x");
  Write("/m.pbtxt", "graph_def { node { name: 'y' op: 'NoOp' } }");
  ASSERT_OK_AND_ASSIGN(meta, ReadMetaGraphFile(&env_, "/m.pbtxt"));
  EXPECT_EQ(meta.graph_def().node(0).name(), "y");
  Write("/bad.meta", "\xff\x00garbage");
  EXPECT_THAT(ReadMetaGraphFile(&env_, "/bad.meta"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("/bad.meta is not a MetaGraphDef (binary, or text: ")));
  EXPECT_THAT(ReadMetaGraphFile(&env_, "/none.meta"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(GraphFilesTest, LoadsEachKindWithItsSaverAndCheckpoint) {
  SavedModel model;
  *model.add_meta_graphs() = TaggedMeta({"train"}, "training");
  MetaGraphDef serve = TaggedMeta({"serve"}, "serving");
  serve.mutable_saver_def()->set_restore_op_name("save/restore_all");
  *model.add_meta_graphs() = serve;
  ASSERT_OK(env_.CreateDir("/sm"));
  Write("/sm/saved_model.pb", model.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(GraphFile file, LoadGraphFile(&env_, "/sm"));
  EXPECT_EQ(file.graph.node(0).name(), "serving");
  ASSERT_TRUE(file.saver.has_value());
  EXPECT_EQ(file.saver->restore_op_name(), "save/restore_all");
  EXPECT_EQ(file.default_checkpoint, "/sm/variables/variables");

  ASSERT_OK(env_.CreateDir("/ck"));
  Write("/ck/model.ckpt-5.meta", serve.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(file, LoadGraphFile(&env_, "/ck/model.ckpt-5.meta"));
  EXPECT_EQ(file.graph.node(0).name(), "serving");
  EXPECT_TRUE(file.saver.has_value());
  EXPECT_EQ(file.default_checkpoint, "/ck/model.ckpt-5");

  Write("/g.pb", serve.graph_def().SerializeAsString());
  ASSERT_OK_AND_ASSIGN(file, LoadGraphFile(&env_, "/g.pb"));
  EXPECT_EQ(file.graph.node(0).name(), "serving");
  EXPECT_FALSE(file.saver.has_value());
  EXPECT_EQ(file.default_checkpoint, "");
  Write("/g.pbtxt", "node { name: 't' op: 'NoOp' }");
  ASSERT_OK_AND_ASSIGN(file, LoadGraphFile(&env_, "/g.pbtxt"));
  EXPECT_EQ(file.graph.node(0).name(), "t");
}

TEST_F(GraphFilesTest, WhatIsNoGraphIsDataLossNamingIt) {
  for (const char* path : {"/bad.meta", "/bad.pbtxt", "/bad.pb"}) {
    Write(path, "\xff\x00garbage");
    EXPECT_THAT(LoadGraphFile(&env_, path),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr(std::string(path) + " is not a graph: neither a MetaGraphDef")))
        << path;
  }
  EXPECT_THAT(LoadGraphFile(&env_, "/none.pb"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK(env_.CreateDir("/nomodel"));
  EXPECT_THAT(LoadGraphFile(&env_, "/nomodel"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("SavedModel not found")));
  ASSERT_OK(env_.CreateDir("/nometa"));
  Write("/nometa/saved_model.pb", "");
  EXPECT_THAT(LoadGraphFile(&env_, "/nometa"),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("the SavedModel in /nometa has no meta graph")));
}

}  // namespace
}  // namespace minigraph
