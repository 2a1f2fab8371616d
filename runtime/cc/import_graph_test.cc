// Graphs built elsewhere, imported into a Scope and extended: names, attrs,
// devices and the library kept, a TensorFlow 1 while loop's back edges, a
// prefix and an input map, a meta graph's collections and SaverDef, every
// malformed input named; and gradients through calls of library functions.
#include "runtime/cc/import_graph.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "session/session.h"
#include "tests/testing/function_library.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::vector<Tensor> RunGraph(const Scope& root,
                             const std::vector<std::pair<std::string, Tensor>>& feeds,
                             const std::vector<std::string>& fetches) {
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  auto session = NewSession(SessionOptions());
  EXPECT_OK(session.status());
  if (!def.ok() || !session.ok()) return {};
  EXPECT_OK((*session)->Create(*def));
  std::vector<Tensor> out;
  EXPECT_OK((*session)->Run(feeds, fetches, {}, &out));
  return out;
}

float Scalar(const Tensor& t) { return t.NumElements() == 1 ? t.data<float>()[0] : -1e30f; }

TEST(ImportGraphTest, AnImportedGraphKeepsItsNodesAndGrowsWithGradients) {
  Scope src = Scope::NewRootScope();
  Output x = ops::Placeholder(src.WithOpName("x"), DT_FLOAT);
  Output w = ops::Const(src.WithOpName("w").WithDevice("/job:ps/task:0"), 3.0f);
  Output y = ops::Mul(src.WithOpName("y"), x, w);
  ops::Square(src.WithOpName("loss").WithControlDependencies({w.op()}), y);
  ASSERT_OK_AND_ASSIGN(GraphDef def, src.ToGraphDef());

  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto imported, ImportGraphDef(root, def));
  EXPECT_EQ(imported.size(), 4u);
  ASSERT_OK_AND_ASSIGN(Operation loss, root.FindOp("loss"));
  EXPECT_EQ(root.GetNodeDef(loss).input(1), "^w");
  ASSERT_OK_AND_ASSIGN(Operation wop, root.FindOp("w"));
  EXPECT_EQ(root.GetNodeDef(wop).device(), "/job:ps/task:0");
  // The graph goes on growing: new names do not collide with the imported.
  Output extra = ops::Mul(root.WithOpName("y"), loss.output(0), loss.output(0));
  EXPECT_EQ(extra.name(), "y_1");
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss.output(0)}, {imported.at("x").output(0)}, &grads));
  // loss = (3x)^2, dloss/dx = 18x.
  std::vector<Tensor> out =
      RunGraph(root, {{"x", Tensor::Scalar(2.0f)}}, {"loss", grads[0].name()});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Scalar(out[0]), 36.0f);
  EXPECT_EQ(Scalar(out[1]), 36.0f);
}

TEST(ImportGraphTest, AWhileLoopsBackEdgesAreJoined) {
  Scope src = Scope::NewRootScope();
  ops::WhileLoop(
      src, {ops::Const<int32_t>(src, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 10));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 3))};
      });
  ASSERT_OK_AND_ASSIGN(GraphDef def, src.ToGraphDef());
  // Backwards, so that the importer must order the nodes itself.
  GraphDef reversed = def;
  reversed.clear_node();
  for (int i = def.node_size() - 1; i >= 0; --i) *reversed.add_node() = def.node(i);

  Scope root = Scope::NewRootScope();
  ASSERT_OK(ImportGraphDef(root, reversed).status());
  ASSERT_OK_AND_ASSIGN(Operation merge, root.FindOp("while/Merge"));
  EXPECT_EQ(root.GetNodeDef(merge).input(1), "while/NextIteration");
  std::vector<Tensor> out = RunGraph(root, {}, {"while/Exit"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data<int32_t>()[0], 12);
}

