// A graph whose step never ends by itself, for tests of step deadlines: its
// node "forever" is the result of `while (x == x) x = x`, a TensorFlow 1
// loop (Enter, Merge, Switch, NextIteration, Exit).
//
//   ASSERT_OK_AND_ASSIGN(GraphDef def, EndlessLoopGraph());
//   EXPECT_THAT(session->Run(run_with_deadline, {}, {"forever:0"}, {}, &out),
//               StatusIs(absl::StatusCode::kDeadlineExceeded));

#ifndef MINIGRAPH_TESTS_TESTING_ENDLESS_LOOP_H_
#define MINIGRAPH_TESTS_TESTING_ENDLESS_LOOP_H_

#include "absl/status/statusor.h"
#include "core/proto/graph.pb.h"

namespace minigraph {

absl::StatusOr<GraphDef> EndlessLoopGraph();

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_ENDLESS_LOOP_H_
