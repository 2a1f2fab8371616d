// The master's placement and partitioning on graphs built here, without
// servers: what goes where, and which _Send/_Recv pairs a step needs.
#include <map>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/partition.h"

namespace minigraph {
namespace distributed_internal {
namespace {

using ::testing::HasSubstr;

constexpr char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";
constexpr char kWorker[] = "/job:worker/replica:0/task:0/device:CPU:0";

struct Built {
  std::unique_ptr<Graph> graph;
  std::vector<std::string> placement;
  std::map<std::string, std::string> device;  // node -> placed device
};

Built Place(const Scope& root) {
  Built b;
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  auto g = Graph::Create(*def, GlobalOpRegistry());
  EXPECT_OK(g.status());
  b.graph = *std::move(g);
  auto cluster = ParseClusterSpec("ps=h:1;worker=h:2");
  auto placement = PlaceGraph(*b.graph, *cluster, "worker", 0);
  EXPECT_OK(placement.status());
  b.placement = *std::move(placement);
  for (const Node& n : b.graph->nodes()) b.device[n.name()] = b.placement[n.id()];
  return b;
}

int Count(const GraphDef& g, const std::string& op) {
  int n = 0;
  for (const NodeDef& node : g.node()) n += node.op() == op;
  return n;
}

TEST(PartitionGraphTest, ColocationFollowsTheVariable) {
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(1, "/job:worker/task:0"));
  Variable v = Variable::Create(s, "v", Tensor::Scalar<float>(1));
  ops::AssignAdd(s.WithOpName("add"), v.ref(), ops::Const(s, 2.0f));
  ops::Identity(root.WithOpName("unplaced"), v.value());
  Built b = Place(root);
  EXPECT_EQ(b.device["v"], kPs);
  EXPECT_EQ(b.device["v/read"], kPs);    // Identity of the ref
  EXPECT_EQ(b.device["v/Assign"], kPs);  // the setter said worker; colocation wins
  EXPECT_EQ(b.device["add"], kPs);
  EXPECT_EQ(b.device["unplaced"], kWorker);  // the default task
}

TEST(PartitionGraphTest, EdgesBetweenTasksBecomeSendRecvPairs) {
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(1, "/job:worker/task:0"));
  Variable a = Variable::Create(s, "a", Tensor::Scalar<float>(1));
  Variable b = Variable::Create(s, "b", Tensor::Scalar<float>(1));
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Mul(s.WithOpName("y"), ops::Add(s, a.value(), b.value()), x);
  Output rate = ops::Const(s.WithOpName("rate"), 0.5f);  // the setter puts it on the worker
  Operation up_a = ops::ApplyGradientDescent(s.WithOpName("up_a"), a.ref(), rate, y).op();
  Operation up_b = ops::ApplyGradientDescent(s.WithOpName("up_b"), b.ref(), rate, y).op();
  ops::Group(s.WithOpName("train"), {up_a, up_b});
  Built built = Place(root);
  ASSERT_OK_AND_ASSIGN(
      std::vector<Partition> parts,
      PartitionGraph(*built.graph, built.placement, {{kPs, 7}, {kWorker, 8}}, {"x:0"}, {"y:0"},
                     {"train"}));
  ASSERT_EQ(parts.size(), 2u);
  const Partition& ps = parts[0].device == kPs ? parts[0] : parts[1];
  const Partition& worker = parts[0].device == kPs ? parts[1] : parts[0];
  // Worker: a and b's values come in (2), the fed x (1), and one control
  // signal for the two updates of the train group (1, not 2).
  EXPECT_EQ(Count(worker.graph, "_Recv"), 4);
  // ps: y comes in once for both updates; the constant rate is copied to
  // the ps instead of sent (its Consts: that copy, and the dummy scalar of
  // the control signal to the train group).
  EXPECT_EQ(Count(ps.graph, "_Recv"), 1);
  EXPECT_EQ(Count(ps.graph, "Const"), 2);
  // The feed is received where it is consumed, the fetch sent where made.
  ASSERT_EQ(worker.feeds.size(), 1u);
  EXPECT_EQ(worker.feeds[0].first, "x:0");
  EXPECT_THAT(worker.feeds[0].second, HasSubstr(";x:0;0:0"));
  ASSERT_EQ(worker.fetches.size(), 1u);
  // Both keyed with the worker's device at both ends, so that a
  // TensorFlow worker takes them.
  EXPECT_EQ(worker.feeds[0].second,
            absl::StrCat(kWorker, ";0000000000000008;", kWorker, ";x:0;0:0"));
  EXPECT_EQ(worker.fetches[0].second,
            absl::StrCat(kWorker, ";0000000000000008;", kWorker, ";y;0:0"));
  // Every node of a partition is on its device.
  for (const Partition* p : {&ps, &worker}) {
    for (const NodeDef& n : p->graph.node()) EXPECT_EQ(n.device(), p->device) << n.name();
  }
}

TEST(PartitionGraphTest, PruningAndBadNames) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("used"), 1.0f);
  ops::Const(root.WithOpName("unused"), 2.0f);
  Built b = Place(root);
  ASSERT_OK_AND_ASSIGN(std::vector<Partition> parts,
                       PartitionGraph(*b.graph, b.placement, {}, {}, {"used"}, {}));
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].graph.node_size(), 2);  // "used" and its fetch _Send
  EXPECT_THAT(PartitionGraph(*b.graph, b.placement, {}, {}, {"nope:0"}, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("fetch 'nope:0'")));
  EXPECT_THAT(PartitionGraph(*b.graph, b.placement, {}, {}, {"used:3"}, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 1 outputs")));
}

}  // namespace
}  // namespace distributed_internal
}  // namespace minigraph
