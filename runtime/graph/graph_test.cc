#include "runtime/graph/graph.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/env.h"
#include "core/path.h"
#include "core/proto/meta_graph.pb.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/ops/standard_ops.h"
#include "tests/testing/shared_testdata.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

GraphDef Parse(const std::string& text) {
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

absl::Status Build(const std::string& text) {
  return Graph::Create(Parse(text), GlobalOpRegistry()).status();
}

constexpr char kConstA[] = R"pb(
  node {
    name: "a"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 }
      }
    }
  }
)pb";

TEST(GraphTest, ValidGraphHasTypesShapesAndTopologicalOrder) {
  ASSERT_OK_AND_ASSIGN(auto g, Graph::Create(Parse(std::string(kConstA) + R"pb(
    node { name: "n" op: "Neg" input: "a" device: "/job:worker/gpu:0"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "m" op: "MatMul" input: "a" input: "n"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "transpose_b" value { b: true } } }
    node { name: "z" op: "NoOp" input: "^m" }
  )pb"), GlobalOpRegistry()));
  ASSERT_EQ(g->num_nodes(), 4);
  const Node* m = g->FindNode("m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->output_type(0), DT_FLOAT);
  EXPECT_EQ(m->output_shape(0).DebugString(), "[2,2]");
  // Defaults are filled in.
  EXPECT_FALSE(m->def().attr().at("transpose_a").b());
  EXPECT_EQ(g->FindNode("z")->control_inputs().size(), 1u);
  const auto& topo = g->topological_order();
  EXPECT_LT(std::find(topo.begin(), topo.end(), m->id()),
            std::find(topo.begin(), topo.end(), g->FindNode("z")->id()));
}

TEST(GraphTest, UnknownOpsAreListedTogether) {
  EXPECT_THAT(Build(R"pb(
    node { name: "s1" op: "MyCustomSummary" }
    node { name: "s2" op: "MyCustomSummary" }
    node { name: "p" op: "FusedThing" }
  )pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("2 op types"),
                             HasSubstr("MyCustomSummary (2 nodes, e.g. 's1')"),
                             HasSubstr("FusedThing (1 node, e.g. 'p')"))));
}

TEST(GraphTest, NameErrors) {
  EXPECT_THAT(Build(R"pb(node { name: "" op: "NoOp" })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty name")));
  EXPECT_THAT(Build(R"pb(node { name: "x" op: "NoOp" } node { name: "x" op: "NoOp" })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate node name 'x'")));
}

TEST(GraphTest, InputErrorsNameTheNode) {
  EXPECT_THAT(Build(R"pb(node { name: "n" op: "Neg" input: "ghost"
                                attr { key: "T" value { type: DT_FLOAT } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("'ghost'"), HasSubstr("does not exist"))));
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "n" op: "Neg" input: "a:1"
                       attr { key: "T" value { type: DT_FLOAT } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("'a:1'"), HasSubstr("1 output"))));
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "n" op: "Neg" input: "a" input: "a"
                       attr { key: "T" value { type: DT_FLOAT } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("expects 1 input, got 2"))));
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "n" op: "Neg" input: "a"
                       attr { key: "T" value { type: DT_INT32 } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("expects int32"), HasSubstr("is float"))));
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "z" op: "NoOp" }
                node { name: "n" op: "Neg" input: "^z" input: "a"
                       attr { key: "T" value { type: DT_FLOAT } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("after a control input")));
}

