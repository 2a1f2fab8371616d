// Graphs whose nodes call functions of their library, as TensorFlow 2 writes
// them: StatefulPartitionedCall (with a resource variable passed in), If
// and While with function branches and bodies, a call inside a function,
// and the errors for what does not resolve.
#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/graph/function.h"
#include "runtime/graph/lower_while.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/session.h"
#include "tests/testing/function_library.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// The library: tests/testing/function_library.h.
constexpr const char* kLibrary = kFunctionLibraryText;

// Calls of every kind: tests/testing/function_library.h.
constexpr const char* kNodes = kFunctionCallsText;

GraphDef Parse(const std::string& text) {
  GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

TEST(FunctionCallTest, CallsIfAndWhileRunTheirFunctions) {
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(Parse(std::string(kLibrary) + kNodes)));
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::Scalar<float>(1.5f)},
                                                             {"y", Tensor::Scalar<float>(10)},
                                                             {"p", Tensor::Scalar<bool>(false)}};
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run(feeds, {"call:0", "nested:0", "if:0", "loop:0", "loop:1"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 13.0f);           // 2 * 1.5 + 10
  EXPECT_EQ(*out[1].data<float>(), 2 * 13.0f + 10);  // scale_add twice
  EXPECT_EQ(*out[2].data<float>(), -1.5f);           // else: neg
  EXPECT_EQ(*out[3].data<int32_t>(), 10);            // 3 -> 10: seven doublings
  EXPECT_EQ(*out[4].data<float>(), 1.5f * 128);
  ASSERT_OK(sess->Run({{"x", Tensor::Scalar<float>(4)}, {"p", Tensor::Scalar<bool>(true)}},
                      {"if:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 4.0f);  // then: same
  // A resource variable of the session, read inside a function.
  EXPECT_THAT(sess->Run({}, {"read_call:0"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("in function 'read_plus_one': Could not find variable v")));
  ASSERT_OK(sess->Run({{"x", Tensor::Scalar<float>(41)}}, {}, {"init"}, &out));
  ASSERT_OK(sess->Run({}, {"read_call:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 42.0f);
}

// A loop as TensorFlow 2's graphs have it (`_lower_using_switch_merge`) is
// lowered to TensorFlow 1's frame before it runs: the same results, its
// Enters carrying the loop's parallel_iterations, and an IdentityN in the
// loop's name that its consumers still read.
TEST(FunctionCallTest, ALoopMarkedForLoweringRunsAsAFrame) {
  GraphDef def = Parse(std::string(kLibrary) + kNodes);
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() != "loop") continue;
    (*n.mutable_attr())["_lower_using_switch_merge"].set_b(true);
    (*n.mutable_attr())["parallel_iterations"].set_i(4);
  }
  NodeDef* after = def.add_node();
  after->set_name("after");
  after->set_op("Identity");
  after->add_input("loop:1");
  (*after->mutable_attr())["T"].set_type(DT_FLOAT);
  GraphDef lowered = def;
  ASSERT_TRUE(HasLoopsToLower(lowered));
  ASSERT_OK(LowerWhileLoops(&lowered, GlobalOpRegistry()));
  EXPECT_FALSE(HasLoopsToLower(lowered));
  int enters = 0, exits = 0;
  for (const NodeDef& n : lowered.node()) {
    if (n.op() == "Enter") {
      ++enters;
      EXPECT_EQ(n.attr().at("parallel_iterations").i(), 4);
      EXPECT_EQ(n.attr().at("frame_name").s(), "loop");
    }
    exits += n.op() == "Exit";
    if (n.name() == "loop") EXPECT_EQ(n.op(), "IdentityN");
    // A reader of the loop's output reads it alone: the step needs no more.
    if (n.name() == "after") EXPECT_THAT(n.input(0), ::testing::StartsWith("loop/Output"));
  }
  EXPECT_EQ(enters, 2);
  EXPECT_EQ(exits, 2);

  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", Tensor::Scalar<float>(1.5f)}}, {"loop:0", "loop:1", "after:0"}, {},
                      &out));
  EXPECT_EQ(*out[0].data<int32_t>(), 10);
  EXPECT_EQ(*out[1].data<float>(), 1.5f * 128);
  EXPECT_EQ(*out[2].data<float>(), 1.5f * 128);
  // A fed output of the loop reaches its readers.
  ASSERT_OK(sess->Run({{"loop:1", Tensor::Scalar<float>(7)}}, {"after:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 7.0f);

  // A marked loop whose body is not in the library stays a While, and its
  // kernel names the function.
  for (NodeDef& n : *def.mutable_node()) {
    if (n.name() == "loop") (*n.mutable_attr())["body"].mutable_func()->set_name("absent");
  }
  GraphDef kept = def;
  ASSERT_OK(LowerWhileLoops(&kept, GlobalOpRegistry()));
  EXPECT_TRUE(HasLoopsToLower(kept));
  ASSERT_OK_AND_ASSIGN(auto broken, NewSession(SessionOptions()));
  absl::Status s = broken->Create(def);
  if (s.ok()) s = broken->Run({{"x", Tensor::Scalar<float>(1.5f)}}, {"loop:1"}, {}, &out);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound, HasSubstr("absent")));
}

// Functions with list arguments and results, as TensorFlow 1's Defun and
// generic library functions write them: N * T (sum_list, split), list(type)
// (pass_list); "xs" names a whole list, "xs:1" one of it, "u:output" a
// node's whole list output.
constexpr char kListFunctions[] = R"pb(
  library {
    function {
      signature {
        name: "sum_list"
        input_arg { name: "xs" number_attr: "N" type_attr: "T" }
        output_arg { name: "total" type_attr: "T" }
        attr { name: "N" type: "int" }
        attr { name: "T" type: "type" }
      }
      node_def {
        name: "sum"
        op: "AddN"
        input: "xs"
        attr {
          key: "N"
          value { placeholder: "N" }
        }
        attr {
          key: "T"
          value { placeholder: "T" }
        }
      }
      ret { key: "total" value: "sum:sum:0" }
    }
    function {
      signature {
        name: "split"
        input_arg { name: "v" type: DT_FLOAT }
        output_arg { name: "parts" number_attr: "N" type: DT_FLOAT }
        attr { name: "N" type: "int" }
      }
      node_def {
        name: "u"
        op: "Unpack"
        input: "v"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "num"
          value { placeholder: "N" }
        }
      }
      ret { key: "parts" value: "u:output" }
    }
    function {
      signature {
        name: "pass_list"
        input_arg { name: "p" type_list_attr: "Tp" }
        output_arg { name: "q" type_list_attr: "Tp" }
        output_arg { name: "second" type: DT_INT32 }
        attr { name: "Tp" type: "list(type)" }
      }
      ret { key: "q" value: "p" }
      ret { key: "second" value: "p:1" }
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
    name: "i"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "v"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "sum"
    op: "PartitionedCall"
    input: "x"
    input: "x"
    input: "x"
    attr {
      key: "Tin"
      value { list { type: [ DT_FLOAT, DT_FLOAT, DT_FLOAT ] } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "f"
      value {
        func {
          name: "sum_list"
          attr {
            key: "N"
            value { i: 3 }
          }
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
      }
    }
  }
  node {
    name: "split"
    op: "PartitionedCall"
    input: "v"
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Tout"
      value { list { type: [ DT_FLOAT, DT_FLOAT ] } }
    }
    attr {
      key: "f"
      value {
        func {
          name: "split"
          attr {
            key: "N"
            value { i: 2 }
          }
        }
      }
    }
  }
  node {
    name: "pass"
    op: "PartitionedCall"
    input: "x"
    input: "i"
    attr {
      key: "Tin"
      value { list { type: [ DT_FLOAT, DT_INT32 ] } }
    }
    attr {
      key: "Tout"
      value { list { type: [ DT_FLOAT, DT_INT32, DT_INT32 ] } }
    }
    attr {
      key: "f"
      value {
        func {
          name: "pass_list"
          attr {
            key: "Tp"
            value { list { type: [ DT_FLOAT, DT_INT32 ] } }
          }
        }
      }
    }
  }
)pb";

TEST(FunctionCallTest, ListArgumentsAndResultsExpandAsTensorFlowNamesThem) {
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(Parse(kListFunctions)));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", Tensor::Scalar<float>(1.5f)},
                       {"i", Tensor::Scalar<int32_t>(7)},
                       {"v", Tensor::Vector<float>({3, 4})}},
                      {"sum:0", "split:0", "split:1", "pass:0", "pass:1", "pass:2"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 4.5f);
  EXPECT_EQ(*out[1].data<float>(), 3.0f);
  EXPECT_EQ(*out[2].data<float>(), 4.0f);
  EXPECT_EQ(*out[3].data<float>(), 1.5f);
  EXPECT_EQ(*out[4].data<int32_t>(), 7);
  EXPECT_EQ(*out[5].data<int32_t>(), 7);

  // A list's length comes from the call: its placeholders are xs_0, xs_1;
  // an element past its end, or a length the call leaves out, is named.
  GraphDef lib = Parse(kListFunctions);
  FunctionGraph f;
  NameAttrList call;
  call.set_name("sum_list");
  (*call.mutable_attr())["N"].set_i(2);
  (*call.mutable_attr())["T"].set_type(DT_FLOAT);
  ASSERT_OK_AND_ASSIGN(f, InstantiateFunction(lib.library(), call, GlobalOpRegistry()));
  EXPECT_EQ(f.args, (std::vector<std::string>{"xs_0:0", "xs_1:0"}));
  call.set_name("pass_list");
  (*call.mutable_attr())["Tp"].mutable_list()->add_type(DT_FLOAT);
  EXPECT_THAT(InstantiateFunction(lib.library(), call, GlobalOpRegistry()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 'p:1': argument 'p' has 1 tensor(s)")));
  call.set_name("split");
  call.clear_attr();
  EXPECT_THAT(InstantiateFunction(lib.library(), call, GlobalOpRegistry()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("is $N, which the call does not set")));
}

// A While of kLibrary's "step" whose condition, "always", is always true.
constexpr char kForeverLoop[] = R"pb(
  library {
    function {
      signature {
        name: "always"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        output_arg { name: "b" type: DT_BOOL }
      }
      node_def {
        name: "t"
        op: "Const"
        attr { key: "dtype" value { type: DT_BOOL } }
        attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } }
      }
      ret { key: "b" value: "t:output:0" }
    }
  }
  node {
    name: "i0"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
  }
  node {
    name: "acc0"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
  node {
    name: "loop"
    op: "While"
    input: "i0"
    input: "acc0"
    attr { key: "T" value { list { type: [ DT_INT32, DT_FLOAT ] } } }
    attr { key: "cond" value { func { name: "always" } } }
    attr { key: "body" value { func { name: "step" } } }
  })pb";

// A While whose condition never turns false ends at the step's deadline,
// on one thread as on several.
TEST(FunctionCallTest, AWhileThatNeverEndsStopsAtTheDeadline) {
  // kLibrary's functions and kForeverLoop's, merged (a text proto sets a
  // message field once).
  GraphDef def = Parse(kLibrary);
  const std::string forever = kForeverLoop;
  for (int threads : {1, 2}) {
    SessionOptions options;
    options.inter_op_threads = threads;
    ASSERT_OK_AND_ASSIGN(auto sess, NewSession(options));
    GraphDef merged = def;
    ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(forever, &merged));
    ASSERT_OK(sess->Create(merged));
    RunOptions run;
    run.timeout_in_ms = 50;
    std::vector<Tensor> out;
    EXPECT_THAT(sess->Run(run, {}, {"loop:0"}, {}, &out),
                StatusIs(absl::StatusCode::kDeadlineExceeded))
        << threads << " threads";
  }
}

// Keras saves its LSTM both ways, tagged with one "api_implements": the
// cuDNN version ("api_preferred_device": "GPU"), which a model traced on a
// GPU machine calls, and the standard one for the CPU. As TensorFlow's
// implementation selector does on a CPU, the call runs the CPU twin; the
// GPU version (here with an op minigraph lacks) is never instantiated, and
// run_graph's list of what a run needs leaves it out.
TEST(FunctionCallTest, ACallOfAGpuImplementationRunsItsCpuTwin) {
  const GraphDef def = Parse(R"pb(
    library {
      function {
        signature {
          name: "lstm_gpu"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        attr {
          key: "api_implements"
          value { s: "lstm_0123" }
        }
        attr {
          key: "api_preferred_device"
          value { s: "GPU" }
        }
        node_def { name: "rnn" op: "CudnnRNN" input: "x" }
        ret { key: "y" value: "rnn:output:0" }
      }
      function {
        signature {
          name: "lstm_cpu"
          input_arg { name: "x" type: DT_FLOAT }
          output_arg { name: "y" type: DT_FLOAT }
        }
        attr {
          key: "api_implements"
          value { s: "lstm_0123" }
        }
        attr {
          key: "api_preferred_device"
          value { s: "CPU" }
        }
        node_def {
          name: "neg"
          op: "Neg"
          input: "x"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        ret { key: "y" value: "neg:y:0" }
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
      op: "StatefulPartitionedCall"
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
        value { func { name: "lstm_gpu" } }
      }
    })pb");
  EXPECT_EQ(CpuImplementation(def.library(), "lstm_gpu"), "lstm_cpu");
  EXPECT_EQ(CpuImplementation(def.library(), "lstm_cpu"), "lstm_cpu");
  EXPECT_EQ(CpuImplementation(def.library(), "absent"), "absent");
  EXPECT_THAT(ReachableFunctions(def), ::testing::ElementsAre("lstm_cpu"));
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", Tensor::Scalar<float>(2)}}, {"call:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), -2.0f);
}

// Creates a session of the graph `text`, which must succeed, and runs its
// node "call" with x fed: a call's function is instantiated when a step
// first needs it, as in TensorFlow, so that is where its errors surface.
absl::Status RunCall(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Session>> sess = NewSession(SessionOptions());
  EXPECT_OK(sess.status());
  EXPECT_OK((*sess)->Create(Parse(text)));
  std::vector<Tensor> out;
  return (*sess)->Run({{"x", Tensor::Scalar<float>(1)}}, {"call:0"}, {}, &out);
}

// x -> a PartitionedCall of F (the tests put a function name there).
constexpr char kCallOfF[] = R"pb(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node {
    name: "call"
    op: "PartitionedCall"
    input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "F" } } }
  })pb";

