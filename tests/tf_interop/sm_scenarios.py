"""The SessionManager conformance catalogue as plans both sides run.

Each scenario of ../shared/reference/session_manager.md (T1-T28 from
TensorFlow's session_manager_test.py, X1-X9 beside them) is a function that
builds its graphs with TensorFlow, as the upstream test does, and returns a
plan (sm_scenario.proto as a dict): the graphs, and the steps to take on them
(make a SessionManager, call prepare_session / recover_session /
wait_for_session, run ops, read variables, save, move directories).
`run_on_tensorflow` takes the steps with TensorFlow's own SessionManager on a
clock that only sleeps make move; sm_scenario_runner takes them with
minigraph's. Both print one outcome per step.
"""

import base64
import json
import os
import shutil

import numpy as np
import tensorflow as tf
from tensorflow.python.training import session_manager as tf_session_manager

v1 = tf.compat.v1
LOCAL = [v1.GraphKeys.LOCAL_VARIABLES]


def setup_tensorflow():
    """TensorFlow 1's graph mode and ref variables, as the upstream test."""
    v1.disable_eager_execution()
    v1.disable_resource_variables()


def _b64(data):
    return base64.b64encode(data).decode()


def _name(x):
    """A tensor as "node:k", an op as "^node"."""
    return x.name if isinstance(x, tf.Tensor) else "^" + x.name


def _names(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return [_name(e) for e in x]
    return [_name(x)]


def _feeds(feed_dict):
    # As TensorFlow's client does, a value is fed as the dtype of its tensor.
    return [{"name": k.name, "tensor": _b64(tf.make_tensor_proto(
        np.asarray(v, dtype=k.dtype.as_numpy_dtype)).SerializeToString())}
            for k, v in (feed_dict or {}).items()]


class Plan:
    """Graphs and steps; each graph is built under `with plan.graph() as g:`."""

    def __init__(self):
        self.graphs = []
        self.steps = []
        self._sms = 0
        self._sessions = 0

    def add_graph(self, graph, saver=None):
        self.graphs.append({"graph_def": _b64(graph.as_graph_def().SerializeToString()),
                            "saver_def": _b64(saver.saver_def.SerializeToString())
                            if saver else ""})
        return len(self.graphs) - 1

    def new_sm(self, graph, ready_op=None, ready_for_local_init_op=None, local_init_op=None,
               recovery_wait_secs=0, local_init_feed_dict=None):
        self.steps.append({
            "op": "new_sm", "graph": graph, "ready_op": _names(ready_op),
            "ready_for_local_init_op": _names(ready_for_local_init_op),
            "local_init_op": _names(local_init_op),
            "local_init_op_is_list": isinstance(local_init_op, (list, tuple)),
            "recovery_wait_secs": recovery_wait_secs,
            "local_init_feed_dict": _feeds(local_init_feed_dict)})
        self._sms += 1
        return self._sms - 1

    def _call(self, op, sm, master, saver, max_wait_secs, **kw):
        step = {"op": op, "sm": sm, "master": master, "saver": 0 if saver is None else saver + 1}
        if max_wait_secs is not None:
            step.update(has_max_wait=True, max_wait_secs=max_wait_secs)
        step.update(kw)
        self.steps.append(step)
        self._sessions += 1  # numbered even when the call fails
        return self._sessions - 1

    def prepare_session(self, sm, master="", init_op=None, saver=None, checkpoint_dir="",
                        checkpoint_filename_with_path="", wait_for_checkpoint=False,
                        max_wait_secs=None, init_feed_dict=None, init_fn_runs=None):
        return self._call("prepare_session", sm, master, saver, max_wait_secs,
                          init_op=_names(init_op),
                          init_op_is_list=isinstance(init_op, (list, tuple)),
                          init_feed_dict=_feeds(init_feed_dict),
                          has_init_fn=init_fn_runs is not None,
                          init_fn_runs=_names(init_fn_runs), checkpoint_dir=checkpoint_dir,
                          checkpoint_filename_with_path=checkpoint_filename_with_path,
                          wait_for_checkpoint=wait_for_checkpoint)

    def recover_session(self, sm, master="", saver=None, checkpoint_dir="",
                        checkpoint_filename_with_path="", wait_for_checkpoint=False,
                        max_wait_secs=None):
        return self._call("recover_session", sm, master, saver, max_wait_secs,
                          checkpoint_dir=checkpoint_dir,
                          checkpoint_filename_with_path=checkpoint_filename_with_path,
                          wait_for_checkpoint=wait_for_checkpoint)

    def wait_for_session(self, sm, master="", max_wait_secs=None):
        return self._call("wait_for_session", sm, master, None, max_wait_secs)

    def new_session(self, graph, master=""):
        self.steps.append({"op": "new_session", "graph": graph, "master": master})
        self._sessions += 1
        return self._sessions - 1

    def run(self, session, targets):
        self.steps.append({"op": "run", "session": session, "names": _names(targets)})

    def values(self, session, *variables):
        self.steps.append({"op": "values", "session": session,
                           "names": [v.name for v in variables]})

    def save(self, session, saver, prefix):
        self.steps.append({"op": "save", "session": session, "saver": saver + 1, "path": prefix})

    def last_checkpoints(self, saver):
        self.steps.append({"op": "last_checkpoints", "saver": saver + 1})

    def fs(self, op, path, path2=""):
        self.steps.append({"op": op, "path": path, "path2": path2})

    def to_dict(self):
        return {"graphs": self.graphs, "steps": self.steps}


def _gl(v_init=1):
    """The catalogue's graph GL: a global v and a local w = v."""
    v = v1.Variable(v_init, name="v")
    w = v1.Variable(v, trainable=False, collections=LOCAL, name="w")
    return v, w


def _report(var_list=None):
    return v1.report_uninitialized_variables(var_list)


def _obsolete():
    return tf.compat.v1.assert_variables_initialized()


# --- the scenarios -------------------------------------------------------
# Each returns a Plan. `ready` makes the ready op: _report (SessionManagerTest)
# or _obsolete (ObsoleteSessionManagerTest, T23-T28).


def t1():
    p = Plan()
    with tf.Graph().as_default() as g:
        r = _report(v1.global_variables())
        gi = p.add_graph(g)
    p.new_sm(gi, ready_for_local_init_op=r)
    return p


def t2(ready=_report):
    p = Plan()
    with tf.Graph().as_default() as g:
        v = v1.Variable([1.0, 2.0, 3.0], name="v")
        r = ready()
        init = v1.global_variables_initializer()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_op=init)
    p.values(s, v)
    return p


