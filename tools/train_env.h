// The Env `train` runs on. The production binary (//tools:train) links
// train_env.cc: the default Env. The testonly //tools:train_with_test_hooks
// links train_test_hooks.cc instead, whose Env the end-to-end crash tests
// steer through the environment (MG_TEST_KILL_IN_SAVE,
// MG_TEST_STOP_AT_CHECKPOINT): the production tool carries no test hook.

#ifndef MINIGRAPH_TOOLS_TRAIN_ENV_H_
#define MINIGRAPH_TOOLS_TRAIN_ENV_H_

#include <memory>

#include "core/env.h"

namespace minigraph {

// An Env that wraps Env::Default() for this run, or null for
// Env::Default() itself.
std::unique_ptr<Env> TestEnvFromEnvironment();

}  // namespace minigraph

#endif  // MINIGRAPH_TOOLS_TRAIN_ENV_H_
