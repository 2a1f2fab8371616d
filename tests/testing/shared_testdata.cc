#include "tests/testing/shared_testdata.h"

#include <limits.h>
#include <stdlib.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "core/env.h"
#include "core/path.h"

namespace minigraph {
namespace testing {

absl::StatusOr<std::string> SharedTestdataDir() {
  if (const char* env = std::getenv("MG_SHARED_TESTDATA"); env != nullptr && *env) {
    if (Env::Default()->FileExists(env).ok()) return std::string(env);
    return absl::NotFoundError(absl::StrCat(
        "MG_SHARED_TESTDATA=", env, " does not exist; skipping the test that needs it"));
  }
  // The runfile WORKSPACE_ROOT_MARKER is a symlink into the source tree.
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  std::string tried = "(no TEST_SRCDIR)";
  if (srcdir != nullptr && ws != nullptr) {
    const std::string marker = JoinPath(JoinPath(srcdir, ws), "tests/testing/BUILD");
    char real[PATH_MAX];
    if (realpath(marker.c_str(), real) != nullptr) {
      const std::string root(Dirname(Dirname(Dirname(real))));
      const std::string dir = JoinPath(Dirname(root), "shared/testdata");
      if (Env::Default()->FileExists(dir).ok()) return dir;
      tried = dir;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "shared test data not found at ", tried,
      " (set MG_SHARED_TESTDATA to the shared/testdata directory); skipping the "
      "test that reads files written by TensorFlow"));
}

}  // namespace testing
}  // namespace minigraph
