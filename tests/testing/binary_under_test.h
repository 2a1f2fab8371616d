// Tests of one binary run as a process (a //tools:server): link
// :binary_test_main, give the binary's path as the test's one argument
// (args = ["$(location //tools:server)"]), and read it here.
//
//   auto p = Subprocess::Start({BinaryUnderTest(), "--job_name=ps"});
//
// Thread safety: set once by main before any test runs; read-only after.

#ifndef MINIGRAPH_TESTS_TESTING_BINARY_UNDER_TEST_H_
#define MINIGRAPH_TESTS_TESTING_BINARY_UNDER_TEST_H_

#include <string>

namespace minigraph {

// The path the test was given.
const std::string& BinaryUnderTest();

}  // namespace minigraph

#endif  // MINIGRAPH_TESTS_TESTING_BINARY_UNDER_TEST_H_