// A TensorFlow 1 loop from a GraphDef (given backwards) differentiates
// once imported: h = h * w + 1, three times, from h = x.
TEST(ImportGraphTest, AnImportedTensorFlow1LoopDifferentiates) {
  Scope src = Scope::NewRootScope();
  Output x = ops::Placeholder(src.WithOpName("x"), DT_FLOAT, PartialShape::Scalar());
  Output w = ops::Placeholder(src.WithOpName("w"), DT_FLOAT, PartialShape::Scalar());
  ops::WhileLoop(
      src, {ops::Const<int32_t>(src, 0), x},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 3));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)),
                ops::Add(b, ops::Mul(b, v[1], ops::LoopInvariant(b, w)), ops::Const(b, 1.0f))};
      });
  ASSERT_OK_AND_ASSIGN(GraphDef def, src.ToGraphDef());
  GraphDef reversed = def;
  reversed.clear_node();
  for (int i = def.node_size() - 1; i >= 0; --i) *reversed.add_node() = def.node(i);

  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto g, ImportGraphDef(root, reversed));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {g.at("while/Exit_1").output(0)},
                                 {g.at("x").output(0), g.at("w").output(0)}, &grads));
  const float xv = 0.5f, wv = 1.5f;
  std::vector<Tensor> out = RunGraph(root, {{"x", Tensor::Scalar(xv)}, {"w", Tensor::Scalar(wv)}},
                                     {"while/Exit_1", grads[0].name(), grads[1].name()});
  ASSERT_EQ(out.size(), 3u);
  // h = x w^3 + w^2 + w + 1.
  EXPECT_FLOAT_EQ(Scalar(out[0]), xv * wv * wv * wv + wv * wv + wv + 1);
  EXPECT_FLOAT_EQ(Scalar(out[1]), wv * wv * wv);
  EXPECT_FLOAT_EQ(Scalar(out[2]), 3 * xv * wv * wv + 2 * wv + 1);
}

TEST(ImportGraphTest, UnderAPrefixWithAnInputMap) {
  Scope src = Scope::NewRootScope();
  Output a = ops::Placeholder(src.WithOpName("a"), DT_FLOAT);
  ops::Add(src.WithOpName("sum"), a, ops::Const(src.WithOpName("one"), 1.0f));
  ASSERT_OK_AND_ASSIGN(GraphDef def, src.ToGraphDef());

  Scope root = Scope::NewRootScope();
  Output ten = ops::Const(root.WithOpName("ten"), 10.0f);
  ImportGraphDefOptions options;
  options.input_map["a"] = ten;
  ASSERT_OK(ImportGraphDef(root.NewSubScope("copy"), def, options).status());
  ASSERT_OK(ImportGraphDef(root.NewSubScope("copy"), def, options).status());
  ASSERT_OK_AND_ASSIGN(Operation sum, root.FindOp("copy/sum"));
  EXPECT_EQ(root.GetNodeDef(sum).input(0), "ten");
  EXPECT_EQ(root.GetNodeDef(sum).input(1), "copy/one");
  EXPECT_OK(root.FindOp("copy_1/sum").status());
  std::vector<Tensor> out = RunGraph(root, {}, {"copy/sum", "copy_1/sum"});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Scalar(out[0]), 11.0f);
  EXPECT_EQ(Scalar(out[1]), 11.0f);
}

TEST(ImportGraphTest, AMetaGraphBringsItsCollectionsAndSaverDef) {
  Scope src = Scope::NewRootScope();
  ops::Const(src.WithOpName("c"), 1.0f);
  src.AddToCollection("my_nodes", "c");
  src.AddBytesToCollection("my_bytes", "payload");
  SaverDef saver;
  saver.set_filename_tensor_name("save/Const:0");
  src.SetSaverDef(saver);
  ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, src.ToMetaGraphDef());

  Scope root = Scope::NewRootScope();
  ASSERT_OK(ImportMetaGraphDef(root, meta));
  EXPECT_EQ(root.GetCollection("my_nodes"), std::vector<std::string>{"c"});
  EXPECT_EQ(root.GetCollection("my_bytes"), std::vector<std::string>{"payload"});
  ASSERT_OK_AND_ASSIGN(MetaGraphDef again, root.ToMetaGraphDef());
  EXPECT_EQ(again.saver_def().filename_tensor_name(), "save/Const:0");
  EXPECT_THAT(ImportMetaGraphDef(Scope::NewRootScope().NewSubScope("s"), meta),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not under 's'")));
}

GraphDef Parse(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return def;
}

