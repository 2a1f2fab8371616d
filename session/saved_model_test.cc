// LoadSavedModel on a SavedModel in TensorFlow 1's layout written here: tag
// sets, the restore, the main op, signatures, and what goes wrong.
#include "session/saved_model.h"

#include <cmath>
#include <set>

#include "checkpoint/bundle_writer.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/saver.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SavedModelTest : public ::testing::Test {
 protected:
  // y = x * w, w = [2, 3] in the checkpoint (a resource variable); a local
  // counter that the main op initializes.
  void SetUp() override {
    options_.env = &mem_;
    Scope root = Scope::NewRootScope();
    Variable w = Variable::Create(root, "w", Tensor::Vector<float>({0, 0}), {.use_resource = true});
    Variable counter = Variable::Create(root, "counter", Tensor::Scalar<int64_t>(7),
                                        {.trainable = false, .collections = {kLocalVariables}});
    Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({2}));
    ops::Mul(root.WithOpName("y"), x, w.value());
    ops::AssignVariableOp(root.WithOpName("set_w"), w.ref(), ops::Const<float>(root, {2, 3}));
    Operation init = GlobalVariablesInitializer(root);
    Operation main_op = LocalVariablesInitializer(root);
    ASSERT_OK_AND_ASSIGN(auto saver, Saver::Create(root, {}, &mem_));
    ASSERT_OK_AND_ASSIGN(auto sess, NewSession(options_));
    ASSERT_OK(sess->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    ASSERT_OK(sess->Run({}, {}, {init.name()}, &out));
    ASSERT_OK(sess->Run({}, {}, {"set_w"}, &out));
    ASSERT_OK(mem_.CreateDir("/model"));
    ASSERT_OK(mem_.CreateDir("/model/variables"));
    ASSERT_OK(
        saver->Save(sess.get(), "/model/variables/variables", {.write_state = false}).status());
    ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, root.ToMetaGraphDef());
    meta.mutable_meta_info_def()->add_tags("serve");
    SignatureDef& sig = (*meta.mutable_signature_def())["serving_default"];
    (*sig.mutable_inputs())["x"].set_name("x:0");
    (*sig.mutable_outputs())["y"].set_name("y:0");
    sig.set_method_name("tensorflow/serving/predict");
    (*meta.mutable_collection_def())["saved_model_main_op"].mutable_node_list()->add_value(
        main_op.name());
    SavedModel model;
    *model.add_meta_graphs() = meta;
    ASSERT_OK(WriteStringToFile(&mem_, "/model/saved_model.pb", model.SerializeAsString()));
  }

  MemEnv mem_{Env::Default()};
  SessionOptions options_;
};

TEST_F(SavedModelTest, LoadsRestoresInitializesAndRunsSignatures) {
  ASSERT_OK_AND_ASSIGN(SavedModelBundle model, LoadSavedModel(options_, "/model", {"serve"}));
  ASSERT_OK_AND_ASSIGN(auto out,
                       model.Run("serving_default", {{"x", Tensor::Vector<float>({1, 10})}}));
  EXPECT_EQ(out.at("y").SummarizeValue(2), "2 30");
  std::vector<Tensor> counter;
  ASSERT_OK(model.session->Run({}, {"counter/read"}, {}, &counter));  // the main op ran
  EXPECT_EQ(counter[0].SummarizeValue(1), "7");
  EXPECT_THAT(model.Run("predict", {}),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("no signature 'predict'; the model has: serving_default")));
  EXPECT_THAT(model.Run("serving_default", {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs input 'x' (x:0)")));
  EXPECT_THAT(model.Run("serving_default", {{"z", Tensor::Vector<float>({1, 1})}}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("has no input 'z'")));
}

TEST_F(SavedModelTest, WhatGoesWrongSaysWhat) {
  EXPECT_THAT(LoadSavedModel(options_, "/model", {"serve", "gpu"}).status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Could not find meta graph def matching supplied tags: { gpu "
                                 "serve }. The SavedModel in /model has: { serve }")));
  EXPECT_THAT(LoadSavedModel(options_, "/nowhere", {"serve"}).status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("SavedModel not found in export directory: /nowhere")));
  ASSERT_OK(WriteStringToFile(&mem_, "/model/saved_model.pb", "\\xff not a proto"));
  EXPECT_THAT(LoadSavedModel(options_, "/model", {"serve"}).status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("is not a SavedModel")));
}

