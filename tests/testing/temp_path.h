// A path for a test's own files on the real file system: under Bazel's
// TEST_TMPDIR (private to the test, removed after it), or /tmp when the
// test runs by hand.
//
//   const std::string dir = TestTempPath("mapped");
//   ASSERT_OK(Env::Default()->CreateDir(dir));
//
// Thread safety: a function of the environment only.

#ifndef MINIGRAPH_TESTS_TESTING_TEMP_PATH_H_
#define MINIGRAPH_TESTS_TESTING_TEMP_PATH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace minigraph {

// `name` joined to the test's temporary directory; nothing is created.
std::string TestTempPath(absl::string_view name);

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_TEMP_PATH_H_
