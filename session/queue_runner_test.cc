#include "session/queue_runner.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/graph/node_def_util.h"
#include "session/coordinator.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// A TensorFlow 1 input pipeline's shape: "source" (closed, holding 0..9)
// feeds "batches" through the runner's enqueue op "move" (dequeue one,
// enqueue it); steps dequeue "take" (2 at a time) from "batches".
// `capacity` bounds "batches".
struct Pipeline {
  explicit Pipeline(int capacity, const std::string& move_input = "") {
    Scope s = Scope::NewRootScope();
    const std::map<std::string, AttrValue> ints = {
        {"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})}};
    auto with_shapes = [&](int capacity) {
      std::map<std::string, AttrValue> a = ints;
      a["capacity"] = MakeAttrValue(capacity);
      AttrValue shapes;
      PartialShape::Scalar().AsProto(shapes.mutable_list()->add_shape());
      a["shapes"] = shapes;
      return a;
    };
    Output source = s.WithOpName("source").AddOp("FIFOQueueV2", {}, with_shapes(100)).output(0);
    Output batches =
        s.WithOpName("batches").AddOp("FIFOQueueV2", {}, with_shapes(capacity)).output(0);
    s.WithOpName("fill").AddOp(
        "QueueEnqueueManyV2",
        {{source}, {ops::Const(s, Tensor::Vector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))}});
    s.WithOpName("close_source").AddOp("QueueCloseV2", {{source}});
    Output one = s.WithOpName("one").AddOp("QueueDequeueV2", {{source}}, ints).output(0);
    if (!move_input.empty()) one = ops::Const(s, Tensor::Scalar<float>(1.0f));  // a bad enqueue
    s.WithOpName("move").AddOp("QueueEnqueueV2", {{batches}, {one}});
    s.WithOpName("close").AddOp("QueueCloseV2", {{batches}});
    s.WithOpName("cancel").AddOp("QueueCloseV2", {{batches}},
                                 {{"cancel_pending_enqueues", MakeAttrValue(true)}});
    s.WithOpName("take").AddOp("QueueDequeueManyV2",
                               {{batches}, {ops::Const(s, Tensor::Scalar<int32_t>(2))}}, ints);
    graph = s.ToGraphDef().value();
    def.set_queue_name("batches");
    def.add_enqueue_op_name("move");
    def.set_close_op_name("close");
    def.set_cancel_op_name("cancel");
  }
  GraphDef graph;
  QueueRunnerDef def;
};

class QueueRunnerTest : public ::testing::Test {
 protected:
  void Open(const Pipeline& p) {
    ASSERT_OK_AND_ASSIGN(session_, NewSession(SessionOptions()));
    ASSERT_OK(session_->Create(p.graph));
    ASSERT_OK(session_->Run({}, {}, {"fill"}, nullptr));
    ASSERT_OK(session_->Run({}, {}, {"close_source"}, nullptr));
  }
  std::unique_ptr<Session> session_;
};

TEST_F(QueueRunnerTest, TheRunnerFillsTheQueueUntilItsInputEndsAndThenClosesIt) {
  Pipeline p(/*capacity=*/3);
  Open(p);
  Coordinator coord;
  ASSERT_OK(StartQueueRunner(p.def, session_.get(), &coord));
  std::vector<int32_t> got;
  absl::Status s;
  while (true) {
    std::vector<Tensor> out;
    s = session_->Run({}, {"take:0"}, {}, &out);
    if (!s.ok()) break;
    got.insert(got.end(), out[0].data<int32_t>(), out[0].data<int32_t>() + 2);
  }
  // The end of the input ends the steps: OutOfRange, not an error.
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_EQ(got, std::vector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  coord.RequestStop(s);
  EXPECT_OK(coord.Join());
}

TEST_F(QueueRunnerTest, AStopWakesAThreadBlockedOnAFullQueue) {
  Pipeline p(/*capacity=*/1);
  Open(p);
  Coordinator coord(/*stop_grace_period=*/absl::Seconds(30));
  ASSERT_OK(StartQueueRunner(p.def, session_.get(), &coord));
  std::vector<Tensor> out;
  ASSERT_OK(session_->Run({}, {"take:0"}, {}, &out));  // the runner waits for room meanwhile
  coord.RequestStop();
  EXPECT_OK(coord.Join());
}

TEST_F(QueueRunnerTest, AnEnqueueErrorStopsTheCoordinatorWithIt) {
  Pipeline p(/*capacity=*/3, /*move_input=*/"float");
  Open(p);
  Coordinator coord;
  ASSERT_OK(StartQueueRunner(p.def, session_.get(), &coord));
  EXPECT_TRUE(coord.WaitForStop());
  EXPECT_THAT(coord.Join(), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("QueueRunner for batches: move: ")));
}

TEST_F(QueueRunnerTest, TheMetaGraphsRunnersAreReadAndCheckedFromItsCollection) {
  Pipeline p(/*capacity=*/3);
  MetaGraphDef meta;
  *meta.mutable_graph_def() = p.graph;
  auto* list = (*meta.mutable_collection_def())[kQueueRunnersCollection].mutable_bytes_list();
  list->add_value(p.def.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(std::vector<QueueRunnerDef> defs, QueueRunnersOf(meta));
  ASSERT_EQ(defs.size(), 1u);
  EXPECT_EQ(defs[0].enqueue_op_name(0), "move");
  list->add_value("\xff not a proto");
  EXPECT_THAT(QueueRunnersOf(meta), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("entry 1 of the meta graph's")));
  Coordinator coord;
  QueueRunnerDef empty;
  empty.set_queue_name("q");
  EXPECT_THAT(StartQueueRunner(empty, nullptr, &coord),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("q has no enqueue op")));
  QueueRunnerDef uncancellable = p.def;
  uncancellable.clear_cancel_op_name();
  EXPECT_THAT(StartQueueRunner(uncancellable, nullptr, &coord),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no cancel op")));
}

}  // namespace
}  // namespace minigraph