// A Keras model saved by TensorFlow 2 (../shared/testdata): TextVectorization
// (its string ops and vocabulary table), an Embedding, an LSTM (the CPU
// implementation: a StatelessWhile over TensorLists inside the function
// the signature calls) and a sigmoid, from raw text to a probability.
TEST_F(SavedModelTest, RunsAKerasTextClassifierFromRawText) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  ASSERT_OK_AND_ASSIGN(
      SavedModelBundle model,
      LoadSavedModel(SessionOptions(),
                     JoinPath(dir, "tf_checkpoints/MurphyAdam__flask-ai/sentiment_model"),
                     {"serve"}));
  Tensor text(DT_STRING, TensorShape({3}));
  text.data<std::string>()[0] = "What a wonderful film, I loved every minute of it";
  text.data<std::string>()[1] = "Terrible. Boring plot, awful acting, a waste of time";
  text.data<std::string>()[2] = "";
  ASSERT_OK_AND_ASSIGN(auto out,
                       model.Run("serving_default", {{"text_vectorization_input", text}}));
  const Tensor& p = out.at("activation_1");
  ASSERT_EQ(p.shape(), TensorShape({3, 1}));
  // The model applies a sigmoid twice (its last Dense layer's and an
  // Activation layer's): probabilities lie in [0.5, sigmoid(1) = 0.731].
  // The classifier is sure of both reviews, and unsure of no text.
  const float* prob = p.data<float>();
  EXPECT_GT(prob[0], 0.73f) << "the positive review";
  EXPECT_LT(prob[1], 0.501f) << "the negative review";
  EXPECT_GT(prob[2], prob[1]) << "no text";
  EXPECT_LT(prob[2], prob[0]) << "no text";
  // The same text alone gives the same probability (no state between runs).
  ASSERT_OK_AND_ASSIGN(
      auto again,
      model.Run("serving_default", {{"text_vectorization_input",
                                     Tensor::Vector<std::string>({text.data<std::string>()[1]})}}));
  EXPECT_NEAR(again.at("activation_1").data<float>()[0], prob[1], 1e-6);
}