def t3(ready=_report):
    p = Plan()
    with tf.Graph().as_default() as g:
        ph = v1.placeholder(tf.float32, shape=(3,))
        v = v1.Variable(ph, name="v")
        r = ready()
        init = v1.global_variables_initializer()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_op=init, init_feed_dict={ph: [1.0, 2.0, 3.0]})
    p.values(s, v)
    return p


def t4(ready=_report):
    p = Plan()
    with tf.Graph().as_default() as g:
        v = v1.Variable([125], name="v")
        r = ready()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_fn_runs=v.initializer)
    p.values(s, v)
    return p


def t5():
    p = Plan()
    with tf.Graph().as_default() as g:
        ph = v1.placeholder(tf.float32, shape=(3,))
        v = v1.Variable(ph, name="v", collections=LOCAL)
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, local_init_op=v.initializer, local_init_feed_dict={ph: [1.0, 2.0, 3.0]},
                  ready_op=r)
    s = p.prepare_session(sm)
    p.values(s, v)
    return p


def t6(ready=_report):
    p = Plan()
    p.fs("mkdir", "prepare_session")
    with tf.Graph().as_default() as g:
        v = v1.Variable([1.0, 2.0, 3.0], name="v")
        r = ready()
        saver = v1.train.Saver({"v": v})
        init = v1.global_variables_initializer()
        g1 = p.add_graph(g, saver)
    sm = p.new_sm(g1, ready_op=r)
    s = p.prepare_session(sm, init_op=init, saver=g1, checkpoint_dir="prepare_session")
    p.values(s, v)
    p.save(s, g1, "prepare_session/prepare_session_checkpoint")
    p.fs("rename", "prepare_session", "prepare_session2")
    p.fs("mkdir", "prepare_session")
    with tf.Graph().as_default() as g:
        v2 = v1.Variable([6.0, 7.0, 8.0], name="v")
        r2 = ready()
        saver2 = v1.train.Saver({"v": v2})
        g2 = p.add_graph(g, saver2)
    # As upstream: the second graph's manager is made and never used.
    p.new_sm(g2, ready_op=r2)
    p.prepare_session(sm, saver=g2, checkpoint_dir="prepare_session", wait_for_checkpoint=True,
                      max_wait_secs=2)
    p.fs("rmtree", "prepare_session")
    p.fs("rename", "prepare_session2", "prepare_session")
    s = p.prepare_session(sm, saver=g2, checkpoint_dir="prepare_session",
                          wait_for_checkpoint=True, max_wait_secs=2)
    p.values(s, v)
    return p