TEST(ImportGraphTest, WhatDoesNotImportIsNamedAndLeavesTheScopeAsItWas) {
  // All but the last are found before anything is added.
  const struct {
    const char* graph;
    absl::StatusCode code;
    const char* message;
  } kCases[] = {
      {R"pb(node { name: "a" op: "NoOp" }
            node { name: "a" op: "NoOp" })pb",
       absl::StatusCode::kInvalidArgument, "two nodes named 'a'"},
      {R"pb(node { name: "taken" op: "NoOp" })pb", absl::StatusCode::kInvalidArgument,
       "already has a node 'taken'"},
      {R"pb(node { name: "a" op: "NoSuchOp" })pb", absl::StatusCode::kNotFound,
       "imported node 'a'"},
      {R"pb(node { name: "a" op: "Identity" input: "ghost" })pb",
       absl::StatusCode::kInvalidArgument, "input 'ghost' names no node"},
      {R"pb(node { name: "a" op: "Identity" input: "b" }
            node { name: "b" op: "Identity" input: "a" })pb",
       absl::StatusCode::kInvalidArgument, "cycle through node 'a'"},
      {R"pb(node { name: "a" op: "NoOp" }
            node { name: "b" op: "Identity" input: "a:3" })pb",
       absl::StatusCode::kInvalidArgument, "names output 3 of 'a', which has 0"},
  };
  for (const auto& c : kCases) {
    Scope root = Scope::NewRootScope();
    ops::Const(root.WithOpName("taken"), 1.0f);
    EXPECT_THAT(ImportGraphDef(root, Parse(c.graph)).status(),
                StatusIs(c.code, HasSubstr(c.message)))
        << c.graph;
    if (&c != &kCases[std::size(kCases) - 1]) {
      EXPECT_OK(root.status()) << c.graph;
      EXPECT_EQ(root.AllOps().size(), 1u) << c.graph;
    }
  }
}

// A graph as TensorFlow 2 writes it: the library of tests/testing, called
// by StatefulPartitionedCall and PartitionedCall (one call inside another),
// and a resource variable read inside a function (kFunctionCallsText).

GraphDef CallsGraph() {
  GraphDef def = Parse(kFunctionCallsText);
  def.MergeFrom(Parse(kFunctionLibraryText));
  return def;
}

TEST(FunctionCallGradientTest, GradientsFlowThroughCallsAndCallsInsideThem) {
  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto g, ImportGraphDef(root, CallsGraph()));
  const Output x = g.at("x").output(0), y = g.at("y").output(0);
  // call = scale_add(x, y) = 2x + y;
  // nested = twice(x, y) = scale_add(scale_add(x, y), y) = 4x + 3y.
  std::vector<Output> d1, d2, d3;
  ASSERT_OK(AddSymbolicGradients(root, {g.at("call").output(0)}, {x, y}, &d1));
  ASSERT_OK(AddSymbolicGradients(root, {g.at("nested").output(0)}, {x, y}, &d2));
  // Both at once, weighted: 5 * (2x + y) + 7 * (4x + 3y).
  ASSERT_OK(AddSymbolicGradients(root, {g.at("call").output(0), g.at("nested").output(0)},
                                 {x, y}, {ops::Const(root, 5.0f), ops::Const(root, 7.0f)}, &d3));
  std::vector<Tensor> out =
      RunGraph(root, {{"x", Tensor::Scalar(1.5f)}, {"y", Tensor::Scalar(-2.0f)}},
               {"nested", d1[0].name(), d1[1].name(), d2[0].name(), d2[1].name(), d3[0].name(),
                d3[1].name()});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(Scalar(out[0]), 0.0f);
  EXPECT_EQ(Scalar(out[1]), 2.0f);
  EXPECT_EQ(Scalar(out[2]), 1.0f);
  EXPECT_EQ(Scalar(out[3]), 4.0f);
  EXPECT_EQ(Scalar(out[4]), 3.0f);
  EXPECT_EQ(Scalar(out[5]), 5 * 2 + 7 * 4.0f);
  EXPECT_EQ(Scalar(out[6]), 5 * 1 + 7 * 3.0f);
}

TEST(FunctionCallGradientTest, EachArgumentGetsItsOwnPartialDerivative) {
  // scale_add(x, 3x): the call's second input is computed from its first;
  // d/dx = 2 * 1 + 1 * 3 = 5 (each argument's own part, summed by the chain
  // rule outside the call).
  Scope root = Scope::NewRootScope();
  GraphDef lib = Parse(kFunctionLibraryText);
  root.AddFunctionLibrary(lib.library());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output three_x = ops::Mul(root, x, ops::Const(root, 3.0f));
  AttrValue f;
  f.mutable_func()->set_name("scale_add");
  AttrValue tout;
  tout.mutable_list()->add_type(DT_FLOAT);
  Operation call = root.AddOp("PartitionedCall", {{x, three_x}}, {{"f", f}, {"Tout", tout}});
  std::vector<Output> d;
  ASSERT_OK(AddSymbolicGradients(root, {call.output(0)}, {x}, &d));
  std::vector<Tensor> out =
      RunGraph(root, {{"x", Tensor::Scalar(1.0f)}}, {call.output(0).name(), d[0].name()});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Scalar(out[0]), 5.0f);
  EXPECT_EQ(Scalar(out[1]), 5.0f);
}

