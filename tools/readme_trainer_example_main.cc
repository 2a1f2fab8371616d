// my_trainer.cc: what `train --graph` does, from your code: a TensorFlow 1 graph (its train op,
// loss, global step, Saver and tf.data pipeline) trained to a step, resuming from the newest
// checkpoint of its log directory.
#include <cstdio>
#include <cstdlib>

#include "session/training/trainer.h"
using namespace minigraph;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: my_trainer GRAPH.meta INPUT LOGDIR STEPS\n");
    return 2;
  }
  TrainOptions options;
  options.graph = argv[1];
  options.input = argv[2];   // the files its pipeline reads
  options.logdir = argv[3];  // checkpoints, TensorBoard's event file, train.lock
  options.steps = std::atoll(argv[4]);
  options.save_every = 50;
  absl::StatusOr<TrainResult> r = Train(options);  // prints "restored step ...", then progress
  if (!r.ok()) {
    std::fprintf(stderr, "my_trainer: %s\n", r.status().ToString().c_str());
    return 1;
  }
  std::printf("step %lld, loss %g, saved %s\n", static_cast<long long>(r->step), r->loss,
              r->checkpoint.c_str());
  return 0;
}
