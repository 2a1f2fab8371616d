#include "core/text_proto.h"

#include "core/proto/graph.pb.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(TextProtoTest, ParsesTextIntoAClearedMessage) {
  GraphDef g;
  g.add_node()->set_name("old");
  ASSERT_OK(ParseTextProto(R"pb(node { name: "a" op: "NoOp" })pb", &g));
  ASSERT_EQ(g.node_size(), 1);
  EXPECT_EQ(g.node(0).name(), "a");
  ASSERT_OK(ParseTextProto("", &g));
  EXPECT_EQ(g.node_size(), 0);
}

TEST(TextProtoTest, TheFirstComplaintNamesItsLineAndColumn) {
  GraphDef g;
  EXPECT_THAT(ParseTextProto("node { name: \"a\" }\nnode { nme: \"b\" }\nbogus", &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("2:11: Message type \"minigraph.NodeDef\" has no field "
                                 "named \"nme\"")));
  EXPECT_THAT(ParseTextProto("node {", &g),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1:7: ")));
}

}  // namespace
}  // namespace minigraph
