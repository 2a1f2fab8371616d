// Every kernel :standard_kernels registers runs an op of the registry, and
// its registration spells the op's name in its family's sources, so that
// `grep -rn '"ResourceApplyAdam"' runtime/engine/kernels` finds it.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/standard_kernels.h"
#include "runtime/graph/ops/standard_ops.h"

namespace minigraph {
namespace {

// The families' sources, given as the test's arguments.
std::vector<std::string> g_sources;

TEST(StandardKernelsTest, EveryKernelRunsARegisteredOpNamedInItsFamilysSources) {
  ASSERT_GT(g_sources.size(), 20u);
  std::string all;
  for (const std::string& path : g_sources) {
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << path;
    std::stringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  const std::vector<std::string> ops = GlobalKernelRegistry()->Ops();
  ASSERT_GT(ops.size(), 380u);
  std::vector<std::string> unregistered, unnamed;
  for (const std::string& op : ops) {
    if (!GlobalOpRegistry()->LookUp(op).ok()) unregistered.push_back(op);
    if (all.find(absl::StrCat("\"", op, "\"")) == std::string::npos) unnamed.push_back(op);
  }
  EXPECT_TRUE(unregistered.empty()) << "kernels of no registered op: "
                                    << absl::StrJoin(unregistered, ", ");
  EXPECT_TRUE(unnamed.empty()) << "kernels whose op's name no family source spells: "
                               << absl::StrJoin(unnamed, ", ");
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) minigraph::g_sources.push_back(argv[i]);
  return RUN_ALL_TESTS();
}