// f runs an op no registry has; g returns an output its node lacks.
constexpr char kBadFunctions[] = R"pb(
  library {
    function {
      signature {
        name: "f"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "u" op: "NoSuchOp" input: "x" }
      ret { key: "y" value: "u:y:0" }
    }
    function {
      signature {
        name: "g"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "y" value: "n:nope:0" }
    }
  })pb";

// f calls g calls f.
constexpr char kRecursiveFunctions[] = R"pb(
  library {
    function {
      signature {
        name: "f"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "c"
        op: "PartitionedCall"
        input: "x"
        attr { key: "Tin" value { list { type: DT_FLOAT } } }
        attr { key: "Tout" value { list { type: DT_FLOAT } } }
        attr { key: "f" value { func { name: "g" } } }
      }
      ret { key: "y" value: "c:output:0" }
    }
    function {
      signature {
        name: "g"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
      }
      node_def {
        name: "c"
        op: "PartitionedCall"
        input: "x"
        attr { key: "Tin" value { list { type: DT_FLOAT } } }
        attr { key: "Tout" value { list { type: DT_FLOAT } } }
        attr { key: "f" value { func { name: "f" } } }
      }
      ret { key: "y" value: "c:output:0" }
    }
  })pb";

// kCallOfF calling `function`, after `library`.
std::string CallOf(const std::string& library, const std::string& function) {
  std::string text = library + kCallOfF;
  text.replace(text.rfind("\"F\""), 3, absl::StrCat("\"", function, "\""));
  return text;
}

TEST(FunctionCallTest, ACallOfAMissingFunctionIsNotFoundNamingIt) {
  EXPECT_THAT(RunCall(CallOf(kLibrary, "nope")),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("function 'nope' is not in the graph's function library")));
}

TEST(FunctionCallTest, AnUnknownOpInAFunctionNamesTheFunctionAndNode) {
  EXPECT_THAT(RunCall(CallOf(kBadFunctions, "f")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("function 'f', node 'u'")));
}

TEST(FunctionCallTest, ARecursiveCallIsAnErrorNamingThePath) {
  EXPECT_THAT(RunCall(CallOf(kRecursiveFunctions, "f")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("function 'f' calls itself (through f -> g)")));
}

TEST(FunctionCallTest, AReturnOfAMissingOutputNamesTheNode) {
  EXPECT_THAT(RunCall(CallOf(kBadFunctions, "g")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("node 'n' has no output argument 'nope'")));
}

}  // namespace
}  // namespace minigraph