TEST(FunctionCallGradientTest, AVariableReadInsideAFunctionTrains) {
  // loss = (read_call - 4)^2 = (read_plus_one(v) - 4)^2 = (v - 3)^2;
  // gradient descent from v = 0.
  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto g, ImportGraphDef(root, CallsGraph()));
  Output v = g.at("v").output(0);
  Output loss = ops::Square(root.WithOpName("loss"), ops::Sub(root, g.at("read_call").output(0),
                                                              ops::Const(root, 4.0f)));
  std::vector<Output> d;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {v}, &d));
  ASSERT_EQ(d[0].dtype(), DT_FLOAT);
  root.WithOpName("train").AddOp("ResourceApplyGradientDescent",
                                 {{v}, {ops::Const(root, 0.25f)}, {d[0]}});
  ASSERT_OK(root.status());
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(def));
  ASSERT_OK(session->Run({{"x", Tensor::Scalar(0.0f)}}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  // v <- v - 0.25 * 2 (v - 3) = (v + 3) / 2: 1.5, 2.25, 2.625, ...
  for (float want : {1.5f, 2.25f, 2.625f}) {
    ASSERT_OK(session->Run({}, {}, {"train"}, nullptr));
    ASSERT_OK(session->Run({}, {"read_call"}, {}, &out));
    EXPECT_EQ(Scalar(out[0]), want + 1);
  }
}

TEST(FunctionCallGradientTest, AnIfsGradientIsTheTakenBranchs) {
  // If(p, x, y): scale_add (2x + y) or twice (4x + 3y); StatelessIf(p, x):
  // same (x) or neg (-x), whose else branch ignores nothing and whose then
  // branch passes x through.
  Scope root = Scope::NewRootScope();
  GraphDef lib = Parse(kFunctionLibraryText);
  root.AddFunctionLibrary(lib.library());
  Output p = ops::Placeholder(root.WithOpName("p"), DT_BOOL);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(root.WithOpName("y"), DT_FLOAT);
  auto func = [](const char* name) {
    AttrValue f;
    f.mutable_func()->set_name(name);
    return f;
  };
  AttrValue tout;
  tout.mutable_list()->add_type(DT_FLOAT);
  Operation if2 = root.WithOpName("if2").AddOp(
      "If", {{p}, {x, y}},
      {{"then_branch", func("scale_add")}, {"else_branch", func("twice")}, {"Tout", tout}});
  Operation if1 = root.WithOpName("if1").AddOp(
      "StatelessIf", {{p}, {x}},
      {{"then_branch", func("same")}, {"else_branch", func("neg")}, {"Tout", tout}});
  std::vector<Output> d2, d1;
  ASSERT_OK(AddSymbolicGradients(root, {if2.output(0)}, {x, y}, &d2));
  ASSERT_OK(AddSymbolicGradients(root, {if1.output(0)}, {x}, &d1));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(def));
  for (bool taken : {true, false}) {
    std::vector<Tensor> out;
    ASSERT_OK(session->Run(
        {{"p", Tensor::Scalar(taken)}, {"x", Tensor::Scalar(1.0f)}, {"y", Tensor::Scalar(1.0f)}},
        {"if2", d2[0].name(), d2[1].name(), "if1", d1[0].name()}, {}, &out));
    EXPECT_EQ(Scalar(out[0]), taken ? 3.0f : 7.0f);
    EXPECT_EQ(Scalar(out[1]), taken ? 2.0f : 4.0f);
    EXPECT_EQ(Scalar(out[2]), taken ? 1.0f : 3.0f);
    EXPECT_EQ(Scalar(out[3]), taken ? 1.0f : -1.0f);
    EXPECT_EQ(Scalar(out[4]), taken ? 1.0f : -1.0f);
  }
}

