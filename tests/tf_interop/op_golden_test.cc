// Every op's golden cases (tests/tf_interop/golden: small graphs with what
// TensorFlow 2.21 gave, written by op_interop_test.py) replayed without
// Python: each case runs in a fresh session and must give TensorFlow's
// outputs within their tolerance, or fail with TensorFlow's status code; the
// gradient cases add minigraph's symbolic gradients first. And every op that
// op_counts.tsv says agrees with TensorFlow has a golden case here, and one
// of its gradient where it has gradient cases, but the few that only read and
// write files (golden/uncovered.tsv).

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/env.h"
#include "gtest/gtest.h"
#include "gmock/gmock.h"
#include "tests/tf_interop/op_case.h"
#include "tests/tf_interop/tensor_records.h"

namespace minigraph {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "minigraph") + "/" +
         path;
}

std::vector<OpCase> GoldenCases() {
  const std::string dir = Runfile("tests/tf_interop/golden");
  absl::StatusOr<std::vector<std::string>> names = Env::Default()->GetChildren(dir);
  EXPECT_TRUE(names.ok()) << names.status();
  std::vector<OpCase> cases;
  if (!names.ok()) return cases;
  for (const std::string& name : *names) {
    if (!absl::EndsWith(name, ".records")) continue;
    absl::StatusOr<std::vector<OpCase>> read = ReadOpCases(dir + "/" + name);
    EXPECT_TRUE(read.ok()) << read.status();
    if (!read.ok()) continue;
    for (OpCase& c : *read) cases.push_back(std::move(c));
  }
  return cases;
}

TEST(OpGolden, ABadGoldenFileIsAnErrorNamingItAndTheRecord) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/bad.records";
  std::string records;
  AppendTensorRecord("Abs.case|tol|0", Tensor::Vector<double>({1e-5}), &records);  // 1 value
  ASSERT_TRUE(WriteStringToFile(Env::Default(), path, records).ok());
  absl::StatusOr<std::vector<OpCase>> read = ReadOpCases(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()),
              ::testing::AllOf(::testing::HasSubstr(path),
                               ::testing::HasSubstr("bad record \"Abs.case|tol|0\"")));
  records.clear();
  AppendTensorRecord("no_separator", Tensor::Scalar<int32_t>(1), &records);
  ASSERT_TRUE(WriteStringToFile(Env::Default(), path, records).ok());
  EXPECT_THAT(std::string(ReadOpCases(path).status().message()),
              ::testing::HasSubstr("bad key \"no_separator\""));
  // Cut short: the records' reader says where.
  AppendTensorRecord("x|fetch", Tensor::Vector<std::string>({"a:0"}), &records);
  ASSERT_TRUE(
      WriteStringToFile(Env::Default(), path, records.substr(0, records.size() - 3)).ok());
  EXPECT_FALSE(ReadOpCases(path).ok());
}

// What TensorFlow gave is compared as numpy's allclose does, and a
// difference names the first element.
TEST(OpGolden, ComparesWithinTolerance) {
  const Tensor want = Tensor::Vector<float>({1.0f, NAN, 3.0f});
  EXPECT_EQ(CompareToWant(want, Tensor::Vector<float>({1.00001f, NAN, 3.0f}), 1e-4, 0), "");
  EXPECT_THAT(CompareToWant(want, Tensor::Vector<float>({1.0f, 2.0f, 3.0f}), 1e-4, 0),
              ::testing::HasSubstr("1 of 3 differ, e.g. at 1"));
  EXPECT_THAT(CompareToWant(want, Tensor::Vector<double>({1.0, 2.0, 3.0}), 1e-4, 0),
              ::testing::HasSubstr("where TensorFlow has float"));
  EXPECT_EQ(CompareToWant(Tensor::Vector<int32_t>({5}), Tensor::Vector<int32_t>({6}), 0, 1), "");
  EXPECT_NE(CompareToWant(Tensor::Vector<int32_t>({5}), Tensor::Vector<int32_t>({7}), 0, 1), "");
}

TEST(OpGolden, EveryCaseGivesTensorFlowsResult) {
  std::vector<OpCase> cases = GoldenCases();
  ASSERT_GT(cases.size(), 1000u);
  std::vector<std::string> problems;
  for (const OpCase& c : cases) {
    std::vector<Tensor> out;
    const absl::Status s = RunOpCase(c, &out);
    if (std::string problem = CheckAgainstGolden(c, s, out); !problem.empty()) {
      problems.push_back(c.name + ": " + problem);
    }
  }
  EXPECT_TRUE(problems.empty()) << problems.size() << " of " << cases.size()
                                << " cases differ from TensorFlow:\n"
                                << absl::StrJoin(problems, "\n");
}

TEST(OpGolden, EveryOpThatAgreesWithTensorFlowHasACase) {
  std::set<std::string> forward, gradient;
  for (const OpCase& c : GoldenCases()) {
    const bool is_gradient = absl::EndsWith(c.name, "~grad");
    for (const std::string& op : c.covers) (is_gradient ? gradient : forward).insert(op);
  }
  // The ops whose every case reads files its generator made, which
  // op_interop_test.py lists as it writes the golden files.
  std::set<std::string> uncovered_ops;
  absl::StatusOr<std::string> uncovered =
      ReadFileToString(Env::Default(), Runfile("tests/tf_interop/golden/uncovered.tsv"));
  ASSERT_TRUE(uncovered.ok()) << uncovered.status();
  for (absl::string_view line : absl::StrSplit(*uncovered, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> cells = absl::StrSplit(line, '\t');
    ASSERT_EQ(cells.size(), 2u) << line;
    uncovered_ops.insert(cells[0]);
  }
  absl::StatusOr<std::string> text =
      ReadFileToString(Env::Default(), Runfile("tests/tf_interop/op_counts.tsv"));
  ASSERT_TRUE(text.ok()) << text.status();
  std::vector<std::string> missing;
  int ops = 0, with_gradient = 0, in_cpp = 0, gradient_in_cpp = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> cells = absl::StrSplit(line, '\t');
    ASSERT_GE(cells.size(), 3u) << line;
    int cases = 0, gradient_cases = 0;
    ASSERT_TRUE(absl::SimpleAtoi(cells[1], &cases) && absl::SimpleAtoi(cells[2], &gradient_cases))
        << line;
    const bool listed = uncovered_ops.count(cells[0]) > 0;
    ops += cases > 0;
    with_gradient += gradient_cases > 0;
    in_cpp += cases > 0 && forward.count(cells[0]);
    gradient_in_cpp += gradient_cases > 0 && gradient.count(cells[0]);
    if (cases > 0 && !forward.count(cells[0]) && !listed) missing.push_back(cells[0]);
    if (gradient_cases > 0 && !gradient.count(cells[0]) && !listed) {
      missing.push_back(cells[0] + " (gradient)");
    }
  }
  EXPECT_TRUE(missing.empty()) << "ops without a golden case (MG_WRITE_GOLDEN, in "
                                  "op_interop_test.py): "
                               << absl::StrJoin(missing, ", ");
  std::printf("%zu golden cases: %d of the %d ops with cases against TensorFlow run in C++, "
              "and %d of the %d with gradient cases their gradient\n",
              GoldenCases().size(), in_cpp, ops, gradient_in_cpp, with_gradient);
}

}  // namespace
}  // namespace minigraph
