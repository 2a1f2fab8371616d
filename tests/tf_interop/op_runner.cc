// minigraph's side of the op interop test: runs many small graphs, each a
// case TensorFlow built and ran, and records what each gave.
//
//   op_runner IN OUT
//
// IN is a tensor file of cases (op_case.h).
// OUT gets, for each case, "<case>|out|<i>" for each fetched tensor, or
// "<case>|error": a vector of two strings, the status code's number and its
// message. Each case's name goes to stderr ("case: NAME") before it runs, so
// that a crash names the case. Exit 0, or 1 with the error on stderr when IN is bad.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "tests/tf_interop/op_case.h"
#include "tests/tf_interop/tensor_records.h"

namespace minigraph {
namespace {

absl::Status Main(const std::string& in, const std::string& out_path) {
  MG_ASSIGN_OR_RETURN(std::vector<OpCase> cases, ReadOpCases(in));
  std::string records;
  for (const OpCase& c : cases) {
    std::fprintf(stderr, "case: %s\n", c.name.c_str());
    std::fflush(stderr);
    std::vector<Tensor> out;
    if (absl::Status s = RunOpCase(c, &out); !s.ok()) {
      Tensor error(DT_STRING, TensorShape({2}));
      error.data<std::string>()[0] = absl::StrCat(static_cast<int>(s.code()));
      error.data<std::string>()[1] = std::string(s.message());
      AppendTensorRecord(c.name + "|error", error, &records);
      continue;
    }
    for (size_t i = 0; i < out.size(); ++i) {
      AppendTensorRecord(absl::StrCat(c.name, "|out|", i), out[i], &records);
    }
  }
  return WriteStringToFile(Env::Default(), out_path, records);
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: op_runner IN OUT\n");
    return 2;
  }
  if (absl::Status s = minigraph::Main(argv[1], argv[2]); !s.ok()) {
    std::fprintf(stderr, "op_runner: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