def t7():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        x = v1.Variable(3 * v, trainable=False, collections=LOCAL, name="x")
        r, rl = _report(), _report(v1.global_variables())
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, ready_for_local_init_op=rl,
                  local_init_op=[w.initializer, x.initializer])
    s = p.prepare_session(sm, init_op=v.initializer)
    p.values(s, v, w, x)
    return p


def t8():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        x = v1.Variable(3 * v, trainable=False, collections=LOCAL, name="x")
        v_res = v1.Variable(1, name="v_res")
        w_res = v1.Variable(v_res, trainable=False, collections=LOCAL, name="w_res")
        x_res = v1.Variable(3 * v_res, trainable=False, collections=LOCAL, name="x_res")
        gi = p.add_graph(g)
    sm = p.new_sm(gi, local_init_op=[w.initializer, x.initializer, w_res.initializer,
                                     x_res.initializer])
    s = p.prepare_session(sm)
    p.values(s, v, w, x, v_res, w_res, x_res)
    return p


def t9():
    p = Plan()
    with tf.Graph().as_default() as g:
        i = tf.while_loop(lambda i: i < 1, lambda i: i + 1, [0])
        v = v1.Variable(tf.identity(i), name="v")
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_op=v.initializer)
    p.values(s, v)
    return p


def _t10(init_as_list):
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    p.prepare_session(sm, init_op=[v.initializer] if init_as_list else v.initializer)
    return p


def t10():
    return _t10(False)


def t11():
    return _t10(True)


def t12():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r, rl = _report(), _report(v1.global_variables())
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, ready_for_local_init_op=rl, local_init_op=w.initializer)
    p.prepare_session(sm)
    return p


def t13():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, local_init_op=w.initializer)
    p.prepare_session(sm)
    return p


def _save_v1(p, d, ready=_report):
    """T14's first part: recover from an empty `d`, initialize v = 1, save."""
    p.fs("mkdir", d)
    with tf.Graph().as_default() as g:
        v = v1.Variable(1, name="v")
        r = ready()
        saver = v1.train.Saver({"v": v})
        gi = p.add_graph(g, saver)
    sm = p.new_sm(gi, ready_op=r)
    s = p.recover_session(sm, saver=gi, checkpoint_dir=d)
    p.run(s, v.initializer)
    p.values(s, v)
    p.save(s, gi, d + "/recover_session_checkpoint")


def _recovered(p, ready=_report, **where):
    with tf.Graph().as_default() as g:
        v = v1.Variable(2, name="v")
        r = ready()
        saver = v1.train.Saver({"v": v})
        gi = p.add_graph(g, saver)
    sm = p.new_sm(gi, ready_op=r)
    s = p.recover_session(sm, saver=gi, **where)
    p.values(s, v)


def t14():
    p = Plan()
    _save_v1(p, "recover_session")
    _recovered(p, checkpoint_dir="recover_session")
    _recovered(p, checkpoint_filename_with_path="latest:recover_session")
    _recovered(p, checkpoint_dir="recover_session",
               checkpoint_filename_with_path="latest:recover_session")
    return p