// The same Keras SavedModel with its SaverDef taken out: the variables are
// restored by TensorFlow 2's object graph instead (each variable object's
// checkpoint key from the checkpoint's object graph, its handle from the
// calls that capture it), and the model answers as with its Saver.
TEST_F(SavedModelTest, WithoutASaverDefTheObjectGraphRestores) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  const std::string src = JoinPath(dir, "tf_checkpoints/MurphyAdam__flask-ai/sentiment_model");
  ASSERT_OK_AND_ASSIGN(SavedModelBundle with_saver,
                       LoadSavedModel(SessionOptions(), src, {"serve"}));
  ASSERT_OK_AND_ASSIGN(std::string bytes,
                       ReadFileToString(Env::Default(), JoinPath(src, "saved_model.pb")));
  SavedModel model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  ASSERT_EQ(model.meta_graphs_size(), 1);
  ASSERT_TRUE(model.meta_graphs(0).has_object_graph_def());
  model.mutable_meta_graphs(0)->clear_saver_def();
  MemEnv mem(Env::Default());
  ASSERT_OK(mem.CreateDir("/copy"));
  ASSERT_OK(mem.CreateDir("/copy/variables"));
  ASSERT_OK(WriteStringToFile(&mem, "/copy/saved_model.pb", model.SerializeAsString()));
  for (const char* f : {"variables.index", "variables.data-00000-of-00001"}) {
    ASSERT_OK_AND_ASSIGN(std::string data,
                         ReadFileToString(Env::Default(), JoinPath(JoinPath(src, "variables"), f)));
    ASSERT_OK(WriteStringToFile(&mem, JoinPath("/copy/variables", f), data));
  }
  SessionOptions options;
  options.env = &mem;
  ASSERT_OK_AND_ASSIGN(SavedModelBundle by_objects, LoadSavedModel(options, "/copy", {"serve"}));
  EXPECT_FALSE(by_objects.meta_graph.has_saver_def());
  Tensor text(DT_STRING, TensorShape({2}));
  text.data<std::string>()[0] = "What a wonderful film, I loved every minute of it";
  text.data<std::string>()[1] = "";
  ASSERT_OK_AND_ASSIGN(auto a,
                       with_saver.Run("serving_default", {{"text_vectorization_input", text}}));
  ASSERT_OK_AND_ASSIGN(auto b,
                       by_objects.Run("serving_default", {{"text_vectorization_input", text}}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(a.at("activation_1").data<float>()[i], b.at("activation_1").data<float>()[i]) << i;
  }
  // Checkpoints that cannot serve the object graph say why: one without its
  // object graph, one whose object graph is not one, one whose object graph
  // has no value for the variables.
  auto rewrite = [&](const std::string* object_graph) {
    ASSERT_OK(mem.DeleteFile("/copy/variables/variables.index"));
    ASSERT_OK(mem.DeleteFile("/copy/variables/variables.data-00000-of-00001"));
    ASSERT_OK_AND_ASSIGN(auto writer, BundleWriter::Create(&mem, "/copy/variables/variables"));
    ASSERT_OK(writer->Add("v", Tensor::Scalar<float>(1)));
    if (object_graph != nullptr) {
      ASSERT_OK(
          writer->Add("_CHECKPOINTABLE_OBJECT_GRAPH", Tensor::Scalar<std::string>(*object_graph)));
    }
    ASSERT_OK(writer->Finish());
  };
  rewrite(nullptr);
  EXPECT_THAT(LoadSavedModel(options, "/copy", {"serve"}).status(),
              StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("_CHECKPOINTABLE_OBJECT_GRAPH"),
                                                          HasSubstr("by its object graph"))));
  const std::string garbage = "\xff\xff\xff not a proto";
  rewrite(&garbage);
  EXPECT_THAT(LoadSavedModel(options, "/copy", {"serve"}).status(),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("_CHECKPOINTABLE_OBJECT_GRAPH is not a serialized "
                                 "TrackableObjectGraph")));
  const std::string empty = TrackableObjectGraph().SerializeAsString();
  rewrite(&empty);
  EXPECT_THAT(
      LoadSavedModel(options, "/copy", {"serve"}).status(),
      StatusIs(absl::StatusCode::kNotFound, AllOf(HasSubstr("has no value for variable"),
                                                  HasSubstr("of the SavedModel's object graph"))));
}

