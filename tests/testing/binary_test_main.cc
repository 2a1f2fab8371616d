// gtest's main for tests of one binary: its path is the one argument
// (binary_under_test.h).
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "tests/testing/binary_under_test.h"

namespace minigraph {
namespace {
std::string* binary = nullptr;
}  // namespace

const std::string& BinaryUnderTest() { return *binary; }

}  // namespace minigraph

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATH_OF_THE_BINARY_UNDER_TEST\n", argv[0]);
    return 2;
  }
  minigraph::binary = new std::string(argv[1]);
  return RUN_ALL_TESTS();
}