def _t15(d, ready_for_local_all):
    p = Plan()
    _save_v1(p, d)
    with tf.Graph().as_default() as g:
        v, w = _gl(2)
        r = _report()
        rl = _report() if ready_for_local_all else _report(v1.global_variables())
        saver = v1.train.Saver({"v": v})
        gi = p.add_graph(g, saver)
    sm = p.new_sm(gi, ready_op=r, ready_for_local_init_op=rl, local_init_op=w.initializer)
    s = p.recover_session(sm, saver=gi, checkpoint_dir=d)
    p.values(s, v, w)
    return p


def t15():
    return _t15("recover_session_ready_for_local_init", False)


def t16():
    return _t15("recover_session_ready_for_local_init_fails_to_ready_local", True)


def t17():
    p = Plan()
    with tf.Graph().as_default() as g:
        w = v1.Variable(1, trainable=False, collections=LOCAL, name="w")
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, local_init_op=w.initializer)
    s = p.recover_session(sm)
    p.values(s, w)
    return p


def t18():
    p = Plan()
    d = "recover_session_ready_for_local_init_fails_stil_run"
    p.fs("mkdir", d)
    with tf.Graph().as_default() as g:
        v = v1.Variable(2, name="v")
        w = v1.Variable(1, trainable=False, collections=LOCAL, name="w")
        r = _report()
        saver = v1.train.Saver({"v": v})
        gi = p.add_graph(g, saver)
    sm = p.new_sm(gi, ready_op=r, local_init_op=w.initializer)
    s = p.recover_session(sm, saver=gi, checkpoint_dir=d, wait_for_checkpoint=False)
    p.values(s, v, w)
    return p


def t19(ready=_report):
    p = Plan()
    with tf.Graph().as_default() as g:
        v1.Variable(1, name="v")
        r = ready()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, recovery_wait_secs=1)
    p.wait_for_session(sm, max_wait_secs=3)
    return p


def t20():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r, rl = _report(), _report(v1.global_variables())
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, ready_for_local_init_op=rl, local_init_op=w.initializer)
    first = p.new_session(gi, master="shared")
    p.run(first, v.initializer)
    s = p.wait_for_session(sm, master="shared", max_wait_secs=3)
    p.values(s, v, w)
    return p


def t21():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r, rl = _report(), _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, ready_for_local_init_op=rl, local_init_op=w.initializer)
    p.wait_for_session(sm, max_wait_secs=3)
    return p


def t22():
    p = Plan()
    with tf.Graph().as_default() as g:
        v, w = _gl()
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r, local_init_op=w.initializer)
    p.wait_for_session(sm, max_wait_secs=3)
    return p


def t27():
    p = Plan()
    _save_v1(p, "recover_session", ready=_obsolete)
    _recovered(p, ready=_obsolete, checkpoint_dir="recover_session")
    return p


def x1():
    p = Plan()
    with tf.Graph().as_default() as g:
        v1.Variable(1, name="a")
        v1.Variable(2, name="b")
        v1.Variable(3, trainable=False, collections=LOCAL, name="c")
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    p.prepare_session(sm, init_fn_runs=[])
    return p


def x2():
    """A ready op that fails (InvalidArgument, not the FailedPrecondition of an
    uninitialized variable): the error propagates where readiness is checked."""
    p = Plan()
    with tf.Graph().as_default() as g:
        v = v1.Variable(1, name="v")
        check = tf.debugging.Assert(tf.constant(False), ["model is broken"])
        with tf.control_dependencies([check]):
            r = tf.identity(_report())
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    p.prepare_session(sm, init_op=v.initializer)
    p.recover_session(sm)
    p.wait_for_session(sm, max_wait_secs=3)
    return p


