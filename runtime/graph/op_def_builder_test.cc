// OpDefBuilder on its own: TensorFlow's signature strings become OpDefs, and
// a malformed one is an error naming the op and the spec.
#include "runtime/graph/op_def_builder.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OpDefBuilderTest, SignatureStringsBecomeTensorFlowsOpDef) {
  ASSERT_OK_AND_ASSIGN(OpRegistrationData data,
                       OpDefBuilder("ConcatLike")
                           .Input("values: N * T")
                           .Input("axis: int32")
                           .Output("output: T")
                           .Attr("N: int >= 2")
                           .Attr("T: {float, int32} = DT_FLOAT")
                           .Attr("keep: bool = true")
                           .Attr("label: string = \"x\"")
                           .Attr("dims: list(int) = [1, 2]")
                           .SetIsStateful()
                           .Finalize());
  const OpDef& op = data.op_def;
  EXPECT_EQ(op.name(), "ConcatLike");
  ASSERT_EQ(op.input_arg_size(), 2);
  EXPECT_EQ(op.input_arg(0).name(), "values");
  EXPECT_EQ(op.input_arg(0).number_attr(), "N");
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.input_arg(1).type(), DT_INT32);
  ASSERT_EQ(op.output_arg_size(), 1);
  EXPECT_EQ(op.output_arg(0).type_attr(), "T");
  ASSERT_EQ(op.attr_size(), 5);
  EXPECT_EQ(op.attr(0).name(), "N");
  EXPECT_EQ(op.attr(0).type(), "int");
  EXPECT_TRUE(op.attr(0).has_minimum());
  EXPECT_EQ(op.attr(0).minimum(), 2);
  EXPECT_EQ(op.attr(1).type(), "type");
  EXPECT_THAT(op.attr(1).allowed_values().list().type(), ElementsAre(DT_FLOAT, DT_INT32));
  EXPECT_EQ(op.attr(1).default_value().type(), DT_FLOAT);
  EXPECT_TRUE(op.attr(2).default_value().b());
  EXPECT_EQ(op.attr(3).default_value().s(), "x");
  EXPECT_THAT(op.attr(4).default_value().list().i(), ElementsAre(1, 2));
  EXPECT_TRUE(op.is_stateful());
  EXPECT_FALSE(static_cast<bool>(data.shape_fn));
}

TEST(OpDefBuilderTest, RefAndTypeListArguments) {
  ASSERT_OK_AND_ASSIGN(OpRegistrationData data, OpDefBuilder("AssignLike")
                                                    .Input("ref: Ref(T)")
                                                    .Input("rest: Tlist")
                                                    .Output("out: Ref(T)")
                                                    .Attr("T: type")
                                                    .Attr("Tlist: list(type) >= 0")
                                                    .Finalize());
  EXPECT_TRUE(data.op_def.input_arg(0).is_ref());
  EXPECT_EQ(data.op_def.input_arg(1).type_list_attr(), "Tlist");
  EXPECT_TRUE(data.op_def.output_arg(0).is_ref());
}

TEST(OpDefBuilderTest, MalformedSpecsNameTheOpAndTheSpec) {
  auto bad = [](OpDefBuilder b, const char* spec) {
    EXPECT_THAT(b.Finalize().status(),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("Broken"), HasSubstr(spec))))
        << spec;
  };
  bad(std::move(OpDefBuilder("Broken").Input("no_colon")), "no_colon");
  bad(std::move(OpDefBuilder("Broken").Attr("T: nosuchtype")), "nosuchtype");
  bad(std::move(OpDefBuilder("Broken").Input("x: U")), "U");
  bad(std::move(OpDefBuilder("Broken").Attr("n: int = many")), "many");
}

}  // namespace
}  // namespace minigraph
