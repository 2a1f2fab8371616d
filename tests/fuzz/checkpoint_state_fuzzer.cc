// Fuzzes the `checkpoint` state file parser and what reads it: the input is
// the file's text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint_state.h"
#include "core/mem_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  MemEnv env;
  if (!env.CreateDir("/d").ok() ||
      !WriteStringToFile(&env, "/d/checkpoint",
                         std::string(reinterpret_cast<const char*>(data), size))
           .ok()) {
    return 0;
  }
  GetCheckpointState(&env, "/d").status().IgnoreError();
  LatestCheckpoint(&env, "/d").status().IgnoreError();
  return 0;
}