// A recurrent cell as TensorFlow 2 writes its loop: While over (i, h, v, x)
// with h <- tanh(h * v + x) four times, v a resource variable and x an input
// that the body passes through.
constexpr char kRnn[] = R"pb(
  library {
    function {
      signature {
        name: "rnn_cond"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "four"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 4
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "four:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "b" value: "less:z:0" }
    }
    function {
      signature {
        name: "rnn_step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "v" type: DT_RESOURCE }
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "h_next" type: DT_FLOAT }
        output_arg { name: "v_out" type: DT_RESOURCE }
        output_arg { name: "x_out" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "w"
        op: "ReadVariableOp"
        input: "v"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "hw"
        op: "Mul"
        input: "h"
        input: "w:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "pre"
        op: "AddV2"
        input: "hw:z:0"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "act"
        op: "Tanh"
        input: "pre:z:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "h_next" value: "act:y:0" }
      ret { key: "v_out" value: "v" }
      ret { key: "x_out" value: "x" }
    }
  }
  node {
    name: "i0"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 0
        }
      }
    }
  }
  node {
    name: "h0"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "w"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "v"
    op: "VarHandleOp"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape {} }
    }
    attr {
      key: "shared_name"
      value { s: "v" }
    }
  }
  node {
    name: "init"
    op: "AssignVariableOp"
    input: "v"
    input: "w"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "loop"
    op: "While"
    input: "i0"
    input: "h0"
    input: "v"
    input: "x"
    attr {
      key: "T"
      value { list { type: [ DT_INT32, DT_FLOAT, DT_RESOURCE, DT_FLOAT ] } }
    }
    attr {
      key: "cond"
      value { func { name: "rnn_cond" } }
    }
    attr {
      key: "body"
      value { func { name: "rnn_step" } }
    }
  }
)pb";

// h4 of the cell above, in double.
double RnnFinal(double h, double w, double x) {
  for (int i = 0; i < 4; ++i) h = std::tanh(h * w + x);
  return h;
}

TEST(FunctionCallGradientTest, AWhileLoopsGradientRunsItBackwards) {
  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto g, ImportGraphDef(root, Parse(kRnn)));
  const Output h4 = g.at("loop").output(1);
  std::vector<Output> d;
  ASSERT_OK(AddSymbolicGradients(
      root, {h4}, {g.at("h0").output(0), g.at("v").output(0), g.at("x").output(0)}, &d));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(def));
  const double h0 = 0.3, w = 0.8, x = -0.4, e = 1e-6;
  ASSERT_OK(session->Run({{"w", Tensor::Scalar(static_cast<float>(w))}}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  ASSERT_OK(session->Run({{"h0", Tensor::Scalar(static_cast<float>(h0))},
                          {"x", Tensor::Scalar(static_cast<float>(x))}},
                         {h4.name(), d[0].name(), d[1].name(), d[2].name()}, {}, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_NEAR(Scalar(out[0]), RnnFinal(h0, w, x), 1e-6);
  EXPECT_NEAR(Scalar(out[1]), (RnnFinal(h0 + e, w, x) - RnnFinal(h0 - e, w, x)) / (2 * e), 1e-5);
  EXPECT_NEAR(Scalar(out[2]), (RnnFinal(h0, w + e, x) - RnnFinal(h0, w - e, x)) / (2 * e), 1e-5);
  EXPECT_NEAR(Scalar(out[3]), (RnnFinal(h0, w, x + e) - RnnFinal(h0, w, x - e)) / (2 * e), 1e-5);
  EXPECT_EQ(d[0].dtype(), DT_FLOAT);
  EXPECT_EQ(d[1].dtype(), DT_FLOAT) << "a variable's gradient is its value's";
}

TEST(FunctionCallGradientTest, AStatelessWhileWithACounterDifferentiates) {
  // StatelessWhile(3, x) over the library's step: (i + 1, acc * 2) while
  // i < 10, seven times: 128x. The counter gets no gradient.
  Scope root = Scope::NewRootScope();
  GraphDef lib = Parse(kFunctionLibraryText);
  root.AddFunctionLibrary(lib.library());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output i0 = ops::Const<int32_t>(root, 3);
  AttrValue cond, body;
  cond.mutable_func()->set_name("is_small");
  body.mutable_func()->set_name("step");
  Operation loop =
      root.WithOpName("loop").AddOp("StatelessWhile", {{i0, x}}, {{"cond", cond}, {"body", body}});
  std::vector<Output> d;
  ASSERT_OK(AddSymbolicGradients(root, {loop.output(1)}, {x, i0}, &d));
  std::vector<Tensor> out =
      RunGraph(root, {{"x", Tensor::Scalar(0.5f)}}, {loop.output(1).name(), d[0].name()});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Scalar(out[0]), 64.0f);
  EXPECT_EQ(Scalar(out[1]), 128.0f);
  EXPECT_EQ(d[1].dtype(), DT_INT32) << "zeros for the counter";
}

// step with noise: (i + 1, acc * r), r uniform in [0, 1) each iteration.
constexpr char kNoisyStep[] = R"pb(
  library {
    function {
      signature {
        name: "noisy_step"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
        is_stateful: true
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
        name: "shape"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr {
          key: "value"
          value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 0 } } } }
        }
      }
      node_def {
        name: "r"
        op: "RandomUniform"
        input: "shape:output:0"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "T" value { type: DT_INT32 } }
      }
      node_def {
        name: "mul"
        op: "Mul"
        input: "acc"
        input: "r:output:0"
        attr { key: "T" value { type: DT_FLOAT } }
      }
      ret { key: "i_next" value: "inc:z:0" }
      ret { key: "acc_next" value: "mul:z:0" }
    }
  }
)pb";