def x3():
    """An int32 ready op is ready; so is an op (it fetches nothing)."""
    p = Plan()
    with tf.Graph().as_default() as g:
        v = v1.Variable(1, name="v")
        as_int = tf.constant([1, 2])
        as_op = tf.no_op(name="ready_op")
        gi = p.add_graph(g)
    for ready in (as_int, as_op):
        sm = p.new_sm(gi, ready_op=ready)
        s = p.prepare_session(sm, init_fn_runs=[])
        p.values(s, v)
    return p


def _one_saved(p, d, ready=_report):
    with tf.Graph().as_default() as g:
        v = v1.Variable(1, name="v")
        r = ready()
        saver = v1.train.Saver({"v": v})
        gi = p.add_graph(g, saver)
    return gi, v, r


def x4():
    """The state file names a checkpoint whose files are gone."""
    p = Plan()
    p.fs("mkdir", "d")
    gi, v, r = _one_saved(p, "d")
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_op=v.initializer)
    p.save(s, gi, "d/model")
    p.fs("rmtree", "d/model.index")
    p.recover_session(sm, saver=gi, checkpoint_dir="d")
    return p


def x5():
    """A state file with no model_checkpoint_path."""
    p = Plan()
    p.fs("mkdir", "d")
    p.fs("write_file", "d/checkpoint", 'all_model_checkpoint_paths: "model"\n')
    gi, v, r = _one_saved(p, "d")
    sm = p.new_sm(gi, ready_op=r)
    p.recover_session(sm, saver=gi, checkpoint_dir="d")
    return p


def x6():
    """Waiting for a checkpoint: how many polls, and one that appears."""
    p = Plan()
    p.fs("mkdir", "d")
    gi, v, r = _one_saved(p, "d")
    sm = p.new_sm(gi, ready_op=r, recovery_wait_secs=3)
    p.recover_session(sm, saver=gi, checkpoint_dir="d", wait_for_checkpoint=True,
                      max_wait_secs=10)
    s = p.prepare_session(sm, init_op=v.initializer)
    p.save(s, gi, "d/model")
    s = p.recover_session(sm, saver=gi, checkpoint_dir="d", wait_for_checkpoint=True,
                          max_wait_secs=10)
    p.values(s, v)
    return p


def x7():
    """After a restore, the Saver knows the state file's checkpoints."""
    p = Plan()
    p.fs("mkdir", "d")
    gi, v, r = _one_saved(p, "d")
    sm = p.new_sm(gi, ready_op=r)
    s = p.prepare_session(sm, init_op=v.initializer)
    p.save(s, gi, "d/model-1")
    p.save(s, gi, "d/model-2")
    p.fs("rmtree", "d/model-1.index")
    gi2, _, r2 = _one_saved(p, "d")
    sm2 = p.new_sm(gi2, ready_op=r2)
    p.recover_session(sm2, saver=gi2, checkpoint_dir="d")
    p.last_checkpoints(gi2)
    return p


def x9():
    """wait_for_session with no limit waits until the model is ready."""
    p = Plan()
    with tf.Graph().as_default() as g:
        v = v1.Variable(1, name="v")
        r = _report()
        gi = p.add_graph(g)
    sm = p.new_sm(gi, ready_op=r)
    first = p.new_session(gi, master="shared")
    p.run(first, v.initializer)
    s = p.wait_for_session(sm, master="shared")
    p.values(s, v)
    return p


SCENARIOS = {
    "T1": t1, "T2": t2, "T3": t3, "T4": t4, "T5": t5, "T6": t6, "T7": t7, "T8": t8, "T9": t9,
    "T10": t10, "T11": t11, "T12": t12, "T13": t13, "T14": t14, "T15": t15, "T16": t16,
    "T17": t17, "T18": t18, "T19": t19, "T20": t20, "T21": t21, "T22": t22,
    "T23": lambda: t2(_obsolete), "T24": lambda: t3(_obsolete), "T25": lambda: t4(_obsolete),
    "T26": lambda: t6(_obsolete), "T27": t27, "T28": lambda: t19(_obsolete),
    "X1": x1, "X2": x2, "X3": x3, "X4": x4, "X5": x5, "X6": x6, "X7": x7, "X9": x9,
}


# --- TensorFlow's side ---------------------------------------------------


