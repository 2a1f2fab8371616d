// Status propagation macros. Abseil 20220623 has none (they arrive as
// ABSL_RETURN_IF_ERROR / ABSL_ASSIGN_OR_RETURN in a later release).
//
//   absl::StatusOr<int> Parse(absl::string_view s);
//   absl::Status Use(absl::string_view s) {
//     MG_ASSIGN_OR_RETURN(int n, Parse(s));
//     MG_RETURN_IF_ERROR(Check(n));
//     return absl::OkStatus();
//   }
//
// Thread safety: macros over their arguments only.

#ifndef MINIGRAPH_CORE_STATUS_MACROS_H_
#define MINIGRAPH_CORE_STATUS_MACROS_H_

#include <utility>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

// Returns `expr`'s status from the enclosing function if it is not OK.
#define MG_RETURN_IF_ERROR(expr)                                 \
  do {                                                           \
    const ::absl::Status mg_status_ = (expr);                    \
    if (ABSL_PREDICT_FALSE(!mg_status_.ok())) return mg_status_; \
  } while (0)

// Declares or assigns `lhs` from a StatusOr, or returns its error. Not usable
// as the body of an unbraced `if`.
#define MG_ASSIGN_OR_RETURN(lhs, rexpr) \
  MG_ASSIGN_OR_RETURN_IMPL_(MG_CONCAT_(mg_statusor_, __LINE__), lhs, rexpr)

// Like MG_RETURN_IF_ERROR, but prefixes the message with `context` (any
// arguments absl::StrCat accepts) once, at a layer boundary.
#define MG_RETURN_WITH_CONTEXT_IF_ERROR(expr, ...)                  \
  do {                                                              \
    const ::absl::Status mg_status_ = (expr);                       \
    if (ABSL_PREDICT_FALSE(!mg_status_.ok())) {                     \
      return ::minigraph::AddContext(mg_status_,                    \
                                     ::absl::StrCat(__VA_ARGS__));  \
    }                                                               \
  } while (0)

namespace minigraph {

// Returns `status` with "<context>: " before its message; same code, same
// payloads. OK stays OK.
inline absl::Status AddContext(const absl::Status& status,
                               absl::string_view context) {
  if (status.ok()) return status;
  absl::Status out(status.code(),
                   absl::StrCat(context, ": ", status.message()));
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& p) {
    out.SetPayload(url, p);
  });
  return out;
}

}  // namespace minigraph

// Implementation details follow. Clients should ignore.
#define MG_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr)                       \
  auto statusor = (rexpr);                                                    \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) return std::move(statusor).status(); \
  lhs = std::move(statusor).value()
#define MG_CONCAT_INNER_(a, b) a##b
#define MG_CONCAT_(a, b) MG_CONCAT_INNER_(a, b)

#endif  // MINIGRAPH_CORE_STATUS_MACROS_H_
