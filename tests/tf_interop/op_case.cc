#include "tests/tf_interop/op_case.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/scope.h"
#include "session/session.h"
#include "tests/tf_interop/tensor_records.h"

namespace minigraph {
namespace {

std::vector<std::string> Strings(const Tensor& t) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<std::string>()[i]);
  return out;
}

// Adds the record `key` (split at '|' into `parts`) to `c`; false when it is
// not one this file's format has.
bool AddRecord(const std::vector<std::string>& parts, Tensor t, OpCase* c) {
  const bool strings = t.dtype() == DT_STRING;
  const std::string& kind = parts[1];
  int index = 0;
  const bool indexed = parts.size() == 3 && absl::SimpleAtoi(parts[2], &index);
  if (kind == "graph" && strings && t.NumElements() == 1) {
    return c->graph.ParseFromString(t.data<std::string>()[0]);
  } else if (kind == "feed" && parts.size() == 3) {
    c->feeds.emplace_back(parts[2], std::move(t));
  } else if (kind == "fetch" && strings) {
    c->fetch = Strings(t);
  } else if (kind == "grad_ys" && strings) {
    c->grad_ys = Strings(t);
  } else if (kind == "grad_xs" && strings) {
    c->grad_xs = Strings(t);
  } else if (kind == "grad_dys" && strings) {
    c->grad_dys = Strings(t);
  } else if (kind == "covers" && strings) {
    c->covers = Strings(t);
  } else if (kind == "want" && indexed) {
    c->want[index] = std::move(t);
  } else if (kind == "tol" && indexed && t.dtype() == DT_DOUBLE && t.NumElements() == 2) {
    c->tol[index] = {t.data<double>()[0], t.data<double>()[1]};
  } else if (kind == "error_code" && t.dtype() == DT_INT32 && t.NumElements() == 1) {
    c->error_code = t.data<int32_t>()[0];
  } else {
    return false;
  }
  return true;
}

// The graph of `c` with minigraph's gradients added; their names are
// appended to `fetch`.
absl::StatusOr<GraphDef> WithGradients(const OpCase& c, std::vector<std::string>* fetch) {
  Scope root = Scope::NewRootScope();
  MG_ASSIGN_OR_RETURN(auto ops, ImportGraphDef(root, c.graph));
  auto outputs = [&](const std::vector<std::string>& names) -> absl::StatusOr<std::vector<Output>> {
    std::vector<Output> out;
    for (const std::string& name : names) {
      std::pair<std::string, std::string> node_index = absl::StrSplit(name, ':');
      int index = 0;
      auto it = ops.find(node_index.first);
      if (it == ops.end() || (!node_index.second.empty() &&
                              !absl::SimpleAtoi(node_index.second, &index))) {
        return absl::InvalidArgumentError(absl::StrCat("no tensor \"", name, "\""));
      }
      out.push_back(it->second.output(index));
    }
    return out;
  };
  MG_ASSIGN_OR_RETURN(std::vector<Output> ys, outputs(c.grad_ys));
  MG_ASSIGN_OR_RETURN(std::vector<Output> xs, outputs(c.grad_xs));
  MG_ASSIGN_OR_RETURN(std::vector<Output> dys, outputs(c.grad_dys));
  std::vector<Output> grads;
  MG_RETURN_IF_ERROR(AddSymbolicGradients(root, ys, xs, dys, &grads));
  for (const Output& g : grads) {
    if (!g.op().valid()) return absl::UnimplementedError("a gradient is missing (None)");
    fetch->push_back(g.name());
  }
  return root.ToGraphDef();
}

template <typename T>
std::string Show(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return absl::StrCat("\"", absl::CEscape(v), "\"");
  } else if constexpr (kIsComplex<T>) {
    return absl::StrCat("(", v.real(), ",", v.imag(), ")");
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return absl::StrCat(static_cast<float>(v));
  } else {
    return absl::StrCat(v);
  }
}