class FakeTime:
    """Stands in for session_manager's `time`: sleeping moves the clock."""

    def __init__(self):
        self.now = 1e9
        self.sleeps = 0
        self.slept = 0.0

    def time(self):
        return self.now

    def sleep(self, secs):
        self.sleeps += 1
        self.slept += secs
        self.now += secs


class NoSession(Exception):
    """A step on a session its call did not return."""


def _session(sessions, i):
    if sessions[i] is None:
        raise NoSession()
    return sessions[i]


def _error_outcome(e, workdir):
    if isinstance(e, tf.errors.OpError):
        code = {1: "CANCELLED", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND",
                9: "FAILED_PRECONDITION", 12: "UNIMPLEMENTED", 13: "INTERNAL",
                14: "UNAVAILABLE"}.get(e.error_code, str(e.error_code))
        message = e.message
    elif isinstance(e, NoSession):
        code, message = "NO_SESSION", "the call that makes the session failed"
    elif isinstance(e, ValueError):
        code, message = "INVALID_ARGUMENT", str(e)
    elif isinstance(e, RuntimeError):
        code, message = "FAILED_PRECONDITION", str(e)
    else:
        raise e
    return {"error": True, "code": code, "message": normalize_message(message, workdir)}


def normalize_message(message, workdir):
    """The error's own line, without the lines TensorFlow's client adds around it
    ("Graph execution error:", where the node was defined, "[[{{node x}}]]"), and
    the scenario's directory written "$DIR"."""
    lines = [l for l in message.split("\n") if l and l != "Graph execution error:"]
    annotated = [i for i, l in enumerate(lines) if l.startswith("\t [[")]
    line = lines[annotated[0] - 1] if annotated and annotated[0] else (lines or [""])[0]
    return line.rstrip().replace(workdir.rstrip("/"), "$DIR")


def _value(sess, name):
    try:
        return {"initialized": True,
                "numbers": [float(x) for x in np.asarray(sess.run(name)).reshape(-1)]}
    except tf.errors.FailedPreconditionError:
        return {"initialized": False}