TEST(GraphTest, AttrErrorsNameTheNodeAndAttr) {
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(node { name: "n" op: "Neg" input: "a" })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("missing attr 'T'"))));
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "n" op: "Neg" input: "a" attr { key: "T" value { i: 3 } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("attr 'T' of type int, expected type"))));
  EXPECT_THAT(Build(R"pb(node { name: "p" op: "Placeholder"
                                attr { key: "dtype" value { type: DT_STRING } } }
                         node { name: "n" op: "Neg" input: "p"
                                attr { key: "T" value { type: DT_STRING } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'n'"), HasSubstr("not one of the allowed types"))));
  EXPECT_THAT(Build(R"pb(node { name: "z" op: "NoOp" attr { key: "bogus" value { i: 1 } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'bogus'")));
}

// A minimum on a list attr bounds its length, whatever the list holds
// (MaxPool's ksize is list(int) >= 4); on an int attr, its value.
TEST(GraphTest, AttrMinimumsCountEveryListKind) {
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"list(int)", "i: 1 i: 2"},           {"list(float)", "f: 1 f: 2"},
      {"list(string)", "s: 'a' s: 'b'"},    {"list(bool)", "b: true b: false"},
      {"list(type)", "type: DT_FLOAT type: DT_INT32"},
      {"list(shape)", "shape {} shape {}"}, {"list(tensor)", "tensor {} tensor {}"}};
  for (const auto& [type, two] : kinds) {
    OpDef op;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat("name: 'L' attr { name: 'a' type: '", type,
                     "' has_minimum: true minimum: 2 }"),
        &op));
    NodeDef node;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat("name: 'n' op: 'L' attr { key: 'a' value { list { ", two, " } } }"),
        &node));
    EXPECT_OK(ValidateNodeAttrs(node, op)) << type;
    NodeDef one = node;
    one.mutable_attr()->at("a").mutable_list()->Clear();
    EXPECT_THAT(ValidateNodeAttrs(one, op),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Length for attr 'a' of 0 must be at least minimum 2")))
        << type;
  }
  OpDef op;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "name: 'I' attr { name: 'N' type: 'int' has_minimum: true minimum: 2 }", &op));
  NodeDef node;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      "name: 'n' op: 'I' attr { key: 'N' value { i: 1 } }", &node));
  EXPECT_THAT(ValidateNodeAttrs(node, op),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Value for attr 'N' of 1 must be at least minimum 2")));
}

TEST(GraphTest, CycleIsRejected) {
  EXPECT_THAT(Build(R"pb(
    node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  )pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("cycle"), HasSubstr("'a'"), HasSubstr("'b'"))));
  EXPECT_THAT(Build(R"pb(node { name: "a" op: "NoOp" input: "^a" })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cycle")));
}

TEST(GraphTest, ShapeFunctionErrorsSurfaceAtCreation) {
  EXPECT_THAT(Build(std::string(kConstA) + R"pb(
                node { name: "m" op: "MatMul" input: "a" input: "a"
                       attr { key: "T" value { type: DT_FLOAT } } })pb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'m'"), HasSubstr("inner dimensions"))));
}

// A RestoreV2 of "a" (slice 0,5 of a [10,20] tensor) and "b" (whole), and
// a RestoreSlice of "a" whose spec is %s.
constexpr char kRestore[] = R"pb(
  node {
    name: "prefix"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "p" } } }
  }
  node {
    name: "names"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 2 } }
          string_val: [ "a", "b" ]
        }
      }
    }
  }
  node {
    name: "name"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "a" } } }
  }
  node {
    name: "specs"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim { size: 2 } }
          string_val: [ "10 20 0,5:-", "" ]
        }
      }
    }
  }
  node {
    name: "spec"
    op: "Const"
    attr { key: "dtype" value { type: DT_STRING } }
    attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "%s" } } }
  }
  node {
    name: "restore"
    op: "RestoreV2"
    input: [ "prefix", "names", "specs" ]
    attr { key: "dtypes" value { list { type: [ DT_FLOAT, DT_FLOAT ] } } }
  }
  node {
    name: "slice"
    op: "RestoreSlice"
    input: [ "prefix", "name", "spec" ]
    attr { key: "dt" value { type: DT_FLOAT } }
  }
)pb";

