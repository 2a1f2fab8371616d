// Fuzzes the `checkpoint` state file parser and what reads it: the input is
// the file's text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint_state.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "google/protobuf/stubs/logging.h"

// Parse errors are expected by the thousand: keep the fuzzer's output to
// its own lines and findings.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  minigraph::SetMinLogLevel(minigraph::LogLevel::kFatal);
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

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
