"""Writes the demo's TensorFlow-built model (regression_model.py, variables
linear/w and linear/b, batches of 32, SGD at 0.02): regression.meta, a
TensorFlow 1 meta graph, and regression.tfrecord, 512 examples of
y = x . [1, -2, 3, 0.5] + 1. `train --graph=regression.meta
--input=regression.tfrecord` trains it with no Python. Run with the
TensorFlow virtualenv of `tools/setup.sh tf`:

  /var/cache/minigraph-tf/bin/python tools/demo/make_regression_graph.py tools/demo
"""

import os
import sys

import regression_model


def main(out):
    regression_model.write_data(os.path.join(out, "regression.tfrecord"), n=512)
    regression_model.export(os.path.join(out, "regression.meta"), batch=32, learning_rate=0.02,
                            prefix="linear/")


if __name__ == "__main__":
    main(sys.argv[1])
