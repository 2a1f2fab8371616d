// The queue ops on the executor: each case's expected values are what
// TensorFlow 2.21 gives for the same graph (tf.compat.v1 queues, the same
// seeds), except where a comment says why minigraph differs.
#include <algorithm>
#include <map>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

AttrValue Shapes(const std::vector<PartialShape>& shapes) {
  AttrValue a;
  a.mutable_list();
  for (const PartialShape& s : shapes) s.AsProto(a.mutable_list()->add_shape());
  return a;
}

MATCHER_P(ScalarIs, value, "") {
  using T = std::remove_const_t<decltype(value)>;
  return arg.NumElements() == 1 && arg.template data<T>()[0] == value;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

// A graph around one queue "q" of `op` with `attrs`, int32 components
// unless `attrs` says otherwise, and the ops the tests run on it:
//   enqueue_many (feed "batch:0"), enqueue (feed "element:0"),
//   dequeue, dequeue_many and dequeue_up_to (feed "n:0"), close, cancel
//   (close with cancel_pending_enqueues), size, is_closed.
struct QueueGraph {
  QueueGraph(const std::string& op, std::map<std::string, AttrValue> attrs,
             DataType dtype = DT_INT32) {
    Scope s = Scope::NewRootScope();
    if (!attrs.count("component_types")) {
      attrs["component_types"] = MakeAttrValue(std::vector<DataType>{dtype});
    }
    Output q = s.WithOpName("q").AddOp(op, {}, attrs).output(0);
    Output batch = ops::Placeholder(s.WithOpName("batch"), dtype);
    Output element = ops::Placeholder(s.WithOpName("element"), dtype);
    Output n = ops::Placeholder(s.WithOpName("n"), DT_INT32);
    const std::map<std::string, AttrValue> types = {
        {"component_types", MakeAttrValue(std::vector<DataType>{dtype})}};
    s.WithOpName("enqueue_many").AddOp("QueueEnqueueManyV2", {{q}, {batch}});
    s.WithOpName("enqueue").AddOp("QueueEnqueueV2", {{q}, {element}});
    s.WithOpName("dequeue").AddOp("QueueDequeueV2", {{q}}, types);
    s.WithOpName("dequeue_many").AddOp("QueueDequeueManyV2", {{q}, {n}}, types);
    s.WithOpName("dequeue_up_to").AddOp("QueueDequeueUpToV2", {{q}, {n}}, types);
    s.WithOpName("close").AddOp("QueueCloseV2", {{q}});
    s.WithOpName("cancel").AddOp("QueueCloseV2", {{q}},
                                 {{"cancel_pending_enqueues", MakeAttrValue(true)}});
    s.WithOpName("size").AddOp("QueueSizeV2", {{q}});
    s.WithOpName("is_closed").AddOp("QueueIsClosedV2", {{q}});
    def = s.ToGraphDef().value();
  }
  GraphDef def;
};

class QueueTest : public ::testing::Test {
 protected:
  void Start(const QueueGraph& g) { ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(g.def)); }
  // The error of making `def`'s kernels, or of running `target`.
  absl::Status StartAndRun(const GraphDef& def, const std::string& target) {
    MG_ASSIGN_OR_RETURN(runner_, GraphRunner::Create(def));
    return Run(target);
  }
  absl::Status Run(const std::string& target,
                   std::vector<std::pair<std::string, Tensor>> feeds = {},
                   absl::Duration timeout = absl::ZeroDuration()) {
    std::vector<Tensor> out;
    return runner_->Run(feeds, {}, {target}, &out, timeout);
  }
  absl::StatusOr<Tensor> Fetch(const std::string& name,
                               std::vector<std::pair<std::string, Tensor>> feeds = {},
                               absl::Duration timeout = absl::ZeroDuration()) {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(runner_->Run(feeds, {name}, {}, &out, timeout));
    return out[0];
  }
  absl::Status EnqueueMany(const std::vector<int32_t>& v) {
    Tensor batch(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
    std::copy(v.begin(), v.end(), batch.data<int32_t>());
    return Run("enqueue_many", {{"batch:0", batch}});
  }
  absl::StatusOr<std::vector<int32_t>> DequeueMany(const std::string& op, int n,
                                                   absl::Duration timeout = absl::ZeroDuration()) {
    MG_ASSIGN_OR_RETURN(Tensor t, Fetch(op + ":0", {{"n:0", Tensor::Scalar<int32_t>(n)}}, timeout));
    return Values<int32_t>(t);
  }

  std::unique_ptr<GraphRunner> runner_;
};

TEST_F(QueueTest, AFifoQueueServesInOrderAndDrainsAfterClose) {
  Start(QueueGraph("FIFOQueueV2", {{"capacity", MakeAttrValue(3)},
                                   {"shapes", Shapes({PartialShape::Scalar()})}}));
  ASSERT_OK(EnqueueMany({1, 2, 3}));
  EXPECT_THAT(Fetch("size:0"), IsOkAndHolds(ScalarIs(int32_t{3})));
  ASSERT_OK(Run("close"));
  // TensorFlow 2.21: Cancelled "Queue '...' is already closed."
  EXPECT_THAT(Run("close"), StatusIs(absl::StatusCode::kCancelled, HasSubstr("already closed")));
  EXPECT_THAT(Fetch("is_closed:0"), IsOkAndHolds(ScalarIs(true)));
  EXPECT_THAT(DequeueMany("dequeue_many", 2), IsOkAndHolds(ElementsAre(1, 2)));
  EXPECT_THAT(DequeueMany("dequeue_many", 2),
              StatusIs(absl::StatusCode::kOutOfRange,
                       HasSubstr("FIFOQueue 'q' is closed and has insufficient elements "
                                 "(requested 2, current size 1)")));
  EXPECT_THAT(DequeueMany("dequeue_up_to", 5), IsOkAndHolds(ElementsAre(3)));
  EXPECT_THAT(Fetch("dequeue:0"), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Run("enqueue", {{"element:0", Tensor::Scalar<int32_t>(4)}}),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("FIFOQueue 'q' is closed.")));
}

