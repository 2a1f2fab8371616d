"""Models TensorFlow 2.21 builds and runs (models.py), run again by
minigraph on the same files and inputs: the same outputs, gradients and
weights after training (exact for integers and strings, floats within each
model's tolerance), or a known gap with its reason."""

import os

# tf.compat.v1.layers and rnn_cell are tf_keras's (Keras 2) classes.
os.environ["TF_USE_LEGACY_KERAS"] = "1"

import shutil  # noqa: E402
import tempfile  # noqa: E402
import unittest  # noqa: E402

import numpy as np  # noqa: E402

import interop  # noqa: E402
import models  # noqa: E402

# Models minigraph does not run yet, each with what stops it (a substring of
# minigraph's error). A model that starts to pass fails the test until its
# line goes; docs/tf_interop.md lists the same.
KNOWN_GAPS = {}


def compare(model, got):
    """'' when minigraph's outputs match TensorFlow's, else what differs."""
    for key, want in model.want.items():
        if key not in got:
            return f"{key}: not fetched"
        a, b = interop.as_array(want), interop.as_array(got[key])
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{key}: {b.dtype}{b.shape} where TensorFlow has {a.dtype}{a.shape}"
        if a.dtype.kind in "biuO":
            if a.dtype == object:
                same = [bytes(x) for x in a.ravel()] == [bytes(x) for x in b.ravel()]
            else:
                same = np.array_equal(a, b)
            if not same:
                return f"{key}: differs (exact)"
        else:
            rtol, atol = model.rtol, model.atol
            if key.startswith("after:") and model.after_rtol is not None:
                rtol, atol = model.after_rtol, model.after_atol
            if key.startswith("after:"):
                atol = model.after_atol_of.get(key[len("after:"):], atol)
            if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
                err = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))
                return f"{key}: max abs difference {err:.3g} (rtol {rtol}, atol {atol})"
    return ""


class ModelInterop(unittest.TestCase):
    def test_models(self):
        root = tempfile.mkdtemp()
        work = tempfile.mkdtemp()
        try:
            made = models.make_all(root)
            rows, unexpected = [], []
            for name, model in sorted(made.items()):
                if not isinstance(model, models.Model):
                    unexpected.append(f"{name}: TensorFlow could not make it: {model!r}")
                    continue
                try:
                    problem = compare(model, models.run_in_minigraph(model, work))
                except AssertionError as e:
                    # The runner's error: its first line after "model_runner:".
                    text = str(e)
                    at = text.find("model_runner: ")
                    problem = text[at:].splitlines()[0] if at >= 0 else text.splitlines()[-1]
                status = "passes" if not problem else problem
                rows.append((name, model.kind, status))
                gap = KNOWN_GAPS.get(name)
                if gap is None and problem:
                    unexpected.append(f"{name}: {problem}")
                elif gap is not None and gap not in problem:
                    unexpected.append(f"{name}: known gap '{gap}' but: {status}")
            for name, kind, status in rows:
                print(f"| {name} | {kind} | {status} |")
            passed = sum(1 for r in rows if r[2] == "passes")
            print(f"models: {passed} of {len(rows)} pass, {len(KNOWN_GAPS)} known gaps")
            self.assertEqual(unexpected, [])
        finally:
            shutil.rmtree(root)
            shutil.rmtree(work)


if __name__ == "__main__":
    unittest.main(verbosity=2)
