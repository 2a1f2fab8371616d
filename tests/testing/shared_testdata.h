// Locates ../shared/testdata (files written by real TensorFlow, never
// committed) from a test.
//
//   TEST(Foo, ReadsRealCheckpoint) {
//     MG_REQUIRE_SHARED_TESTDATA(dir);   // skips the test with a message if absent
//     std::string prefix = JoinPath(dir, "tf_checkpoints/...");
//   }
//
// The directory is $MG_SHARED_TESTDATA when set, else the `shared/testdata`
// folder beside the source tree (found through the test's runfiles).

#ifndef MINIGRAPH_TESTS_TESTING_SHARED_TESTDATA_H_
#define MINIGRAPH_TESTS_TESTING_SHARED_TESTDATA_H_

#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace testing {

// Returns the directory, or NotFound saying where it was looked for.
absl::StatusOr<std::string> SharedTestdataDir();

}  // namespace testing
}  // namespace minigraph

#define MG_REQUIRE_SHARED_TESTDATA(dir)                                         \
  std::string dir;                                                              \
  do {                                                                          \
    auto mg_dir_ = ::minigraph::testing::SharedTestdataDir();                   \
    if (!mg_dir_.ok()) GTEST_SKIP() << mg_dir_.status().message();              \
    dir = *mg_dir_;                                                             \
  } while (0)

#endif  // MINIGRAPH_TESTS_TESTING_SHARED_TESTDATA_H_