TEST_F(QueueTest, TheV1OpsShareTheQueueThroughAReferenceToItsName) {
  Scope s = Scope::NewRootScope();
  const std::map<std::string, AttrValue> types = {
      {"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})}};
  std::map<std::string, AttrValue> attrs = types;
  attrs["shapes"] = Shapes({PartialShape::Scalar()});
  Output q = s.WithOpName("q").AddOp("FIFOQueue", {}, attrs).output(0);
  s.WithOpName("enqueue_many")
      .AddOp("QueueEnqueueMany", {{q}, {ops::Const(s, Tensor::Vector<int32_t>({4, 5, 6}))}});
  s.WithOpName("dequeue_many")
      .AddOp("QueueDequeueMany", {{q}, {ops::Const(s, Tensor::Scalar<int32_t>(2))}}, types);
  s.WithOpName("close").AddOp("QueueClose", {{q}});
  s.WithOpName("size").AddOp("QueueSize", {{q}});
  s.WithOpName("is_closed").AddOp("QueueIsClosed", {{q}});
  ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(s.ToGraphDef().value()));
  ASSERT_OK(Run("enqueue_many"));
  ASSERT_OK_AND_ASSIGN(Tensor got, Fetch("dequeue_many:0"));
  EXPECT_THAT(Values<int32_t>(got), ElementsAre(4, 5));
  ASSERT_OK(Run("close"));
  EXPECT_THAT(Fetch("size:0"), IsOkAndHolds(ScalarIs(int32_t{1})));
  EXPECT_THAT(Fetch("is_closed:0"), IsOkAndHolds(ScalarIs(true)));
  EXPECT_THAT(Fetch("dequeue_many:0"), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_F(QueueTest, ARandomShuffleQueueGivesTensorFlowsOrderForItsSeeds) {
  // tf.RandomShuffleQueue(100, 5, [tf.int32], shapes=[[]], seed=7) in a
  // graph without a seed: seed 87654321 (the default graph seed), seed2 7.
  Start(QueueGraph("RandomShuffleQueueV2", {{"capacity", MakeAttrValue(100)},
                                            {"min_after_dequeue", MakeAttrValue(5)},
                                            {"seed", MakeAttrValue(int64_t{87654321})},
                                            {"seed2", MakeAttrValue(int64_t{7})},
                                            {"shapes", Shapes({PartialShape::Scalar()})}}));
  std::vector<int32_t> all;
  for (int i = 0; i < 20; ++i) all.push_back(i);
  ASSERT_OK(EnqueueMany(all));
  EXPECT_THAT(DequeueMany("dequeue_many", 10),
              IsOkAndHolds(ElementsAre(7, 4, 19, 15, 0, 8, 10, 11, 14, 6)));
  ASSERT_OK(Run("close"));
  EXPECT_THAT(DequeueMany("dequeue_many", 10),
              IsOkAndHolds(ElementsAre(16, 1, 12, 3, 17, 5, 2, 18, 13, 9)));
  EXPECT_THAT(Fetch("dequeue:0"), StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_F(QueueTest, APriorityQueueGivesTheSmallestFirstAndBreaksTiesAsTensorFlow) {
  Scope s = Scope::NewRootScope();
  Output q = s.WithOpName("q")
                 .AddOp("PriorityQueueV2", {},
                        {{"component_types", MakeAttrValue(std::vector<DataType>{DT_STRING})},
                         {"shapes", Shapes({PartialShape::Scalar()})},
                         {"capacity", MakeAttrValue(10)}})
                 .output(0);
  s.WithOpName("enqueue_many")
      .AddOp("QueueEnqueueManyV2",
             {{q},
              {ops::Const(s, Tensor::Vector<int64_t>({5, 1, 5, 5, 1, 2})),
               ops::Const(s, Tensor::Vector<std::string>({"a", "b", "c", "d", "e", "f"}))}});
  const std::map<std::string, AttrValue> types = {
      {"component_types", MakeAttrValue(std::vector<DataType>{DT_INT64, DT_STRING})}};
  Output n = ops::Placeholder(s.WithOpName("n"), DT_INT32);
  s.WithOpName("dequeue_many").AddOp("QueueDequeueManyV2", {{q}, {n}}, types);
  s.WithOpName("dequeue_up_to").AddOp("QueueDequeueUpToV2", {{q}, {n}}, types);
  s.WithOpName("close").AddOp("QueueCloseV2", {{q}});
  ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(s.ToGraphDef().value()));
  ASSERT_OK(Run("enqueue_many"));
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({{"n:0", Tensor::Scalar<int32_t>(6)}},
                         {"dequeue_many:0", "dequeue_many:1"}, {}, &out));
  EXPECT_THAT(Values<int64_t>(out[0]), ElementsAre(1, 1, 2, 5, 5, 5));
  EXPECT_THAT(Values<std::string>(out[1]), ElementsAre("b", "e", "f", "c", "a", "d"));
  // TensorFlow's DequeueUpTo of a closed PriorityQueue with fewer elements
  // than asked fails OutOfRange and loses them; they come back here.
  ASSERT_OK(Run("enqueue_many"));
  ASSERT_OK(Run("close"));
  ASSERT_OK(runner_->Run({{"n:0", Tensor::Scalar<int32_t>(9)}},
                         {"dequeue_up_to:0", "dequeue_up_to:1"}, {}, &out));
  EXPECT_THAT(Values<std::string>(out[1]), ElementsAre("b", "e", "f", "c", "a", "d"));
}

TEST_F(QueueTest, APaddingFifoQueuePadsABatchToItsLargestElement) {
  Start(QueueGraph("PaddingFIFOQueueV2", {{"capacity", MakeAttrValue(10)},
                                          {"shapes", Shapes({PartialShape({-1})})}}));
  ASSERT_OK(Run("enqueue", {{"element:0", Tensor::Vector<int32_t>({1, 2})}}));
  ASSERT_OK(Run("enqueue", {{"element:0", Tensor::Vector<int32_t>({3})}}));
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch("dequeue_many:0", {{"n:0", Tensor::Scalar<int32_t>(2)}}));
  EXPECT_EQ(t.shape(), TensorShape({2, 2}));
  EXPECT_THAT(Values<int32_t>(t), ElementsAre(1, 2, 3, 0));
  ASSERT_OK_AND_ASSIGN(t, Fetch("dequeue_many:0", {{"n:0", Tensor::Scalar<int32_t>(0)}}));
  EXPECT_EQ(t.shape(), TensorShape({0, 0}));
  EXPECT_THAT(Run("enqueue", {{"element:0", Tensor::Scalar<int32_t>(1)}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape mismatch in tuple component 0. Expected [?], got []")));
}

TEST_F(QueueTest, ADequeueWaitsForAnotherStepsEnqueue) {
  Start(QueueGraph("FIFOQueueV2", {{"shapes", Shapes({PartialShape::Scalar()})}}));
  absl::StatusOr<std::vector<int32_t>> got;
  std::thread consumer([&] { got = DequeueMany("dequeue_many", 3); });
  ASSERT_OK(EnqueueMany({1}));
  ASSERT_OK(EnqueueMany({2, 3, 4}));
  consumer.join();
  EXPECT_THAT(got, IsOkAndHolds(ElementsAre(1, 2, 3)));
  EXPECT_THAT(Fetch("size:0"), IsOkAndHolds(ScalarIs(int32_t{1})));
}

TEST_F(QueueTest, ClosingWakesAWaitingDequeueWithOutOfRange) {
  Start(QueueGraph("FIFOQueueV2", {{"shapes", Shapes({PartialShape::Scalar()})}}));
  absl::Status got;
  std::thread consumer([&] { got = Fetch("dequeue:0").status(); });
  ASSERT_OK(Run("close"));
  consumer.join();
  EXPECT_THAT(got, StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("is closed")));
}

TEST_F(QueueTest, CancelPendingEnqueuesEndsAnEnqueueWaitingForRoom) {
  Start(QueueGraph("FIFOQueueV2", {{"capacity", MakeAttrValue(1)},
                                   {"shapes", Shapes({PartialShape::Scalar()})}}));
  ASSERT_OK(EnqueueMany({1}));
  absl::Status got;
  std::thread producer([&] { got = EnqueueMany({2}); });
  ASSERT_OK(Run("cancel"));
  producer.join();
  // Either it was cancelled while waiting, or it had not started and found
  // the queue closed: both refuse the element.
  EXPECT_THAT(got, StatusIs(absl::StatusCode::kCancelled));
  EXPECT_THAT(DequeueMany("dequeue_up_to", 5), IsOkAndHolds(ElementsAre(1)));
}

TEST_F(QueueTest, AStepPastItsDeadlineGivesBackWhatItsDequeueHadTaken) {
  Start(QueueGraph("FIFOQueueV2", {{"shapes", Shapes({PartialShape::Scalar()})}}));
  ASSERT_OK(EnqueueMany({1, 2}));
  EXPECT_THAT(DequeueMany("dequeue_up_to", 3, absl::Milliseconds(100)),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  // TensorFlow drops the two elements here (the closed queue is then
  // empty: OutOfRange); they are still in the queue.
  ASSERT_OK(Run("close"));
  EXPECT_THAT(DequeueMany("dequeue_up_to", 3), IsOkAndHolds(ElementsAre(1, 2)));
}

TEST_F(QueueTest, BadQueuesAreErrorsNamingTheNode) {
  const PartialShape scalar = PartialShape::Scalar();
  struct Case {
    std::string op;
    std::map<std::string, AttrValue> attrs;
    std::string error;
  } cases[] = {
      {"FIFOQueueV2", {{"capacity", MakeAttrValue(0)}}, "FIFOQueue 'q': capacity 0"},
      {"RandomShuffleQueueV2",
       {{"capacity", MakeAttrValue(5)}, {"min_after_dequeue", MakeAttrValue(5)}},
       "min_after_dequeue 5 must be < capacity 5"},
      {"FIFOQueueV2", {{"shapes", Shapes({PartialShape({-1})})}}, "is not fully defined"},
      {"FIFOQueueV2", {{"shapes", Shapes({scalar, scalar})}}, "1 component types but 2 shapes"},
      {"PaddingFIFOQueueV2", {}, "Shapes must be provided for all components"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(StartAndRun(QueueGraph(c.op, c.attrs).def, "size"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.error)))
        << c.op;
  }
}

TEST_F(QueueTest, BadUseIsAnErrorAndBlocksNothing) {
  Start(QueueGraph("FIFOQueueV2", {{"capacity", MakeAttrValue(3)},
                                   {"shapes", Shapes({PartialShape::Scalar()})}}));
  EXPECT_THAT(DequeueMany("dequeue_many", -1),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("DequeueManyOp requested -1 < 0 elements")));
  EXPECT_THAT(Run("enqueue_many", {{"batch:0", Tensor::Scalar<int32_t>(1)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is a scalar")));
  EXPECT_THAT(Run("enqueue", {{"element:0", Tensor::Vector<int32_t>({1, 2})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape mismatch in tuple component 0. Expected [], got [2]")));

  // A dequeue of another dtype than the queue's.
  QueueGraph floats("FIFOQueueV2", {{"shapes", Shapes({PartialShape::Scalar()})}}, DT_FLOAT);
  for (NodeDef& n : *floats.def.mutable_node()) {
    if (n.name() == "q") {
      (*n.mutable_attr())["component_types"] = MakeAttrValue(std::vector<DataType>{DT_INT32});
    }
  }
  Start(floats);
  EXPECT_THAT(Fetch("dequeue:0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Signature mismatch, have: resource->float expected: "
                                 "resource->int32")));

  // A FIFOQueue without shapes cannot batch.
  Start(QueueGraph("FIFOQueueV2", {}));
  ASSERT_OK(EnqueueMany({1, 2}));
  EXPECT_THAT(DequeueMany("dequeue_many", 2),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("FIFOQueue's DequeueMany and DequeueUpTo require the "
                                 "components to have specified shapes.")));
}

TEST_F(QueueTest, ASharedQueueMustBeTheQueueEveryNodeDescribes) {
  Scope s = Scope::NewRootScope();
  for (int capacity : {1, 2}) {
    s.WithOpName("q" + std::to_string(capacity))
        .AddOp("FIFOQueueV2", {},
               {{"component_types", MakeAttrValue(std::vector<DataType>{DT_FLOAT})},
                {"capacity", MakeAttrValue(capacity)},
                {"shared_name", MakeAttrValue("shared")}});
  }
  ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(s.ToGraphDef().value()));
  ASSERT_OK(Run("q1"));
  EXPECT_THAT(Run("q2"), StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("Shared queue 'shared' has capacity 1 but requested "
                                            "capacity was 2")));
}

TEST_F(QueueTest, ATimeoutAttrIsRefusedAsTensorFlowRefusesIt) {
  Scope s = Scope::NewRootScope();
  Output q = s.WithOpName("q").AddOp(
      "FIFOQueueV2", {}, {{"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})}})
                 .output(0);
  s.WithOpName("dequeue").AddOp(
      "QueueDequeueV2", {{q}},
      {{"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})},
       {"timeout_ms", MakeAttrValue(5)}});
  EXPECT_THAT(StartAndRun(s.ToGraphDef().value(), "dequeue"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Timeout not supported yet.")));
}

}  // namespace
}  // namespace minigraph