// The gradient keeps what each iteration computed instead of running the
// body again: with a random factor per iteration, d(acc)/dx is the product
// of the factors the forward loop drew, acc / x. The loop itself is
// rewritten to keep them; differentiated again, it is rewritten again.
TEST(FunctionCallGradientTest, AWhileLoopsGradientUsesTheValuesTheLoopComputed) {
  Scope root = Scope::NewRootScope();
  root.AddFunctionLibrary(Parse(kFunctionLibraryText).library());
  root.AddFunctionLibrary(Parse(kNoisyStep).library());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  AttrValue cond, body;
  cond.mutable_func()->set_name("is_small");
  body.mutable_func()->set_name("noisy_step");
  Operation loop = root.WithOpName("loop").AddOp("While", {{ops::Const<int32_t>(root, 3), x}},
                                                 {{"cond", cond}, {"body", body}});
  std::vector<Output> d, again;
  ASSERT_OK(AddSymbolicGradients(root, {loop.output(1)}, {x}, &d));
  const NodeDef& rewritten = root.GetNodeDef(loop);
  EXPECT_EQ(rewritten.attr().at("body").func().name(), "noisy_step_kept");
  EXPECT_EQ(rewritten.attr().at("_num_original_outputs").i(), 2);
  // The count, and the two factors of Mul's gradient: r and acc.
  EXPECT_EQ(loop.num_outputs(), 5);
  ASSERT_OK(AddSymbolicGradients(root, {loop.output(1)}, {x}, &again));
  EXPECT_EQ(root.GetNodeDef(loop).attr().at("body").func().name(), "noisy_step_kept_kept");
  std::vector<Tensor> out = RunGraph(root, {{"x", Tensor::Scalar(0.5f)}},
                                     {loop.output(1).name(), d[0].name(), again[0].name()});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_GT(Scalar(out[0]), 0.0f);
  EXPECT_FLOAT_EQ(Scalar(out[1]), Scalar(out[0]) / 0.5f);
  EXPECT_FLOAT_EQ(Scalar(out[2]), Scalar(out[1]));
}

// A recurrent layer as Keras builds it: the inputs unstacked into a
// TensorList, a While whose body reads step t from it, computes
// h <- tanh(h * v + x_t) and writes h into an output TensorList at t, and
// the outputs stacked after the loop.
constexpr char kListRnn[] = R"pb(
  library {
    function {
      signature {
        name: "lrnn_cond"
        input_arg { name: "t" type: DT_INT32 }
        input_arg { name: "out" type: DT_VARIANT }
        input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "inp" type: DT_VARIANT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "steps"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 3
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "t"
        input: "steps:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "b" value: "less:z:0" }
    }
    function {
      signature {
        name: "lrnn_body"
        input_arg { name: "t" type: DT_INT32 }
        input_arg { name: "out" type: DT_VARIANT }
        input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "inp" type: DT_VARIANT }
        input_arg { name: "v" type: DT_RESOURCE }
        output_arg { name: "t_next" type: DT_INT32 }
        output_arg { name: "out_next" type: DT_VARIANT }
        output_arg { name: "h_next" type: DT_FLOAT }
        output_arg { name: "inp_out" type: DT_VARIANT }
        output_arg { name: "v_out" type: DT_RESOURCE }
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "element_shape"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape { dim { size: 1 } }
              int_val: 2
            }
          }
        }
      }
      node_def {
        name: "inc"
        op: "AddV2"
        input: "t"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "x_t"
        op: "TensorListGetItem"
        input: "inp"
        input: "t"
        input: "element_shape:output:0"
        attr {
          key: "element_dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "w"
        op: "ReadVariableOp"
        input: "v"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "hw"
        op: "Mul"
        input: "h"
        input: "w:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "pre"
        op: "AddV2"
        input: "hw:z:0"
        input: "x_t:item:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "act"
        op: "Tanh"
        input: "pre:z:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "write"
        op: "TensorListSetItem"
        input: "out"
        input: "t"
        input: "act:y:0"
        attr {
          key: "element_dtype"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "t_next" value: "inc:z:0" }
      ret { key: "out_next" value: "write:output_handle:0" }
      ret { key: "h_next" value: "act:y:0" }
      ret { key: "inp_out" value: "inp" }
      ret { key: "v_out" value: "v" }
    }
  }
)pb";

