// Fuzzes the checkpoint reader: open, list, read every tensor (checking
// every crc). Input: a 4-byte little-endian length N, N bytes of `.index`,
// then the `.data-00000-of-00001` bytes (tools/fuzz.sh builds seeds so from
// real checkpoints). The N bytes are also read as a V1 checkpoint file
// (the same table container; make_seeds adds V1 seeds). Anything but a
// Status is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checkpoint/bundle_reader.h"
#include "checkpoint/naming.h"
#include "core/allocator.h"
#include "core/coding.h"
#include "core/mem_env.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 20);  // the cap is what is fuzzed, not its size
  if (size < 4) return 0;
  const size_t index_size = DecodeFixed32(reinterpret_cast<const char*>(data));
  const std::string rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  if (index_size > rest.size()) return 0;
  MemEnv env;
  if (!env.CreateDir("/f").ok() ||
      !WriteStringToFile(&env, MetaFilename("/f/c"), rest.substr(0, index_size)).ok() ||
      !WriteStringToFile(&env, DataFilename("/f/c", 0, 1), rest.substr(index_size)).ok()) {
    return 0;
  }
  auto read_all = [&](const std::string& prefix) {
    auto reader = BundleReader::Open(&env, prefix);
    if (!reader.ok()) return;
    for (const std::string& key : (*reader)->keys()) {
      (*reader)->GetShape(key).status().IgnoreError();
      (*reader)->Lookup(key).status().IgnoreError();
    }
  };
  read_all("/f/c");
  if (WriteStringToFile(&env, "/f/v1", rest.substr(0, index_size)).ok()) read_all("/f/v1");
  return 0;
}
