// Fuzzes the checkpoint reader: open, list, read every tensor (checking
// every crc). Input: a 4-byte little-endian length N, N bytes of `.index`,
// then the `.data-00000-of-00001` bytes (tools/fuzz.sh builds seeds so from
// real checkpoints). The N bytes are also read as a V1 checkpoint file
// (the same table container; make_seeds adds V1 seeds). Anything but a
// Status is a finding.
//
// The files are read twice: from memory (MemEnv: pread's path) and from
// real files (Env::Default: mapped and leased), where every tensor is also
// claimed and read in place, written through (its page copied), read ahead
// and read again as a run.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/naming.h"
#include "core/allocator.h"
#include "core/coding.h"
#include "core/env.h"
#include "core/mem_env.h"

namespace minigraph {
namespace {

// A directory of this process's own, on tmpfs where there is one (the
// files are rewritten for every input), removed at exit.
const std::string& FileDir() {
  static const std::string* dir = [] {
    std::string pattern = access("/dev/shm", W_OK) == 0 ? "/dev/shm/mg_bundle_fuzz.XXXXXX"
                                                        : "/tmp/mg_bundle_fuzz.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return new std::string();
    auto* d = new std::string(pattern);
    atexit([] { DeleteRecursively(Env::Default(), FileDir()).IgnoreError(); });
    return d;
  }();
  return *dir;
}

// What a restore does with a reader of mapped files.
void ReadMapped(const BundleReader& reader) {
  std::vector<std::string> keys;
  std::vector<Tensor> tensors;
  for (const std::string& key : reader.keys()) {
    absl::StatusOr<Tensor> t = reader.Lookup(key);
    if (!t.ok()) continue;
    keys.push_back(key);
    tensors.push_back(*std::move(t));
    if (!reader.ClaimInPlace(key)) continue;
    absl::StatusOr<Tensor> in_place = reader.ReadInPlace(key);
    if (in_place.ok() && in_place->TotalBytes() > 0) {
      static_cast<char*>(in_place->raw_data())[0] ^= 1;
    }
  }
  std::vector<absl::string_view> views(keys.begin(), keys.end());
  reader.ReadAhead(views);
  std::vector<Tensor*> dsts;
  for (Tensor& t : tensors) dsts.push_back(&t);
  std::vector<absl::Status> status(keys.size());
  reader.ReadRunInto(views, dsts, absl::MakeSpan(status));
}

}  // namespace
}  // namespace minigraph

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minigraph;
  SetMaxTensorBytes(size_t{1} << 20);  // the cap is what is fuzzed, not its size
  if (size < 4) return 0;
  const size_t index_size = DecodeFixed32(reinterpret_cast<const char*>(data));
  const std::string rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  if (index_size > rest.size()) return 0;
  const std::string index = rest.substr(0, index_size);
  const std::string shard = rest.substr(index_size);
  MemEnv env;
  if (!env.CreateDir("/f").ok() || !WriteStringToFile(&env, MetaFilename("/f/c"), index).ok() ||
      !WriteStringToFile(&env, DataFilename("/f/c", 0, 1), shard).ok()) {
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
  if (WriteStringToFile(&env, "/f/v1", index).ok()) read_all("/f/v1");

  const std::string& dir = FileDir();
  if (dir.empty()) return 0;
  Env* disk = Env::Default();
  const std::string prefix = dir + "/c";
  if (WriteStringToFile(disk, MetaFilename(prefix), index).ok() &&
      WriteStringToFile(disk, DataFilename(prefix, 0, 1), shard).ok()) {
    if (auto reader = BundleReader::Open(disk, prefix); reader.ok()) ReadMapped(**reader);
  }
  return 0;
}
