// gMock matchers and macros for absl::Status and absl::StatusOr (Abseil
// 20220623 has none).
//
//   EXPECT_THAT(DoIt(), IsOk());
//   EXPECT_THAT(reader.status(), StatusIs(absl::StatusCode::kNotFound));
//   EXPECT_THAT(s, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("crc")));
//   EXPECT_THAT(ReadFileToString(env, p), IsOkAndHolds("data"));
//   ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(env, prefix));

#ifndef MINIGRAPH_CORE_STATUS_MATCHERS_H_
#define MINIGRAPH_CORE_STATUS_MATCHERS_H_

#include <ostream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace status_internal {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace status_internal

MATCHER(IsOk, negation ? "is not OK" : "is OK") {
  const absl::Status& s = status_internal::GetStatus(arg);
  if (!s.ok()) *result_listener << "which is " << s;
  return s.ok();
}

MATCHER_P(StatusIs, code,
          std::string(negation ? "has a code other than " : "has code ") +
              absl::StatusCodeToString(code)) {
  const absl::Status& s = status_internal::GetStatus(arg);
  *result_listener << "which is " << s;
  return s.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           std::string(negation ? "does not have code " : "has code ") +
               absl::StatusCodeToString(code) + " and a matching message") {
  const absl::Status& s = status_internal::GetStatus(arg);
  *result_listener << "which is " << s;
  return s.code() == code &&
         ::testing::Matches(message_matcher)(std::string(s.message()));
}

// Matches an OK StatusOr whose value matches `value_matcher`.
MATCHER_P(IsOkAndHolds, value_matcher,
          negation ? "is not OK or holds a non-matching value"
                   : "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "which is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace minigraph

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::minigraph::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::minigraph::IsOk())

// Asserts that `rexpr` (a StatusOr) is OK and moves its value into `lhs`.
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  MG_ASSERT_OK_AND_ASSIGN_IMPL_(MG_CONCAT_(mg_statusor_, __LINE__), lhs, rexpr)
#define MG_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, rexpr)        \
  auto statusor = (rexpr);                                         \
  ASSERT_TRUE(statusor.ok()) << "which is " << statusor.status(); \
  lhs = std::move(statusor).value()

#endif  // MINIGRAPH_CORE_STATUS_MATCHERS_H_
