// Reading a mapped file (Env::MapFile) whose file may shrink meanwhile.
//
// A page of a file mapping past the file's current end cannot be read: the
// CPU's access raises SIGBUS, which kills the process. Whoever truncates a
// checkpoint's data file in place while it is being restored (not minigraph,
// whose files are written once under a temporary name) would take the
// restoring process with it. RunCatchingBusErrors turns that into an error
// of the read:
//
//   bool read = RunCatchingBusErrors([&] { crc = CopyAndExtend(0, dst, src, n); });
//   if (!read) return absl::DataLossError("... truncated while it was read");
//
// Thread safety: safe to call from any number of threads at once; each
// catches only the bus errors its own `fn` raises.

#ifndef MINIGRAPH_CORE_BUS_ERRORS_H_
#define MINIGRAPH_CORE_BUS_ERRORS_H_

#include "absl/functional/function_ref.h"

namespace minigraph {

// Whether RunCatchingBusErrors catches anything in this build: not under
// ThreadSanitizer, which cannot follow a siglongjmp out of a signal handler
// (it goes on taking the thread for one in the handler). Callers then read
// files instead of mapping them.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kCanCatchBusErrors = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kCanCatchBusErrors = false;
#else
inline constexpr bool kCanCatchBusErrors = true;
#endif
#else
inline constexpr bool kCanCatchBusErrors = true;
#endif

// Runs `fn` and returns true, or returns false as soon as `fn` raises SIGBUS
// on this thread (it touched a page of a mapping past its file's end). `fn`
// is then abandoned where it was: it must hold no lock and own nothing it
// has not handed over, as a loop copying bytes. Calls nest.
//
// The first call installs a SIGBUS handler for the process; a bus error
// raised outside such a call goes on to the handler there was before (the
// default one kills the process, as it would have). Where
// !kCanCatchBusErrors it only runs `fn`.
bool RunCatchingBusErrors(absl::FunctionRef<void()> fn);

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_BUS_ERRORS_H_