// numpy's isclose(want, got, rtol, atol, equal_nan=True) for one element.
template <typename T>
bool Close(const T& want, const T& got, double rtol, double atol) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return want == got;
  } else if constexpr (std::is_integral_v<T>) {
    const long double gap = std::fabs(static_cast<long double>(want) - got);
    return gap <= static_cast<long double>(atol);
  } else {
    std::complex<double> a, b;
    if constexpr (kIsComplex<T>) {
      a = {want.real(), want.imag()};
      b = {got.real(), got.imag()};
    } else if constexpr (std::is_same_v<T, double>) {
      a = want;
      b = got;
    } else {  // float, half, bfloat16
      a = static_cast<float>(want);
      b = static_cast<float>(got);
    }
    auto nan = [](std::complex<double> z) { return std::isnan(z.real()) || std::isnan(z.imag()); };
    if (nan(a) || nan(b)) return nan(a) && nan(b);
    auto inf = [](std::complex<double> z) { return std::isinf(z.real()) || std::isinf(z.imag()); };
    if (inf(a) || inf(b)) return a == b;
    return std::abs(a - b) <= atol + rtol * std::abs(b);
  }
}

template <typename T>
std::string CompareAs(const Tensor& want, const Tensor& got, double rtol, double atol) {
  const T* a = want.data<T>();
  const T* b = got.data<T>();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (!Close(a[i], b[i], rtol, atol)) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", want.NumElements(), " differ, e.g. at ", first,
                      ": TensorFlow ", Show(a[first]), ", minigraph ", Show(b[first]), " (rtol ",
                      rtol, ", atol ", atol, ")");
}

}  // namespace

absl::StatusOr<std::vector<OpCase>> ReadOpCases(const std::string& path) {
  MG_ASSIGN_OR_RETURN(auto records, ReadTensorRecords(path));
  std::vector<OpCase> cases;
  std::map<std::string, size_t> index;
  for (auto& [key, t] : records) {
    std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('|', 2));
    if (parts.size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": bad key \"", key, "\""));
    }
    auto [it, added] = index.emplace(parts[0], cases.size());
    if (added) cases.push_back(OpCase{parts[0]});
    if (!AddRecord(parts, std::move(t), &cases[it->second])) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": bad record \"", key, "\""));
    }
  }
  return cases;
}

absl::Status RunOpCase(const OpCase& c, std::vector<Tensor>* out) {
  std::vector<std::string> fetch = c.fetch;
  GraphDef graph = c.graph;
  if (!c.grad_xs.empty()) {
    MG_ASSIGN_OR_RETURN(graph, WithGradients(c, &fetch));
  }
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  MG_RETURN_IF_ERROR(session->Create(graph));
  return session->Run(c.feeds, fetch, {}, out);
}

std::string CompareToWant(const Tensor& want, const Tensor& got, double rtol, double atol) {
  if (want.dtype() != got.dtype() || want.shape() != got.shape()) {
    return absl::StrCat(DataTypeString(got.dtype()), got.shape().DebugString(),
                        " where TensorFlow has ", DataTypeString(want.dtype()),
                        want.shape().DebugString());
  }
  switch (want.dtype()) {
#define MG_COMPARE_CASE(T) \
  case DataTypeToEnum<T>::value: \
    return CompareAs<T>(want, got, rtol, atol);
    MG_CALL_POD_TYPES(MG_COMPARE_CASE)
    MG_COMPARE_CASE(std::string)
#undef MG_COMPARE_CASE
    default:
      return absl::StrCat("cannot compare tensors of ", DataTypeString(want.dtype()));
  }
}

std::string CheckAgainstGolden(const OpCase& c, const absl::Status& status,
                               const std::vector<Tensor>& out) {
  if (c.error_code != 0) {
    if (status.ok()) return absl::StrCat("TensorFlow fails with code ", c.error_code,
                                         ", minigraph runs");
    if (static_cast<int>(status.code()) != c.error_code) {
      return absl::StrCat("code ", static_cast<int>(status.code()), " (", status.message(),
                          ") where TensorFlow's is ", c.error_code);
    }
    return "";
  }
  if (!status.ok()) return absl::StrCat("minigraph fails: ", status.ToString());
  if (c.want.empty()) return "the case has no wanted output";
  for (const auto& [i, want] : c.want) {
    if (i < 0 || static_cast<size_t>(i) >= out.size()) {
      return absl::StrCat("output ", i, " missing (", out.size(), " fetched)");
    }
    auto tol = c.tol.find(i);
    const auto [rtol, atol] = tol == c.tol.end() ? std::pair<double, double>{0, 0} : tol->second;
    if (std::string problem = CompareToWant(want, out[i], rtol, atol); !problem.empty()) {
      return absl::StrCat("output ", i, ": ", problem);
    }
  }
  return "";
}

}  // namespace minigraph
