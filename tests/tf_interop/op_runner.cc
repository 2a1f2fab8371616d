// minigraph's side of the op interop test: runs many small graphs, each a
// case TensorFlow built and ran, and records what each gave.
//
//   op_runner IN OUT
//
// IN is a tensor file (tensor_records.h) of cases, each a group of records
// whose keys start "<case>|":
//   <case>|graph        a scalar string: the serialized GraphDef
//   <case>|feed|<name>  a tensor to feed to <name> ("x:0")
//   <case>|fetch        a vector of strings: the tensors to fetch
//   <case>|grad_ys, <case>|grad_xs, <case>|grad_dys   (optional) vectors of
//       tensor names: minigraph's AddSymbolicGradients of ys with respect to
//       xs, with dys (placeholders in the graph) as the gradients flowing
//       into ys; the gradients are fetched, after the fetch list.
// OUT gets, for each case, "<case>|out|<i>" for each fetched tensor, or
// "<case>|error": a vector of two strings, the status code's number and its
// message. Each case's name goes to stderr before it runs, so that a crash
// names the case. Exit 0, or 1 with the error on stderr when IN is bad.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/import_graph.h"
#include "runtime/cc/scope.h"
#include "session/session.h"
#include "tests/tf_interop/tensor_records.h"

namespace minigraph {
namespace {

struct Case {
  std::string name;
  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetch;
  std::vector<std::string> grad_ys, grad_xs, grad_dys;
};

std::vector<std::string> Strings(const Tensor& t) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < t.NumElements(); ++i) out.push_back(t.data<std::string>()[i]);
  return out;
}

absl::StatusOr<std::vector<Case>> ReadCases(const std::string& path) {
  MG_ASSIGN_OR_RETURN(auto records, ReadTensorRecords(path));
  std::vector<Case> cases;
  std::map<std::string, size_t> index;
  for (auto& [key, t] : records) {
    std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('|', 2));
    if (parts.size() < 2) return absl::InvalidArgumentError(absl::StrCat("bad key \"", key, "\""));
    auto [it, added] = index.emplace(parts[0], cases.size());
    if (added) cases.push_back(Case{parts[0]});
    Case& c = cases[it->second];
    const bool strings = t.dtype() == DT_STRING;
    if (parts[1] == "graph" && strings && t.NumElements() == 1) {
      if (!c.graph.ParseFromString(t.data<std::string>()[0])) {
        return absl::InvalidArgumentError(absl::StrCat(key, " is not a GraphDef"));
      }
    } else if (parts[1] == "feed" && parts.size() == 3) {
      c.feeds.emplace_back(parts[2], std::move(t));
    } else if (parts[1] == "fetch" && strings) {
      c.fetch = Strings(t);
    } else if (parts[1] == "grad_ys" && strings) {
      c.grad_ys = Strings(t);
    } else if (parts[1] == "grad_xs" && strings) {
      c.grad_xs = Strings(t);
    } else if (parts[1] == "grad_dys" && strings) {
      c.grad_dys = Strings(t);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("bad record \"", key, "\""));
    }
  }
  return cases;
}

// The graph of `c` with minigraph's gradients added; their names are
// appended to `fetch`.
absl::StatusOr<GraphDef> WithGradients(const Case& c, std::vector<std::string>* fetch) {
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

absl::Status RunCase(const Case& c, std::vector<Tensor>* out) {
  std::vector<std::string> fetch = c.fetch;
  GraphDef graph = c.graph;
  if (!c.grad_xs.empty()) {
    MG_ASSIGN_OR_RETURN(graph, WithGradients(c, &fetch));
  }
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, NewSession(SessionOptions()));
  MG_RETURN_IF_ERROR(session->Create(graph));
  return session->Run(c.feeds, fetch, {}, out);
}

absl::Status Main(const std::string& in, const std::string& out_path) {
  MG_ASSIGN_OR_RETURN(std::vector<Case> cases, ReadCases(in));
  std::string records;
  for (const Case& c : cases) {
    std::fprintf(stderr, "%s\n", c.name.c_str());
    std::fflush(stderr);
    std::vector<Tensor> out;
    if (absl::Status s = RunCase(c, &out); !s.ok()) {
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