// A restore whose shape_and_slices are constants (as a Saver builds them)
// outputs each entry's shape: the slice's, or unknown for a whole tensor.
TEST(GraphTest, RestoreOpsOutputTheirSlicesShapes) {
  ASSERT_OK_AND_ASSIGN(
      auto g, Graph::Create(Parse(absl::StrFormat(kRestore, "4 6 1,2:2,3")), GlobalOpRegistry()));
  EXPECT_EQ(g->FindNode("restore")->output_shape(0).DebugString(), "[5,20]");
  EXPECT_EQ(g->FindNode("restore")->output_shape(1).DebugString(), "?");
  EXPECT_EQ(g->FindNode("slice")->output_shape(0).DebugString(), "[2,3]");
  EXPECT_THAT(Build(absl::StrFormat(kRestore, "4 6 5,2:-")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'slice'"), HasSubstr("reaches past the shape"))));
}

TEST(GraphTest, RealTensorFlowMetaGraphLoads) {
  MG_REQUIRE_SHARED_TESTDATA(dir);
  ASSERT_OK_AND_ASSIGN(
      std::string bytes,
      ReadFileToString(Env::Default(),
                       JoinPath(dir, "tf_checkpoints/HamBamLam__TD-Checkers-LiamBurke/"
                                     "checkpoints/checkpoint-779049.meta")));
  MetaGraphDef meta;
  ASSERT_TRUE(meta.ParseFromString(bytes));
  // Every one of its 191 nodes (summaries, Pow and Floor included) is a
  // minigraph op with TensorFlow's signature; session/tf_graph_test runs it.
  ASSERT_OK_AND_ASSIGN(auto g, Graph::Create(meta.graph_def(), GlobalOpRegistry()));
  EXPECT_EQ(g->num_nodes(), 191);
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

TEST(PartialShapeTest, AHugeRankIsSummarizedInMessages) {
  PartialShape huge(std::vector<int64_t>(5000, 1));
  const std::string s = huge.DebugString();
  EXPECT_LT(s.size(), 100u);
  EXPECT_EQ(s, "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,... (5000 dimensions)]");
  EXPECT_EQ(PartialShape({2, -1}).DebugString(), "[2,?]");
}

// A TensorFlow 1.0-era input: a Placeholder whose `shape` attr has no
// dimensions (what tf.placeholder wrote for an unknown shape), and an ArgMax
// along dimension 1 of it.
constexpr char kLegacyPlaceholder[] = R"pb(
  node { name: "x" op: "Placeholder"
         attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape {} } } }
  node { name: "d" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "m" op: "ArgMax" input: "x" input: "d"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tidx" value { type: DT_INT32 } } }
)pb";

std::string WithVersions(const std::string& graph, const std::string& versions) {
  return absl::StrCat(graph, " versions { ", versions, " }");
}

TEST(GraphVersionsTest, PlaceholderWithoutDimsIsUnknownUpToVersion21) {
  for (const char* v : {"producer: 21", "producer: 0"}) {
    ASSERT_OK_AND_ASSIGN(auto g, Graph::Create(Parse(WithVersions(kLegacyPlaceholder, v)),
                                               GlobalOpRegistry()));
    EXPECT_EQ(g->graph_def_version(), v == std::string("producer: 21") ? 21 : 0);
    EXPECT_FALSE(g->FindNode("x")->output_shape(0).rank_known()) << v;
  }
  // Without versions at all: version 0, as in TensorFlow.
  ASSERT_OK_AND_ASSIGN(auto g, Graph::Create(Parse(kLegacyPlaceholder), GlobalOpRegistry()));
  EXPECT_EQ(g->graph_def_version(), 0);
  EXPECT_FALSE(g->FindNode("x")->output_shape(0).rank_known());
  // From version 22 on it is a scalar, and the ArgMax is out of range.
  EXPECT_THAT(Build(WithVersions(kLegacyPlaceholder, "producer: 22")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'m'")));
}

TEST(GraphVersionsTest, ReductionAxesOfAnyRankBeforeVersion21) {
  const std::string sum = std::string(kConstA) + R"pb(
    node { name: "axes" op: "Const"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32
             tensor_shape { dim { size: 1 } dim { size: 1 } } int_val: 1 } } } }
    node { name: "s" op: "Sum" input: "a" input: "axes"
           attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "Tidx" value { type: DT_INT32 } } }
  )pb";
  ASSERT_OK_AND_ASSIGN(auto g, Graph::Create(Parse(WithVersions(sum, "producer: 20")),
                                             GlobalOpRegistry()));
  EXPECT_EQ(g->FindNode("s")->output_shape(0).DebugString(), "[2]");
  EXPECT_THAT(Build(WithVersions(sum, "producer: 21")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'s'"), HasSubstr("Shape must be at most rank 1"))));
}

TEST(GraphVersionsTest, ConsumerVersionsAreChecked) {
  EXPECT_THAT(Build(WithVersions(kConstA, "producer: 3000 min_consumer: 3000")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("GraphDef min consumer version 3000 above current version "
                                 "2474")));
  EXPECT_THAT(Build(WithVersions(kConstA, "producer: 2500 bad_consumers: 2474")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("GraphDef disallows consumer version 2474")));
  EXPECT_OK(Build(WithVersions(kConstA, "producer: 2500 min_consumer: 12 bad_consumers: 2473")));
}

}  // namespace
}  // namespace minigraph