def run_on_tensorflow(plan, workdir):
    """Takes the plan's steps with TensorFlow; returns the outcomes."""
    graphs, savers = [], []
    for entry in plan["graphs"]:
        graph = tf.Graph()
        with graph.as_default():
            tf.import_graph_def(tf.compat.v1.GraphDef.FromString(
                base64.b64decode(entry["graph_def"])), name="")
            saver_def = base64.b64decode(entry["saver_def"])
            savers.append(v1.train.Saver(saver_def=tf.compat.v1.train.SaverDef.FromString(
                saver_def)) if saver_def else None)
        graphs.append(graph)
    sms, sessions, server = [], [], []

    def path(rel):
        if rel.startswith("latest:"):
            return v1.train.latest_checkpoint(os.path.join(workdir, rel[len("latest:"):]))
        return os.path.join(workdir, rel) if rel else None

    def master(name):
        if name != "shared":
            return ""
        if not server:
            server.append(tf.distribute.Server.create_local_server())
        return server[0].target

    def lookup(graph, names):
        return [graph.get_operation_by_name(n[1:]) if n.startswith("^")
                else graph.get_tensor_by_name(n) for n in names]

    def one_or_list(graph, names, is_list):
        found = lookup(graph, names)
        if is_list:
            return found
        return found[0] if found else None

    def feeds(graph, entries):
        return {graph.get_tensor_by_name(f["name"]): tf.make_ndarray(
            tf.compat.v1.make_tensor_proto(0).FromString(base64.b64decode(f["tensor"])))
            for f in entries} or None

    clock = FakeTime()
    real_time = tf_session_manager.time
    tf_session_manager.time = clock
    outcomes = []
    try:
        for step in plan["steps"]:
            op = step["op"]
            out = {"op": op}
            sleeps, slept = clock.sleeps, clock.slept
            try:
                if op == "new_sm":
                    g = graphs[step["graph"]]
                    sms.append(None)
                    sms[-1] = (tf_session_manager.SessionManager(
                        graph=g,
                        ready_op=one_or_list(g, step["ready_op"], False),
                        ready_for_local_init_op=one_or_list(
                            g, step["ready_for_local_init_op"], False),
                        local_init_op=one_or_list(g, step["local_init_op"],
                                                  step["local_init_op_is_list"]),
                        recovery_wait_secs=step["recovery_wait_secs"] or 30,
                        local_init_feed_dict=feeds(g, step["local_init_feed_dict"])), g)
                elif op in ("prepare_session", "recover_session", "wait_for_session"):
                    sm, g = sms[step["sm"]]
                    sessions.append(None)
                    kw = {}
                    if step.get("has_max_wait"):
                        kw["max_wait_secs"] = step["max_wait_secs"]
                    if op == "wait_for_session":
                        sessions[-1] = sm.wait_for_session(master(step["master"]), **kw)
                    else:
                        kw.update(
                            saver=savers[step["saver"] - 1] if step["saver"] else None,
                            checkpoint_dir=path(step["checkpoint_dir"]),
                            checkpoint_filename_with_path=path(
                                step["checkpoint_filename_with_path"]),
                            wait_for_checkpoint=step["wait_for_checkpoint"])
                        if op == "recover_session":
                            sessions[-1], out["initialized"] = sm.recover_session(
                                master(step["master"]), **kw)
                        else:
                            runs = lookup(g, step["init_fn_runs"])
                            sessions[-1] = sm.prepare_session(
                                master(step["master"]),
                                init_op=one_or_list(g, step["init_op"], step["init_op_is_list"]),
                                init_feed_dict=feeds(g, step["init_feed_dict"]),
                                init_fn=(lambda s: s.run(runs)) if step["has_init_fn"] else None,
                                **kw)
                elif op == "new_session":
                    sessions.append(v1.Session(master(step["master"]),
                                               graph=graphs[step["graph"]]))
                elif op == "run":
                    s = _session(sessions, step["session"])
                    s.run(lookup(s.graph, step["names"]))
                elif op == "values":
                    s = _session(sessions, step["session"])
                    out["values"] = {n: _value(s, n) for n in step["names"]}
                elif op == "save":
                    savers[step["saver"] - 1].save(_session(sessions, step["session"]),
                                                   path(step["path"]))
                elif op == "last_checkpoints":
                    out["paths"] = [os.path.relpath(c, workdir)
                                    for c in savers[step["saver"] - 1].last_checkpoints]
                elif op == "mkdir":
                    os.makedirs(path(step["path"]))
                elif op == "rename":
                    os.rename(path(step["path"]), path(step["path2"]))
                elif op == "rmtree":
                    target = path(step["path"])
                    (shutil.rmtree if os.path.isdir(target) else os.remove)(target)
                elif op == "write_file":
                    with open(path(step["path"]), "w") as f:
                        f.write(step["path2"])
                else:
                    raise AssertionError("unknown step " + op)
            except Exception as e:  # pylint: disable=broad-except
                out.update(_error_outcome(e, workdir))
            out["sleeps"] = clock.sleeps - sleeps
            out["slept_secs"] = clock.slept - slept
            outcomes.append(out)
    finally:
        tf_session_manager.time = real_time
        for s in sessions:
            if s is not None:
                s.close()
    return outcomes


def normalize(outcome):
    """An outcome as protobuf's JSON mapping prints it: no default fields."""
    out = {}
    for key, value in outcome.items():
        if key == "values":
            value = {n: {k: x for k, x in v.items() if x} for n, v in value.items()}
        if value or key == "values":
            out[key] = value
    return out


# `python sm_scenarios.py [T6 X4 ...]` prints TensorFlow's outcomes.
if __name__ == "__main__":
    import sys
    import tempfile
    setup_tensorflow()
    for name in sys.argv[1:] or SCENARIOS:
        with tempfile.TemporaryDirectory() as d:
            for o in run_on_tensorflow(SCENARIOS[name]().to_dict(), d):
                print(name, json.dumps(normalize(o)))