// sum_t sum_j c[t][j] h_t[j] of the layer above, in double.
double ListRnnLoss(const double x[3][2], const double h0[2], double w) {
  const double c[3][2] = {{0.5, -1.0}, {2.0, 0.25}, {-0.75, 1.5}};
  double h[2] = {h0[0], h0[1]}, loss = 0;
  for (int t = 0; t < 3; ++t) {
    for (int j = 0; j < 2; ++j) {
      h[j] = std::tanh(h[j] * w + x[t][j]);
      loss += c[t][j] * h[j];
    }
  }
  return loss;
}

TEST(FunctionCallGradientTest, ARecurrentLayerOverTensorListsDifferentiates) {
  Scope root = Scope::NewRootScope();
  root.AddFunctionLibrary(Parse(kListRnn).library());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output h0 = ops::Placeholder(root.WithOpName("h0"), DT_FLOAT);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_FLOAT);
  Output v = root.WithOpName("v")
                 .AddOp("VarHandleOp", {},
                        {{"dtype", MakeAttrValue(DT_FLOAT)},
                         {"shape", MakeAttrValue(PartialShape::Scalar())},
                         {"shared_name", MakeAttrValue("v")}})
                 .output(0);
  root.WithOpName("init").AddOp("AssignVariableOp", {{v}, {w}});
  Output element_shape = ops::Const<int32_t>(root, {2});
  AttrValue f32 = MakeAttrValue(DT_FLOAT);
  Output inputs =
      root.AddOp("TensorListFromTensor", {{x}, {element_shape}}, {{"element_dtype", f32}})
          .output(0);
  Output outputs =
      root.AddOp("TensorListReserve", {{element_shape}, {ops::Const<int32_t>(root, 3)}},
                 {{"element_dtype", f32}})
          .output(0);
  AttrValue cond, body;
  cond.mutable_func()->set_name("lrnn_cond");
  body.mutable_func()->set_name("lrnn_body");
  Operation loop = root.WithOpName("loop").AddOp(
      "While", {{ops::Const<int32_t>(root, 0), outputs, h0, inputs, v}},
      {{"cond", cond}, {"body", body}});
  Output stacked =
      root.AddOp("TensorListStack", {{loop.output(1)}, {element_shape}}, {{"element_dtype", f32}})
          .output(0);
  Output c = ops::Const<float>(root, {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}, TensorShape({3, 2}));
  Output loss = ops::Sum(root.WithOpName("loss"), ops::Mul(root, stacked, c),
                         ops::Const<int32_t>(root, {0, 1}));
  std::vector<Output> d;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {x, h0, v}, &d));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(def));

  double xs[3][2] = {{0.1, -0.2}, {0.3, 0.4}, {-0.5, 0.6}}, hs[2] = {0.2, -0.1}, wv = 0.7;
  Tensor xt(DT_FLOAT, TensorShape({3, 2})), ht(DT_FLOAT, TensorShape({2}));
  for (int i = 0; i < 6; ++i) xt.data<float>()[i] = static_cast<float>(xs[i / 2][i % 2]);
  for (int j = 0; j < 2; ++j) ht.data<float>()[j] = static_cast<float>(hs[j]);
  ASSERT_OK(session->Run({{"w", Tensor::Scalar(static_cast<float>(wv))}}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  ASSERT_OK(session->Run({{"x", xt}, {"h0", ht}}, {"loss", d[0].name(), d[1].name(), d[2].name()},
                         {}, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_NEAR(Scalar(out[0]), ListRnnLoss(xs, hs, wv), 1e-5);
  const double e = 1e-6;
  ASSERT_EQ(out[1].NumElements(), 6);
  for (int i = 0; i < 6; ++i) {
    double up[3][2], down[3][2];
    std::copy(&xs[0][0], &xs[0][0] + 6, &up[0][0]);
    std::copy(&xs[0][0], &xs[0][0] + 6, &down[0][0]);
    up[i / 2][i % 2] += e;
    down[i / 2][i % 2] -= e;
    EXPECT_NEAR(out[1].data<float>()[i],
                (ListRnnLoss(up, hs, wv) - ListRnnLoss(down, hs, wv)) / (2 * e), 1e-4)
        << "d/dx[" << i << "]";
  }
  for (int j = 0; j < 2; ++j) {
    double up[2] = {hs[0], hs[1]}, down[2] = {hs[0], hs[1]};
    up[j] += e;
    down[j] -= e;
    EXPECT_NEAR(out[2].data<float>()[j],
                (ListRnnLoss(xs, up, wv) - ListRnnLoss(xs, down, wv)) / (2 * e), 1e-4)
        << "d/dh0[" << j << "]";
  }
  EXPECT_NEAR(Scalar(out[3]), (ListRnnLoss(xs, hs, wv + e) - ListRnnLoss(xs, hs, wv - e)) / (2 * e),
              1e-4);
}

// What gradients of lists add up: AddN of lists item by item (an unset item
// as zeros), ZerosLike of a list (as long, nothing set), and the error for
// lists of different lengths.
TEST(FunctionCallGradientTest, ListsAddItemByItemAndHaveZeros) {
  Scope root = Scope::NewRootScope();
  AttrValue f32 = MakeAttrValue(DT_FLOAT);
  Output shape = ops::Const<int32_t>(root, {2});
  Output rows = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Output full =
      root.AddOp("TensorListFromTensor", {{rows}, {shape}}, {{"element_dtype", f32}}).output(0);
  Output sparse =
      root.AddOp("TensorListSetItem",
                 {{root.AddOp("TensorListReserve", {{shape}, {ops::Const<int32_t>(root, 3)}},
                              {{"element_dtype", f32}})
                       .output(0)},
                  {ops::Const<int32_t>(root, 1)},
                  {ops::Const<float>(root, {10, 20})}})
          .output(0);
  Output sum = ops::AddN(root, {full, sparse, ops::ZerosLike(root, full)});
  Output stacked =
      root.AddOp("TensorListStack", {{sum}, {shape}}, {{"element_dtype", f32}}).output(0);
  Output short_list = root.AddOp("TensorListReserve", {{shape}, {ops::Const<int32_t>(root, 2)}},
                                 {{"element_dtype", f32}})
                          .output(0);
  Output bad = ops::AddN(root.WithOpName("bad"), {full, short_list});
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto session, NewSession(SessionOptions()));
  ASSERT_OK(session->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(session->Run({}, {stacked.name()}, {}, &out));
  ASSERT_EQ(out[0].shape(), TensorShape({3, 2}));
  const float want[] = {1, 2, 13, 24, 5, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[0].data<float>()[i], want[i]) << i;
  EXPECT_THAT(session->Run({}, {bad.name()}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("different lengths")));
}

TEST(FunctionCallGradientTest, ABodyThatWouldNotRunTheSameTwiceIsRefused) {
  constexpr char kNoisy[] = R"pb(
    library {
      function {
        signature {
          name: "noisy"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        node_def {
          name: "shape"
          op: "Shape"
          input: "x"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node_def {
          name: "noise"
          op: "RandomUniform"
          input: "shape:output:0"
          attr {
            key: "T"
            value { type: DT_INT32 }
          }
          attr {
            key: "dtype"
            value { type: DT_FLOAT }
          }
        }
        node_def {
          name: "sum"
          op: "AddV2"
          input: "x"
          input: "noise:output:0"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        ret { key: "y" value: "sum:z:0" }
      }
    }
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "f"
        value { func { name: "noisy" } }
      }
    }
  )pb";
  Scope root = Scope::NewRootScope();
  ASSERT_OK_AND_ASSIGN(auto g, ImportGraphDef(root, Parse(kNoisy)));
  std::vector<Output> d;
  EXPECT_THAT(AddSymbolicGradients(root, {g.at("call").output(0)}, {g.at("x").output(0)}, &d),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("gradient of 'call'"), HasSubstr("function 'noisy'"),
                             HasSubstr("node 'noise' (RandomUniform)"))));
}

}  // namespace
}  // namespace minigraph
