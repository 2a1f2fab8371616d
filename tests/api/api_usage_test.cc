// The C++ API as a user writes it: option structs through designated
// initializers that name only the fields they change (compiled with
// -Werror=missing-field-initializers), and shapes from containers and
// literals.
#include <vector>

#include "core/status_matchers.h"
#include "core/tensor_shape.h"
#include "gtest/gtest.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/shape_inference.h"
#include "session/saver.h"
#include "session/scaffold.h"
#include "session/session.h"
#include "session/session_manager.h"

namespace minigraph {
namespace {

TEST(ApiUsageTest, OptionStructsTakeAnyFieldByName) {
  const VariableOptions variable = {.validate_shape = false};
  const SaverOptions saver = {.pad_step_number = true};
  const SaveOptions save = {.write_state = false};
  const SessionOptions session = {.intra_op_threads = 1};
  const RunOptions run = {.timeout_in_ms = 5};
  const SessionManager::Options manager = {.recovery_wait = absl::Seconds(1)};
  const SessionManager::PrepareOptions prepare = {.wait_for_checkpoint = true};
  const ScaffoldOptions scaffold = {.local_init_op = {"x"}};
  EXPECT_FALSE(variable.validate_shape);
  EXPECT_EQ(variable.collections, std::vector<std::string>{kGlobalVariables});
  EXPECT_TRUE(saver.pad_step_number);
  EXPECT_EQ(saver.max_to_keep, 5);
  EXPECT_FALSE(save.write_state);
  EXPECT_FALSE(save.global_step.has_value());
  EXPECT_EQ(session.intra_op_threads, 1);
  EXPECT_EQ(session.env, Env::Default());
  EXPECT_EQ(run.timeout_in_ms, 5);
  EXPECT_EQ(manager.recovery_wait, absl::Seconds(1));
  EXPECT_TRUE(prepare.wait_for_checkpoint);
  EXPECT_EQ(prepare.max_wait, absl::Seconds(7200));
  EXPECT_EQ(scaffold.local_init_op, std::vector<std::string>{"x"});
}

TEST(ApiUsageTest, ShapesFromContainersAndLiterals) {
  const std::vector<int64_t> dims = {2, 3};
  EXPECT_EQ(TensorShape(dims), TensorShape({2, 3}));
  EXPECT_EQ(TensorShape(dims).num_elements(), 6);
  EXPECT_EQ(TensorShape({}).dims(), 0);
  EXPECT_THAT(TensorShape::Build(std::vector<int64_t>{2, -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));

  const PartialShape scalar({});
  EXPECT_TRUE(scalar.rank_known());
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(PartialShape({-1, 4}).DebugString(), "[?,4]");
  EXPECT_FALSE(PartialShape().rank_known());
}

}  // namespace
}  // namespace minigraph
