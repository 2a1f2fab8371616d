// Fuzzes GraphDef import and one step of the executor: the input is a
// serialized GraphDef. Session::Create (Graph::Create: ops, attrs, edges,
// shapes) must refuse what it cannot run; a graph it accepts runs every node
// as a target once, in memory (MemEnv), with a step deadline and a small
// tensor limit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/mem_env.h"
#include "session/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 20);
  GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (def.node_size() > 200) return 0;  // keep each input's step short
  MemEnv env;
  SessionOptions options;
  options.env = &env;
  options.intra_op_threads = 1;
  options.inter_op_threads = 1;
  auto session = NewSession(options);
  if (!session.ok() || !(*session)->Create(def).ok()) return 0;
  std::vector<std::string> targets;
  for (const NodeDef& n : def.node()) targets.push_back(n.name());
  RunOptions run;
  run.timeout_in_ms = 200;
  std::vector<Tensor> out;
  (*session)->Run(run, {}, {}, targets, &out).IgnoreError();
  return 0;
}