// The same Keras model, differentiated: its meta graph imported into a
// Scope, the gradients of the probability with respect to the last Dense
// layer's bias and the forward LSTM's kernel added (through the signature's
// StatefulPartitionedCall, the calls inside it and the LSTM's While over
// TensorLists) and run in the loaded session through Extend.
//
// With p = sigmoid(s) and s = sigmoid(z), dp/db = p (1 - p) s (1 - s), and
// s = log(p / (1 - p)). For the kernel K, along its gradient g:
// p(K + eg) - p(K - eg) = 2e |g|^2 to first order. No text, on which the
// classifier is unsure: on a review, s saturates and the gradients are 0.
TEST_F(SavedModelTest, DifferentiatesAKerasModelThroughItsCallsAndLstm) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  ASSERT_OK_AND_ASSIGN(
      SavedModelBundle model,
      LoadSavedModel(SessionOptions(),
                     JoinPath(dir, "tf_checkpoints/MurphyAdam__flask-ai/sentiment_model"),
                     {"serve"}));
  Scope root = Scope::NewRootScope();
  ASSERT_OK(ImportMetaGraphDef(root, model.meta_graph));
  const size_t imported = root.AllOps().size();
  ASSERT_OK_AND_ASSIGN(Operation call, root.FindOp("StatefulPartitionedCall"));
  ASSERT_OK_AND_ASSIGN(Operation bias, root.FindOp("dense_5/bias"));
  ASSERT_OK_AND_ASSIGN(Operation kernel,
                       root.FindOp("bidirectional_1/forward_lstm_1/lstm_cell/kernel"));
  std::vector<Output> grads;
  ASSERT_OK(
      AddSymbolicGradients(root, {call.output(0)}, {bias.output(0), kernel.output(0)}, &grads));
  Output delta = ops::Placeholder(root.WithOpName("delta"), DT_FLOAT);
  ops::AssignAddVariableOp(root.WithOpName("nudge"), kernel.output(0), delta);
  ASSERT_OK_AND_ASSIGN(GraphDef all, root.ToGraphDef());
  GraphDef added;
  for (int i = static_cast<int>(imported); i < all.node_size(); ++i) {
    *added.add_node() = all.node(i);
  }
  // The functions the gradient added: the LSTM While's rewritten body and
  // condition.
  std::set<std::string> loaded;
  for (const FunctionDef& f : model.meta_graph.graph_def().library().function()) {
    loaded.insert(f.signature().name());
  }
  for (const FunctionDef& f : all.library().function()) {
    if (!loaded.count(f.signature().name())) *added.mutable_library()->add_function() = f;
  }
  ASSERT_OK(model.session->Extend(added));

  const std::pair<std::string, Tensor> no_text = {"serving_default_text_vectorization_input:0",
                                                  Tensor::Vector<std::string>({""})};
  std::vector<Tensor> out;
  ASSERT_OK(model.session->Run(
      {no_text}, {"StatefulPartitionedCall:0", grads[0].name(), grads[1].name()}, {}, &out));
  ASSERT_EQ(out[1].NumElements(), 1);
  const double p = out[0].data<float>()[0];
  const double s = std::log(p / (1 - p));
  EXPECT_NEAR(out[1].data<float>()[0], p * (1 - p) * s * (1 - s), 1e-5);
  EXPECT_GT(out[1].data<float>()[0], 0.0f);

  const Tensor g = out[2];
  double norm2 = 0;
  for (int64_t i = 0; i < g.NumElements(); ++i)
    norm2 += double{g.data<float>()[i]} * g.data<float>()[i];
  ASSERT_GT(norm2, 0.0) << "the LSTM's kernel gets a gradient";
  const double e = 1e-2 / std::sqrt(norm2);
  auto nudge = [&](double by) {
    Tensor d(DT_FLOAT, g.shape());
    for (int64_t i = 0; i < g.NumElements(); ++i) {
      d.data<float>()[i] = static_cast<float>(by * g.data<float>()[i]);
    }
    ASSERT_OK(model.session->Run({{"delta", d}}, {}, {"nudge"}, nullptr));
  };
  auto prob = [&]() {
    std::vector<Tensor> o;
    EXPECT_OK(model.session->Run({no_text}, {"StatefulPartitionedCall:0"}, {}, &o));
    return o.empty() ? 0.0 : double{o[0].data<float>()[0]};
  };
  nudge(e);
  const double up = prob();
  nudge(-2 * e);
  const double down = prob();
  nudge(e);
  EXPECT_NEAR((up - down) / (2 * e), norm2, 0.01 * norm2);
}

}  // namespace
}  // namespace minigraph
