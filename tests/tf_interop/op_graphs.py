"""The op interop test's cases for ops that do not run alone on fed inputs:
training updates on variables, variables and resources, control flow,
TensorArrays, lists, stacks, optionals, tables, queues and readers,
datasets and iterators, checkpoint ops and summaries. Each case is a small graph built with
TensorFlow's own Python API (op_cases.Spec.graph), as real graphs have these
ops; GRAPH_GENERATORS maps each op to its cases."""

import atexit
import os
import shutil
import tempfile

import numpy as np

from interop import tf
from op_cases import Spec, random_values

v1 = tf.compat.v1
F32 = tf.float32

# The hyperparameters of the training ops, by input name.
HYPER = {"lr": 0.1, "alpha": 0.1, "l1": 0.01, "l2": 0.02, "rho": 0.9, "momentum": 0.9,
         "epsilon": 1e-7, "beta1": 0.9, "beta2": 0.999, "beta1_power": 0.9,
         "beta2_power": 0.999, "lr_power": -0.5, "beta": 0.9, "sign_decay": 0.5,
         "logbase": 0.7, "l2_shrinkage": 0.01}


def _after(deps, tensors):
    with tf.control_dependencies(deps):
        return [tf.identity(t) for t in tensors]


def training_op(op, attrs=None):
    """`op` (Apply*, SparseApply*, ResourceApply*, ResourceSparseApply*) on
    variables holding random values (accumulators positive), with TensorFlow's
    hyperparameter inputs; the variables are read after one update (the
    sparse forms: on matrices and vectors, a repeated index updated once per
    occurrence, an index out of range refused)."""
    from tensorflow.python.framework import op_def_registry
    op_def = op_def_registry.get(op)
    resource = op.startswith("Resource")
    sparse = "Sparse" in op

    def gen(dt, rng):
        out = []
        cases = [((3, 4), [2, 0]), ((5,), [4, 1]), ((0, 2), [])]
        if sparse:
            cases += [((4, 3), [1, 3, 1]), ((3, 2), [1, 3])]  # the last out of range
        for shape, rows in cases:
            values = {a.name: np.abs(random_values(rng, shape, F32, edges=False)) + 0.1
                      for a in op_def.input_arg}
            grad = random_values(rng, (len(rows),) + shape[1:] if sparse else shape, F32,
                                 edges=False)
            indices = np.asarray(rows, np.int32)

            def graph(values=values, grad=grad, indices=indices, shape=shape):
                inputs, inits, variables = {}, [], []
                for a in op_def.input_arg:
                    if a.is_ref or a.type == tf.resource.as_datatype_enum:
                        if resource:
                            h = tf.raw_ops.VarHandleOp(shape=shape, dtype=F32,
                                                       shared_name=a.name)
                            inits.append(tf.raw_ops.AssignVariableOp(resource=h,
                                                                     value=values[a.name]))
                            variables.append(h)
                        else:
                            h = tf.raw_ops.VariableV2(shape=shape, dtype=F32)
                            inits.append(tf.raw_ops.Assign(ref=h, value=values[a.name]).op)
                            variables.append(h)
                        inputs[a.name] = h
                    elif a.name in ("grad", "delta"):
                        inputs[a.name] = tf.constant(grad)
                    elif a.name == "indices":
                        inputs[a.name] = tf.constant(indices)
                    elif a.name == "global_step":
                        inputs[a.name] = tf.constant(3, tf.int64)
                    else:
                        inputs[a.name] = tf.constant(HYPER[a.name], F32)
                with tf.control_dependencies(inits):
                    update = getattr(tf.raw_ops, op)(**inputs, **(attrs or {}))
                update = update.op if hasattr(update, "op") else update
                with tf.control_dependencies([update]):
                    reads = [tf.raw_ops.ReadVariableOp(resource=h, dtype=F32) if resource
                             else tf.identity(h) for h in variables]
                return {}, reads
            out.append(Spec(f"{list(shape)}.{rows}", [], graph=graph, tol=10.0))
        return out
    return gen


def variable_scatter(op):
    """`op` (Scatter*, ResourceScatter*, ScatterNd*, ResourceScatterNd*) on a
    variable of random values, read after the scatter: rows (or index
    tuples) with a repeated index, scalar updates for the row forms, int32
    and int64 indices; an index out of range and updates of the wrong shape
    refused, the variable left as it was."""
    resource = op.startswith("Resource")
    nd = "ScatterNd" in op

    def gen(dt, rng):
        def case(shape, indices, upd_shape, dtype=F32):
            values = random_values(rng, shape, dtype, edges=False)
            updates = random_values(rng, upd_shape, dtype, edges=False)
            if op.endswith("Div"):
                updates = np.where(np.abs(updates) < 0.5, 2.0, updates).astype(updates.dtype)

            def graph():
                if resource:
                    h = tf.raw_ops.VarHandleOp(shape=shape, dtype=dtype, shared_name="v")
                    init = tf.raw_ops.AssignVariableOp(resource=h, value=values)
                else:
                    h = tf.raw_ops.VariableV2(shape=shape, dtype=dtype)
                    init = tf.raw_ops.Assign(ref=h, value=values).op
                # Fed, so that the updates' shape is checked when it runs.
                fed = v1.placeholder(dtype, None, name="updates")
                with tf.control_dependencies([init]):
                    update = getattr(tf.raw_ops, op)(
                        **{"resource" if resource and not nd else "ref": h},
                        indices=tf.constant(indices), updates=fed)
                update = update.op if hasattr(update, "op") else update
                with tf.control_dependencies([update]):
                    read = (tf.raw_ops.ReadVariableOp(resource=h, dtype=dtype) if resource
                            else tf.identity(h))
                return {fed: updates}, [read]
            return graph

        if nd:
            cases = [("rows", (4, 3), np.array([[1], [3], [1]], np.int32), (3, 3)),
                     ("elements", (3, 4), np.array([[0, 1], [2, 3], [0, 1]], np.int64), (3,)),
                     ("out_of_range", (3, 2), np.array([[3]], np.int32), (1, 2)),
                     ("updates_shape", (3, 2), np.array([[1]], np.int32), (1, 3))]
        else:
            cases = [("rows", (4, 3), np.array([1, 3, 1], np.int32), (3, 3)),
                     ("matrix_indices", (5, 2), np.array([[0, 4], [2, 0]], np.int64), (2, 2, 2)),
                     ("scalar_updates", (4, 2), np.array([2, 0], np.int32), ()),
                     ("vector", (6,), np.array([5, 1], np.int32), (2,)),
                     ("out_of_range", (3, 2), np.array([3], np.int32), (1, 2)),
                     ("updates_shape", (3, 2), np.array([1], np.int32), (1, 3))]
        out = [Spec(label, [], graph=case(*args)) for label, *args in cases]
        out.append(Spec("int32", [], graph=case((3, 2), np.array([[1]] if nd else [1], np.int32),
                                                 (1, 2), tf.int32)))
        return out
    return gen


SCATTER_OPS = ["Scatter" + k for k in ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max")]
SCATTER_OPS += ["Resource" + op for op in SCATTER_OPS]
SCATTER_OPS += [p + "ScatterNd" + k for p in ("", "Resource")
                for k in ("Update", "Add", "Sub", "Min", "Max")]


def variables(kind):
    def gen(dt, rng):
        init = random_values(rng, (2, 3), F32, edges=True)
        step = random_values(rng, (2, 3), F32, edges=False)

        def ref():
            v = tf.raw_ops.VariableV2(shape=[2, 3], dtype=F32)
            inited = tf.raw_ops.IsVariableInitialized(ref=v)
            with tf.control_dependencies([inited]):
                a = tf.raw_ops.Assign(ref=v, value=init)
            with tf.control_dependencies([a]):
                added = tf.raw_ops.AssignAdd(ref=v, value=step)
            with tf.control_dependencies([added]):
                subbed = tf.raw_ops.AssignSub(ref=v, value=step * 2)
            return {}, [inited, tf.identity(subbed)]

        def old_ref():
            v = tf.raw_ops.Variable(shape=[2, 3], dtype=F32)
            a = tf.raw_ops.Assign(ref=v, value=init)
            return {}, _after([a], [v])

        def res():
            h = tf.raw_ops.VarHandleOp(shape=[2, 3], dtype=F32, shared_name="v")
            before = tf.raw_ops.VarIsInitializedOp(resource=h)
            with tf.control_dependencies([before]):
                a = tf.raw_ops.AssignVariableOp(resource=h, value=init)
            with tf.control_dependencies([a]):
                b = tf.raw_ops.AssignAddVariableOp(resource=h, value=step)
            with tf.control_dependencies([b]):
                c = tf.raw_ops.AssignSubVariableOp(resource=h, value=step * 3)
            with tf.control_dependencies([c]):
                read = tf.raw_ops.ReadVariableOp(resource=h, dtype=F32)
                shape = tf.raw_ops.VariableShape(input=h, out_type=tf.int64)
                rows = tf.raw_ops.ResourceGather(resource=h, indices=[1, 0, 1], dtype=F32)
                after = tf.raw_ops.VarIsInitializedOp(resource=h)
            with tf.control_dependencies([read, shape, rows, after]):
                nocopy = tf.raw_ops.DisableCopyOnRead(resource=h)
            with tf.control_dependencies([nocopy]):
                again = tf.raw_ops.ReadVariableOp(resource=h, dtype=F32)
            with tf.control_dependencies([again]):
                gone = tf.raw_ops.DestroyResourceOp(resource=h)
            return {}, [before, read, shape, rows, after, again] + _after([gone], [read])

        return [Spec(kind, [], graph={"ref": ref, "old_ref": old_ref, "resource": res}[kind])]
    return gen


def count_up_to(dt, rng):
    """CountUpTo on a ref variable and ResourceCountUpTo on a resource one
    (tf.train.limit_epochs' counter), of both dtypes: each count the value
    before it, and OutOfRange at the limit."""
    def counted(resource, dtype, runs):
        def g():
            if resource:
                h = tf.raw_ops.VarHandleOp(shape=[], dtype=dtype, shared_name="n")
                init = tf.raw_ops.AssignVariableOp(resource=h, value=tf.constant(1, dtype))
                count = lambda: tf.raw_ops.ResourceCountUpTo(resource=h, limit=3, T=dtype)
            else:
                h = tf.raw_ops.VariableV2(shape=[], dtype=dtype)
                # Its op: a fetched Ref(T) output aliases the variable in
                # TensorFlow (the value at the step's end), a snapshot here.
                init = tf.raw_ops.Assign(ref=h, value=tf.constant(1, dtype)).op
                count = lambda: tf.raw_ops.CountUpTo(ref=h, limit=3)
            return {}, chain(lambda: init, *[count] * runs)
        return g
    return [Spec(f"{'resource' if r else 'ref'}_{d.name}_{n}", [], graph=counted(r, d, n))
            for r in (False, True) for d in (tf.int32, tf.int64) for n in (2, 3)]


def control_flow(dt, rng):
    """tf.compat.v1's cond and while_loop as TensorFlow 1 builds them (Switch,
    Merge, Enter, Exit, NextIteration, LoopCond; with a ref variable inside,
    RefSwitch and RefEnter; with a ref variable as a loop variable, updated
    in place each iteration, RefMerge, RefNextIteration and RefExit) and as
    TensorFlow 2 does (StatelessIf and StatelessWhile; If and While when a
    branch or the body reads a variable), and a ControlTrigger."""
    from tensorflow.python.ops import control_flow_v2_toggles as toggles
    x0 = random_values(rng, (3,), F32, edges=False)

    def build(v2):
        def graph():
            (toggles.enable_control_flow_v2 if v2 else toggles.disable_control_flow_v2)()
            try:
                x = v1.placeholder(F32, None, name="x")
                p = v1.placeholder(tf.bool, None, name="p")
                outs = []
                for pred in (True, False):
                    q = tf.math.logical_xor(p, not pred)
                    outs.append(v1.cond(q, lambda: x * 2.0, lambda: x - 1.0))
                i, acc = v1.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 1.5 + x),
                                       [tf.constant(0), x])
                outs += [i, acc]
                if v2:
                    rv = v1.Variable(x0, use_resource=True)
                    with tf.control_dependencies([rv.initializer]):
                        outs.append(v1.cond(p, lambda: rv.read_value() * 2.0, lambda: x))
                        outs.append(v1.while_loop(lambda j, a: j < 3,
                                                  lambda j, a: (j + 1, a + rv.read_value()),
                                                  [tf.constant(0), tf.zeros([3])])[1])
                else:
                    v = v1.Variable(x0, use_resource=False)
                    with tf.control_dependencies([v.initializer]):
                        outs.append(v1.cond(p, lambda: tf.identity(v._ref()),
                                            lambda: tf.identity(v._ref()) + 1.0))
                        outs.append(v1.while_loop(lambda j, a: j < 3,
                                                  lambda j, a: (j + 1, a + v._ref()),
                                                  [tf.constant(0), tf.zeros([3])])[1])
                    w = v1.Variable(x0, use_resource=False, name="ref_loop_var")
                    # The loop's RefEnter waits for w's initializer.
                    with tf.control_dependencies([w.initializer]):
                        _, updated = v1.while_loop(lambda j, a: j < 3,
                                                   lambda j, a: (j + 1, v1.assign_add(a, x)),
                                                   [tf.constant(0), w._ref()], back_prop=False)
                    outs.append(tf.identity(updated))
                    trigger = tf.raw_ops.ControlTrigger()
                    outs += _after([trigger], [x])
                return {x: x0, p: True}, outs
            finally:
                toggles.enable_control_flow_v2()
        return graph
    def loop_gradient(step, dtype=F32, branch=False):
        """A recurrent loop as TensorFlow 2 builds it (While over a body
        reading step i of a captured sequence; with `branch`, a cond_v2 If in
        it); minigraph differentiates the imported loop itself (its While
        keeping each iteration's values)."""
        def graph():
            toggles.enable_control_flow_v2()
            x = v1.placeholder(dtype, [5, 2, 3], name="x")
            h0 = v1.placeholder(dtype, [2, 3], name="h0")
            w = v1.placeholder(dtype, [3, 3], name="w")

            def body(i, h):
                h = step(h, w, x, i)
                if branch:
                    h = v1.cond(i % 2 < 1, lambda: h * w[0], lambda: tf.sin(h))
                return i + 1, h
            _, h = v1.while_loop(lambda i, h: i < 5, body, [tf.constant(0), h0])
            r = np.random.default_rng(3)
            np_dtype = dtype.as_numpy_dtype
            return {x: r.standard_normal((5, 2, 3)).astype(np_dtype),
                    h0: r.standard_normal((2, 3)).astype(np_dtype),
                    w: (r.standard_normal((3, 3)) * 0.5).astype(np_dtype)}, [h]
        return graph

    return [Spec("tf1", [], graph=build(False)), Spec("tf2", [], graph=build(True)),
            Spec("tf2_loop_gradient", [], grad=(0, 1, 2), graph=loop_gradient(
                lambda h, w, x, i: tf.tanh(tf.matmul(h, w) + tf.gather(x, i)) * 1.5 + h)),
            Spec("tf2_loop_gradient_broadcast", [], grad=(0, 1, 2), graph=loop_gradient(
                lambda h, w, x, i: tf.sigmoid(h * tf.reduce_sum(w, 0) - x[i] / 2.0))),
            Spec("tf2_loop_and_cond_gradient_float64", [], grad=(0, 1, 2), graph=loop_gradient(
                lambda h, w, x, i: tf.tanh(tf.matmul(h, w) + x[i]), dtype=tf.float64,
                branch=True))]


def functions(dt, rng):
    """tf.functions called from a TensorFlow 1 graph: PartitionedCall for a
    pure one, StatefulPartitionedCall for one with a seeded random op."""
    x0 = random_values(rng, (4,), F32, edges=False)

    def graph():
        @tf.function
        def pure(x):
            return tf.nn.relu(x) * 2.0 + tf.reduce_sum(x)

        @tf.function
        def stateful(x):
            return x + tf.random.uniform([4], seed=5)

        x = v1.placeholder(F32, [4], name="x")
        return {x: x0}, [pure(x), stateful(x)]
    return [Spec("tf_function", [], graph=graph)]


def tensor_array(dt, rng):
    """TensorFlow 1's TensorArray: write, read, gather, scatter, split, concat,
    size, close, and the gradient array tf.gradients makes."""
    from tensorflow.python.ops import control_flow_v2_toggles as toggles
    x0 = random_values(rng, (4, 3), F32, edges=False)

    def graph():
        toggles.disable_control_flow_v2()  # TensorFlow 1's TensorArray ops
        try:
            return arrays()
        finally:
            toggles.enable_control_flow_v2()

    def arrays():
        from tensorflow.python.ops import tensor_array_ops
        x = v1.placeholder(F32, [4, 3], name="x")
        ta = tensor_array_ops.TensorArray(F32, size=0, dynamic_size=True, element_shape=[3],
                                          clear_after_read=False)
        ta = ta.unstack(x)                                   # TensorArrayScatterV3
        ta = ta.write(4, x[3] * 2.0)
        read = ta.read(4)
        stacked = ta.stack()                                 # TensorArrayGatherV3
        size = ta.size()
        split = tensor_array_ops.TensorArray(F32, size=2, infer_shape=False).split(
            tf.reshape(x, [-1]), [5, 7])
        concat = split.concat()
        grads = tf.gradients(tf.reduce_sum(stacked * stacked), x)   # TensorArrayGradV3
        outs = [read, stacked, size, concat, grads[0]]
        with tf.control_dependencies(outs):
            close = ta.close()
        return {x: x0}, outs + _after([close], [size])

    def grad_with_shape():
        x = v1.placeholder(F32, [4, 3], name="x")
        handle, flow = tf.raw_ops.TensorArrayV3(size=4, dtype=F32, element_shape=[3])
        flow = tf.raw_ops.TensorArrayScatterV3(handle=handle, indices=tf.range(4), value=x,
                                               flow_in=flow)
        grad, gflow = tf.raw_ops.TensorArrayGradWithShape(
            handle=handle, flow_in=flow, shape_to_prepend=tf.constant([2], tf.int32), source="s")
        gflow = tf.raw_ops.TensorArrayWriteV3(handle=grad, index=1, value=tf.stack([x[0], x[1]]),
                                              flow_in=gflow)
        unwritten = tf.raw_ops.TensorArrayReadV3(handle=grad, index=0, flow_in=gflow, dtype=F32)
        written = tf.raw_ops.TensorArrayReadV3(handle=grad, index=1, flow_in=gflow, dtype=F32)
        return {x: x0}, [unwritten, written]

    def stack_v1():
        """TensorFlow 1's first stack: a reference to a string handle."""
        x = v1.placeholder(F32, [4, 3], name="x")
        s = tf.raw_ops.Stack(elem_type=F32, stack_name="s")
        first = tf.raw_ops.StackPush(handle=s, elem=x)
        with tf.control_dependencies([first]):
            second = tf.raw_ops.StackPush(handle=s, elem=x * 2.0, swap_memory=True)
        with tf.control_dependencies([second]):
            top = tf.raw_ops.StackPop(handle=s, elem_type=F32)
        with tf.control_dependencies([top]):
            below = tf.raw_ops.StackPop(handle=s, elem_type=F32)
        with tf.control_dependencies([below]):
            close = tf.raw_ops.StackClose(handle=s)
        return {x: x0}, [first, top, below] + _after([close], [top])
    return [Spec("array", [], graph=graph), Spec("grad_with_shape", [], graph=grad_with_shape),
            Spec("stack_v1", [], graph=stack_v1)]


def tensor_list(dt, rng):
    x0 = random_values(rng, (4, 3), F32, edges=False)

    def graph():
        x = v1.placeholder(F32, [4, 3], name="x")
        shape = tf.constant([3], tf.int32)
        lst = tf.raw_ops.TensorListFromTensor(tensor=x, element_shape=shape)
        lst = tf.raw_ops.TensorListSetItem(input_handle=lst, index=2, item=x[0] * 3.0)
        lst = tf.raw_ops.TensorListPushBack(input_handle=lst, tensor=x[1])
        length = tf.raw_ops.TensorListLength(input_handle=lst)
        item = tf.raw_ops.TensorListGetItem(input_handle=lst, index=2, element_shape=shape,
                                            element_dtype=F32)
        lst2, popped = tf.raw_ops.TensorListPopBack(input_handle=lst, element_shape=shape,
                                                    element_dtype=F32)
        eshape = tf.raw_ops.TensorListElementShape(input_handle=lst2, shape_type=tf.int32)
        stacked = tf.raw_ops.TensorListStack(input_handle=lst2, element_shape=shape,
                                             element_dtype=F32)
        empty = tf.raw_ops.EmptyTensorList(element_shape=shape, max_num_elements=-1,
                                           element_dtype=F32)
        empty = tf.raw_ops.TensorListPushBack(input_handle=empty, tensor=x[2])
        reserved = tf.raw_ops.TensorListReserve(element_shape=shape, num_elements=2,
                                                element_dtype=F32)
        reserved = tf.raw_ops.TensorListSetItem(input_handle=reserved, index=1, item=x[3])
        return {x: x0}, [length, item, popped, eshape, stacked,
                         tf.raw_ops.TensorListStack(input_handle=empty, element_shape=shape,
                                                    element_dtype=F32),
                         tf.raw_ops.TensorListGetItem(input_handle=reserved, index=1,
                                                      element_shape=shape, element_dtype=F32)]
    return [Spec("list", [], graph=graph, grad=(0,))]


def stack(dt, rng):
    x0 = random_values(rng, (3,), F32, edges=False)

    def graph():
        x = v1.placeholder(F32, [3], name="x")
        h = tf.raw_ops.StackV2(max_size=-1, elem_type=F32, stack_name="s")
        a = tf.raw_ops.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([a]):
            b = tf.raw_ops.StackPushV2(handle=h, elem=x * 2.0)
        with tf.control_dependencies([b]):
            top = tf.raw_ops.StackPopV2(handle=h, elem_type=F32)
        with tf.control_dependencies([top]):
            next_ = tf.raw_ops.StackPopV2(handle=h, elem_type=F32)
        with tf.control_dependencies([next_]):
            close = tf.raw_ops.StackCloseV2(handle=h)
        return {x: x0}, [top, next_] + _after([close], [x])
    return [Spec("push_pop", [], graph=graph)]


def optional(dt, rng):
    x0 = random_values(rng, (2, 2), F32, edges=False)

    def graph():
        x = v1.placeholder(F32, [2, 2], name="x")
        some = tf.raw_ops.OptionalFromValue(components=[x, tf.constant(7)])
        none = tf.raw_ops.OptionalNone()
        value = tf.raw_ops.OptionalGetValue(optional=some, output_types=[F32, tf.int32],
                                            output_shapes=[[2, 2], []])
        return {x: x0}, [tf.raw_ops.OptionalHasValue(optional=some),
                         tf.raw_ops.OptionalHasValue(optional=none)] + list(value)

    def get_none():
        none = tf.raw_ops.OptionalNone()
        return {}, list(tf.raw_ops.OptionalGetValue(optional=none, output_types=[F32],
                                                    output_shapes=[[]]))
    def floats():
        x = v1.placeholder(F32, [2, 2], name="x")
        some = tf.raw_ops.OptionalFromValue(components=[x * 2.0, tf.sin(x)])
        value = tf.raw_ops.OptionalGetValue(optional=some, output_types=[F32, F32],
                                            output_shapes=[[2, 2], [2, 2]])
        return {x: x0}, list(value)
    return [Spec("some_and_none", [], graph=graph), Spec("get_none", [], graph=get_none),
            Spec("floats", [], graph=floats, grad=(0,))]


def tables(dt, rng):
    def static():
        keys = tf.constant([b"a", b"b", b"c"])
        table = v1.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(keys, tf.constant([1, 2, 3], tf.int64)), -1)
        q = v1.placeholder(tf.string, None, name="q")
        with tf.control_dependencies([table.initializer]):
            found = table.lookup(q)
            size = table.size()
        return {q: np.array([b"b", b"z", b"a", b""], dtype=object)}, [found, size]

    def mutable():
        table = tf.lookup.experimental.MutableHashTable(tf.int64, F32, default_value=-1.0)
        ins = table.insert(tf.constant([3, 1, 4], tf.int64), tf.constant([0.5, 1.5, 2.5]))
        with tf.control_dependencies([ins]):
            imp = tf.raw_ops.LookupTableImportV2(table_handle=table.resource_handle,
                                                 keys=tf.constant([9], tf.int64),
                                                 values=tf.constant([9.5]))
        with tf.control_dependencies([imp]):
            found = table.lookup(tf.constant([1, 2, 3, 9], tf.int64))
            size = table.size()
            keys, values = table.export()
        # The export's order is the hash map's: compare what does not depend on it.
        pairs = tf.reduce_sum(tf.cast(keys, F32) * values)
        return {}, [found, size, tf.reduce_sum(keys), tf.reduce_sum(values), pairs]

    def initialize_table():
        table = tf.raw_ops.HashTableV2(key_dtype=tf.int64, value_dtype=tf.string)
        init = tf.raw_ops.InitializeTableV2(table_handle=table,
                                            keys=tf.constant([7, -1], tf.int64),
                                            values=tf.constant([b"seven", b"minus"]))
        with tf.control_dependencies([init]):
            found = tf.raw_ops.LookupTableFindV2(table_handle=table,
                                                 keys=tf.constant([[-1, 0], [7, 7]], tf.int64),
                                                 default_value=tf.constant(b"?"))
        return {}, [found]
    def of_tensors(default=(-1.0, -2.0), inserted=((0.5, 1.5), (2.5, 3.5))):
        """A MutableHashTable whose values are vectors (MutableHashTableOfTensors)."""
        def graph():
            table = tf.lookup.experimental.MutableHashTable(tf.string, F32,
                                                            default_value=list(default))
            ins = table.insert(tf.constant([b"a", b"b"]), tf.constant(inserted, F32))
            with tf.control_dependencies([ins]):
                found = table.lookup(tf.constant([[b"b", b"z"], [b"a", b"a"]]))
                size = table.size()
                keys, values = table.export()
            # The export's order is the hash map's: sums do not depend on it.
            return {}, [found, size, tf.reduce_sum(values),
                        tf.reduce_sum(table.lookup(keys))]
        return graph
    def dense(key_dtype, value_dtype, keys, values, queries, default, empty, deleted,
              removed=None, buckets=8, value_shape=None):
        """A DenseHashTable filled, grown and emptied in part: its exported
        buckets are where TensorFlow's hash and probes put each key."""
        def graph():
            table = tf.raw_ops.MutableDenseHashTableV2(
                empty_key=tf.constant(empty, key_dtype), deleted_key=tf.constant(deleted, key_dtype),
                value_dtype=value_dtype, initial_num_buckets=buckets,
                value_shape=value_shape or [])
            step = tf.raw_ops.LookupTableInsertV2(table_handle=table,
                                                  keys=tf.constant(keys, key_dtype),
                                                  values=tf.constant(values, value_dtype))
            if removed is not None:
                with tf.control_dependencies([step]):
                    step = tf.raw_ops.LookupTableRemoveV2(table_handle=table,
                                                          keys=tf.constant(removed, key_dtype))
            with tf.control_dependencies([step]):
                found = tf.raw_ops.LookupTableFindV2(
                    table_handle=table, keys=tf.constant(queries, key_dtype),
                    default_value=tf.constant(default, value_dtype))
                size = tf.raw_ops.LookupTableSizeV2(table_handle=table)
                exported = tf.raw_ops.LookupTableExportV2(table_handle=table, Tkeys=key_dtype,
                                                          Tvalues=value_dtype)
            return {}, [found, size, exported[0], exported[1]]
        return graph

    def remove_mutable():
        table = tf.lookup.experimental.MutableHashTable(tf.int64, F32, default_value=-1.0)
        ins = table.insert(tf.constant([1, 2, 3], tf.int64), tf.constant([1.0, 2.0, 3.0]))
        with tf.control_dependencies([ins]):
            rm = table.remove(tf.constant([2, 9], tf.int64))
        with tf.control_dependencies([rm]):
            return {}, [table.lookup(tf.constant([1, 2, 3], tf.int64)), table.size()]

    i64 = tf.int64
    dense_specs = [
        Spec("dense_int64", [], graph=dense(i64, F32, [5, 13, 3, 21, 7, 9, 100],
                                            [1, 2, 3, 4, 5, 6, 7], [5, 13, 21, 4], -1.0, 0, -1,
                                            removed=[13, 8])),
        Spec("dense_int32", [], graph=dense(tf.int32, tf.int32, [-3, 2, 6, -7], [1, 2, 3, 4],
                                            [-3, -7, 5], -1, 0, 1, removed=[2], buckets=4)),
        Spec("dense_string", [], graph=dense(tf.string, i64,
                                             [b"a", b"bb", b"hello world!", b"12345678", b"x"],
                                             [1, 2, 3, 4, 5], [b"bb", b"zz"], -1, b"", b"$",
                                             removed=[b"a"])),
        Spec("dense_vector_keys", [], graph=dense(i64, tf.double, [[1, 2], [3, 4], [5, -6]],
                                                  [1.5, 2.5, 3.5], [[3, 4], [9, 9]], -1.0,
                                                  [0, 0], [-1, -1])),
        Spec("dense_vector_values", [], graph=dense(tf.string, tf.bool, [b"p", b"q"],
                                                    [[True, False], [False, True]],
                                                    [b"q", b"r"], [[True, True], [False, False]],
                                                    b"", b"-", value_shape=[2])),
        Spec("dense_insert_empty_key", [], graph=dense(i64, F32, [0], [1.0], [1], -1.0, 0, -1)),
        Spec("dense_find_deleted_key", [], graph=dense(i64, F32, [1], [1.0], [-1], -1.0, 0, -1)),
        Spec("dense_six_buckets", [], graph=dense(i64, F32, [1], [1.0], [1], -1.0, 0, -1,
                                                  buckets=6)),
        Spec("dense_same_free_keys", [], graph=dense(i64, F32, [1], [1.0], [1], -1.0, 7, 7)),
        Spec("dense_key_shape", [], graph=dense(i64, F32, [1, 2, 3], [1.0, 2.0, 3.0], [1], -1.0,
                                                [0, 0], [-1, -1])),
        Spec("dense_default_shape", [], graph=dense(i64, F32, [1], [[1.0, 2.0]],
                                                    [1, 5], -1.0, 0, -1, value_shape=[2])),
        Spec("remove_mutable", [], graph=remove_mutable),
    ]
    return dense_specs + [Spec("static", [], graph=static), Spec("mutable", [], graph=mutable),
            Spec("initialize_table", [], graph=initialize_table),
            Spec("of_tensors", [], graph=of_tensors()),
            Spec("of_tensors_value_shape_mismatch", [],
                 graph=of_tensors(inserted=((0.5, 1.5, 9.0), (2.5, 3.5, 9.0))))]


def text_file_tables(dt, rng):
    """HashTables filled from text files (InitializeTableFromTextFileV2, what
    tf.lookup.TextFileInitializer and vocabulary feature columns build):
    keys and values from columns, line numbers (with an offset) or whole
    lines, of every type; vocab_size cutting the file short or asking for
    more; a space as the delimiter; CRLF lines; the files and delimiters
    TensorFlow refuses."""
    work = tempfile.mkdtemp(prefix="mg_vocab_")  # read again when minigraph runs the cases
    atexit.register(shutil.rmtree, work, True)

    def write(name, text):
        path = os.path.join(work, name)
        with open(path, "w", newline="") as f:
            f.write(text)
        return path

    vocab = write("vocab.txt", "apple\nbanana\ncherry\n")
    pairs = write("pairs.tsv", "a\t1\t0.5\nb\t2\t1.5\nc\t-3\t2.5\n")
    spaces = write("spaces.txt", "x 10\ny 20\n")
    crlf = write("crlf.txt", "p\r\nq\r\n")
    gap = write("gap.txt", "a\n\nb\n")

    def graph(path, key_dtype, value_dtype, key_index, value_index, queries, default, **attrs):
        def g():
            table = tf.raw_ops.HashTableV2(key_dtype=key_dtype, value_dtype=value_dtype)
            init = tf.raw_ops.InitializeTableFromTextFileV2(
                table_handle=table, filename=path, key_index=key_index,
                value_index=value_index, **attrs)
            with tf.control_dependencies([init]):
                found = tf.raw_ops.LookupTableFindV2(
                    table_handle=table, keys=tf.constant(queries, key_dtype),
                    default_value=tf.constant(default, value_dtype))
                size = tf.raw_ops.LookupTableSizeV2(table_handle=table)
            return {}, [found, size]
        return g

    S, I = tf.string, tf.int64
    words = [b"banana", b"apple", b"durian"]
    return [
        Spec("word_to_id", [], graph=graph(vocab, S, I, -2, -1, words, -1)),
        Spec("id_to_word_offset", [], graph=graph(vocab, I, S, -1, -2, [5, 7, 0], b"?",
                                                  offset=5)),
        Spec("columns_int64", [], graph=graph(pairs, S, I, 0, 1, [b"b", b"z"], 0)),
        Spec("columns_float", [], graph=graph(pairs, S, tf.float32, 0, 2, [b"c"], -1.0)),
        Spec("columns_double", [], graph=graph(pairs, S, tf.float64, 0, 2, [b"a"], -1.0)),
        Spec("int_keys", [], graph=graph(pairs, I, S, 1, 0, [-3, 2, 9], b"?")),
        Spec("vocab_size_short", [], graph=graph(vocab, S, I, -2, -1, words, -1, vocab_size=2)),
        Spec("vocab_size_too_long", [], graph=graph(vocab, S, I, -2, -1, words, -1,
                                                    vocab_size=5)),
        Spec("space_delimiter", [], graph=graph(spaces, S, I, 0, 1, [b"x", b"y"], 0,
                                                delimiter=" ")),
        Spec("empty_delimiter", [], graph=graph(spaces, S, I, 0, 1, [b"x"], 0, delimiter="")),
        Spec("crlf", [], graph=graph(crlf, S, I, -2, -1, [b"q", b"q\r"], -1)),
        Spec("empty_line", [], graph=graph(gap, S, I, -2, -1, [b"b"], -1)),
        Spec("missing_column", [], graph=graph(pairs, S, I, 0, 3, [b"a"], 0)),
        Spec("not_an_int", [], graph=graph(pairs, I, I, 0, 1, [1], 0)),
        Spec("line_number_as_string", [], graph=graph(vocab, S, S, -2, -1, [b"a"], b"?")),
        Spec("missing_file", [], graph=graph(os.path.join(work, "nope.txt"), S, I, -2, -1,
                                             [b"a"], -1)),
    ]


def _iterate(ds, n, initializable=False):
    if initializable:
        it = v1.data.make_initializable_iterator(ds)
        with tf.control_dependencies([it.initializer]):
            first = it.get_next()
    else:
        it = v1.data.make_one_shot_iterator(ds)
        first = it.get_next()
    out = list(tf.nest.flatten(first))
    prev = out
    for _ in range(n - 1):
        with tf.control_dependencies(prev):
            prev = list(tf.nest.flatten(it.get_next()))
        out += prev
    return out


def datasets(dt, rng):
    """tf.data pipelines TensorFlow 2.21 writes into a TensorFlow 1 graph,
    drained by an iterator."""
    root = tempfile.mkdtemp()
    text = os.path.join(root, "lines.txt")
    with open(text, "w") as f:
        f.write("one\ntwo\nthree\n")
    records = os.path.join(root, "records.tfrecord")
    with tf.io.TFRecordWriter(records) as w:
        for r in (b"r0", b"r1", b"r2"):
            w.write(r)
    D = tf.data.Dataset

    pipelines = {
        "range_map_batch": lambda: (D.range(10).map(lambda a: a * 2).batch(3), 3, False),
        "slices_filter_padded": lambda: (
            D.from_tensor_slices(tf.constant([1, 2, 3, 4, 5, 6], tf.int64))
            .filter(lambda b: tf.equal(b % 2, 0))
            .map(lambda c: tf.range(c))
            .padded_batch(2, padded_shapes=[None]), 2, False),
        "tensor_repeat_take_skip": lambda: (
            D.from_tensors(tf.constant([1.0, 2.0])).repeat(5).skip(1).take(3), 3, True),
        "zip_concatenate": lambda: (
            D.zip((D.range(3), D.range(10, 13))).concatenate(D.zip((D.range(1), D.range(1)))),
            4, False),
        "flat_map_interleave": lambda: (
            D.range(3).flat_map(lambda d: D.from_tensors(d).repeat(2))
            .interleave(lambda e: D.range(e + 1), cycle_length=2), 6, False),
        "parallel_map_prefetch_cache": lambda: (
            D.range(6).map(lambda f: f * f, num_parallel_calls=2).cache().prefetch(2), 6, False),
        "map_and_batch": lambda: (
            D.range(7).apply(tf.data.experimental.map_and_batch(lambda h: h + 1, 3)), 3, False),
        "shuffle": lambda: (D.range(8).shuffle(8, seed=5, reshuffle_each_iteration=False),
                            8, False),
        "shuffle_reshuffled_small_buffer": lambda: (
            D.range(10).shuffle(3, seed=7).repeat(2), 20, False),
        "shuffle_and_repeat": lambda: (
            D.range(4).apply(tf.data.experimental.shuffle_and_repeat(4, count=2, seed=3)),
            8, False),
        "parallel_interleave": lambda: (
            D.range(4).interleave(lambda i: D.range(i * 10, i * 10 + 3), cycle_length=2,
                                  block_length=2, num_parallel_calls=2), 12, False),
        "legacy_parallel_interleave": lambda: (
            D.range(3).apply(tf.data.experimental.parallel_interleave(
                lambda i: D.range(i * 10, i * 10 + 3), cycle_length=2, block_length=2)),
            9, False),
        "read_files_in_parallel": lambda: (
            D.from_tensor_slices([text, records]).map(tf.io.read_file, num_parallel_calls=2),
            2, False),
        "parallel_batch": lambda: (
            D.range(7).batch(3, drop_remainder=True, num_parallel_calls=2), 2, False),
        "prefetch_autotune": lambda: (D.range(5).prefetch(tf.data.AUTOTUNE), 5, False),
        # TensorFlow writes the cache when it runs the graph; minigraph then
        # reads TensorFlow's files.
        "file_cache": lambda: (
            D.range(5).map(lambda j: (j * 3, tf.strings.as_string(j)))
            .cache(os.path.join(root, "cache")), 5, False),
        "text_lines": lambda: (tf.data.TextLineDataset(text), 3, False),
        "tfrecords": lambda: (tf.data.TFRecordDataset(records), 3, False),
    }

    out = []
    for name, make in pipelines.items():
        def graph(make=make):
            ds, n, initializable = make()
            return {}, _iterate(ds, n, initializable)
        out.append(Spec(name, [], graph=graph))

    def string_handle():
        ds = D.range(3)
        it = v1.data.make_one_shot_iterator(ds)
        handle = it.string_handle()
        again = v1.data.Iterator.from_string_handle(handle, tf.int64, [])
        return {}, [again.get_next()]
    out.append(Spec("string_handle", [], graph=string_handle))

    # The ops of older TensorFlows' graphs, which TensorFlow 2 still runs.
    types, shapes = [tf.int64], [tf.TensorShape([None])]

    def legacy():
        r = tf.raw_ops.RangeDataset(start=0, stop=7, step=1, output_types=[tf.int64],
                                    output_shapes=[[]])
        b = tf.raw_ops.BatchDatasetV2(input_dataset=r, batch_size=3, drop_remainder=False,
                                      output_types=types, output_shapes=shapes)
        o = tf.raw_ops.OptimizeDataset(input_dataset=b, optimizations=["noop_elimination"],
                                       output_types=types, output_shapes=shapes)
        o = tf.raw_ops.OptimizeDatasetV2(input_dataset=o, optimizations_enabled=[],
                                         optimizations_disabled=[], optimizations_default=[],
                                         output_types=types, output_shapes=shapes)
        m = tf.raw_ops.ModelDataset(input_dataset=o, output_types=types, output_shapes=shapes)
        it = tf.raw_ops.Iterator(shared_name="it", container="", output_types=types,
                                 output_shapes=shapes)
        make = tf.raw_ops.MakeIterator(dataset=m, iterator=it)
        with tf.control_dependencies([make]):
            first = tf.raw_ops.IteratorGetNext(iterator=it, output_types=types,
                                               output_shapes=shapes)
        handle = tf.raw_ops.IteratorToStringHandle(resource_handle=it)
        again = tf.raw_ops.IteratorFromStringHandle(string_handle=handle, output_types=types,
                                                    output_shapes=shapes)
        with tf.control_dependencies(first):
            second = tf.raw_ops.IteratorGetNext(iterator=again, output_types=types,
                                                output_shapes=shapes)
        return {}, list(first) + list(second)

    def legacy_padded_and_parallel_map():
        @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
        def square(x):
            return x * x
        r = tf.raw_ops.RangeDataset(start=1, stop=6, step=1, output_types=[tf.int64],
                                    output_shapes=[[]])
        pm = tf.raw_ops.ParallelMapDataset(input_dataset=r, other_arguments=[],
                                           num_parallel_calls=2, f=square.get_concrete_function(),
                                           output_types=[tf.int64], output_shapes=[[]])
        filled = tf.raw_ops.MapDataset(
            input_dataset=pm, other_arguments=[], f=tf.function(
                lambda v: tf.fill([v % 3 + 1], v),
                input_signature=[tf.TensorSpec([], tf.int64)]).get_concrete_function(),
            output_types=[tf.int64], output_shapes=[[None]])
        pb = tf.raw_ops.PaddedBatchDatasetV2(
            input_dataset=filled, batch_size=2, padded_shapes=[tf.constant([4], tf.int64)],
            padding_values=[tf.constant(-1, tf.int64)], drop_remainder=False,
            output_shapes=[[None, 4]])
        it = v1.data.Iterator.from_structure(tf.int64, [None, 4])
        return {}, _iterate_resource(pb, it, 3, [tf.int64], [[None, 4]])

    def legacy_v1_batch(rewrites=True):
        r = tf.raw_ops.RangeDataset(start=0, stop=5, step=1, output_types=[tf.int64],
                                    output_shapes=[[]])
        b = tf.raw_ops.BatchDataset(input_dataset=r, batch_size=2, output_types=types,
                                    output_shapes=shapes)
        pb = tf.raw_ops.PaddedBatchDataset(
            input_dataset=b, batch_size=2, padded_shapes=[tf.constant([3], tf.int64)],
            padding_values=[tf.constant(-1, tf.int64)], output_shapes=[[None, 3]])
        if not rewrites:
            # Without tf.data's rewrites TensorFlow runs the V1 ops.
            options = tf.data.Options()
            options.experimental_optimization.apply_default_optimizations = False
            options.autotune.enabled = False
            options.experimental_slack = False
            options.experimental_warm_start = False
            options.experimental_optimization.inject_prefetch = False
            pb = tf.raw_ops.OptionsDataset(
                input_dataset=pb, serialized_options=options._to_proto().SerializeToString(),
                output_types=[tf.int64], output_shapes=[[None, 3]])
        it = v1.data.Iterator.from_structure(tf.int64, [None, 3])
        return {}, _iterate_resource(pb, it, 2, [tf.int64], [[None, 3]])
    def legacy_parallel_interleaves():
        """The ops TensorFlow 1.x wrote for interleave with threads."""
        @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
        def inner(i):
            return tf.raw_ops.RangeDataset(start=i * 10, stop=i * 10 + 3, step=1,
                                           output_types=[tf.int64], output_shapes=[[]])
        f = inner.get_concrete_function()
        common = dict(other_arguments=[], cycle_length=2, block_length=2, f=f,
                      output_types=[tf.int64], output_shapes=[[]])
        out_tensors = []
        for k, op in enumerate(("ParallelInterleaveDataset", "ParallelInterleaveDatasetV2",
                                "ParallelInterleaveDatasetV3")):
            r = tf.raw_ops.RangeDataset(start=0, stop=3, step=1, output_types=[tf.int64],
                                        output_shapes=[[]])
            if op == "ParallelInterleaveDataset":
                d = tf.raw_ops.ParallelInterleaveDataset(
                    input_dataset=r, sloppy=False, buffer_output_elements=2,
                    prefetch_input_elements=1, **common)
            else:
                d = getattr(tf.raw_ops, op)(input_dataset=r, num_parallel_calls=2, **common)
            it = v1.data.Iterator.from_structure(tf.int64, [], shared_name=f"pi{k}")
            out_tensors += _iterate_resource(d, it, 9, [tf.int64], [[]])
        return {}, out_tensors
    def write_then_read():
        path = os.path.join(root, "new_dir", "written.bin")
        write = tf.io.write_file(path, tf.constant(b"\x00bytes\xff"))
        with tf.control_dependencies([write]):
            return {}, [tf.io.read_file(path)]
    out.append(Spec("write_then_read", [], graph=write_then_read))
    out.append(Spec("legacy_ops", [], graph=legacy))
    out.append(Spec("legacy_parallel_interleaves", [], graph=legacy_parallel_interleaves))
    out.append(Spec("legacy_padded_and_parallel_map", [], graph=legacy_padded_and_parallel_map))
    out.append(Spec("legacy_v1_batch", [], graph=legacy_v1_batch))
    out.append(Spec("v1_batch_ops_with_options", [],
                    graph=lambda: legacy_v1_batch(rewrites=False)))
    return out


def _iterate_resource(dataset_variant, iterator, n, types, shapes):
    make = tf.raw_ops.MakeIterator(dataset=dataset_variant, iterator=iterator._iterator_resource)
    out, prev = [], [make]
    for _ in range(n):
        with tf.control_dependencies(prev):
            prev = list(tf.raw_ops.IteratorGetNext(iterator=iterator._iterator_resource,
                                                   output_types=types, output_shapes=shapes))
        out += prev
    return out


def checkpoint_ops(dt, rng):
    """SaveV2 and RestoreV2 (and the sharded forms' ShardedFilename and
    MergeV2Checkpoints, the old Save/Restore and their slices) writing and
    reading a checkpoint in one run."""
    root = tempfile.mkdtemp()
    x0 = random_values(rng, (3, 4), F32, edges=True)

    def v2():
        x = v1.placeholder(F32, [3, 4], name="x")
        prefix = os.path.join(root, "v2")
        shard = tf.raw_ops.ShardedFilename(basename=prefix, shard=0, num_shards=1)
        save = tf.raw_ops.SaveV2(prefix=shard, tensor_names=["x", "s"],
                                 shape_and_slices=["", ""],
                                 tensors=[x, tf.constant(b"hello")])
        with tf.control_dependencies([save]):
            merge = tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[shard],
                                                  destination_prefix=prefix)
        with tf.control_dependencies([merge]):
            restored = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["s", "x", "x"],
                                            shape_and_slices=["", "", "3 4 1,2:0,4"],
                                            dtypes=[tf.string, F32, F32])
        return {x: x0}, [shard] + list(restored)

    def v1_read():
        # A checkpoint in TensorFlow's V1 format, written by TensorFlow's
        # own Save here; the graph only reads it.
        name = os.path.join(root, "v1_by_tensorflow")
        with tf.Graph().as_default(), v1.Session() as sess:
            sess.run(tf.raw_ops.Save(filename=name, tensor_names=["x", "n"],
                                     data=[tf.constant(x0), tf.constant([1, -2], tf.int64)]))
        whole = tf.raw_ops.Restore(file_pattern=name, tensor_name="x", dt=F32)
        ints = tf.raw_ops.Restore(file_pattern=name, tensor_name="n", dt=tf.int64)
        part = tf.raw_ops.RestoreSlice(file_pattern=name, tensor_name="x",
                                       shape_and_slice="3 4 0,2:1,3", dt=F32)
        missing = tf.raw_ops.Restore(file_pattern=name, tensor_name="nope", dt=F32)
        return {}, [whole, ints, part], missing

    def v1_restores():
        feeds, fetch, _ = v1_read()
        return feeds, fetch

    def v1_missing_tensor():
        _, _, missing = v1_read()
        return {}, [missing]

    def v1_format():
        x = v1.placeholder(F32, [3, 4], name="x")
        name = os.path.join(root, "v1")
        save = tf.raw_ops.Save(filename=name, tensor_names=["x"], data=[x])
        with tf.control_dependencies([save]):
            whole = tf.raw_ops.Restore(file_pattern=name, tensor_name="x", dt=F32)
            part = tf.raw_ops.RestoreSlice(file_pattern=name, tensor_name="x",
                                           shape_and_slice="3 4 0,2:1,3", dt=F32)
        sliced = os.path.join(root, "v1_slices")
        save_slices = tf.raw_ops.SaveSlices(filename=sliced, tensor_names=["y"],
                                            shapes_and_slices=["6 4 0,3:-"], data=[x])
        with tf.control_dependencies([save_slices]):
            back = tf.raw_ops.RestoreSlice(file_pattern=sliced, tensor_name="y",
                                           shape_and_slice="6 4 0,3:-", dt=F32)
        return {x: x0}, [whole, part, back]
    return [Spec("v2", [], graph=v2), Spec("v1", [], graph=v1_format),
            Spec("v1_read", [], graph=v1_restores),
            Spec("v1_missing_tensor", [], graph=v1_missing_tensor)]


def matching_files(dt, rng):
    """MatchingFiles over a directory tree made here: wildcards in the last
    component and in directories, character classes, a leading dot, a
    pattern without wildcards (present and absent), a trailing '/', several
    patterns at once (sorted together, duplicates kept), nothing matched,
    a missing directory, an empty pattern. A matrix of patterns fails."""
    root = tempfile.mkdtemp()
    for path in ("a1/f.txt", "a1/.hidden", "a1/x/deep.txt", "a2/g.txt", "b/h.txt", "top.txt"):
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        open(os.path.join(root, path), "w").close()

    def graph(patterns):
        def build():
            p = v1.placeholder(tf.string, None)
            if isinstance(patterns, list):
                value = np.array([os.path.join(root, x) if x else x for x in patterns],
                                 dtype=object)
            else:
                value = np.array(os.path.join(root, patterns), dtype=object)
            return {p: value}, [tf.raw_ops.MatchingFiles(pattern=p)]
        return build
    out = [Spec(p, [], graph=graph(p)) for p in
           ("a*/*", "a?/*.txt", "*", "[ab]*/*.txt", "top.txt", "nothing.txt", "a1/",
            "a1/*/", "nothing*", "missing/*", "a1/x/*.txt", "*/*/*")]
    out.append(Spec("several", [], graph=graph(["b/*", "a2/*", "b/*"])))
    out.append(Spec("empty", [], graph=graph([""])))
    out.append(Spec("none", [], graph=graph([])))

    def matrix():
        p = v1.placeholder(tf.string, None)
        return {p: np.array([[os.path.join(root, "b/*")]], dtype=object)}, \
            [tf.raw_ops.MatchingFiles(pattern=p)]
    out.append(Spec("matrix", [], graph=matrix))
    return out

def send_recv(dt, rng):
    """_Send and _Recv, which a partitioned graph carries its cut edges with,
    here as a pair on one device in one graph: the step's rendezvous hands
    the tensor (float, then string) from one to the other; and
    _HostSend/_HostRecv, which TensorFlow's partitions use for strings."""
    from tensorflow.python.framework import op_def_library
    device = "/job:localhost/replica:0/task:0/device:CPU:0"

    def graph(dtype, value, send="_Send", recv="_Recv"):
        def build():
            x = v1.placeholder(dtype, [None], name="x")
            y = tf.identity(x)
            edge = dict(tensor_name="edge_y", send_device=device, send_device_incarnation=1,
                        recv_device=device, client_terminated=False)
            sent = op_def_library._apply_op_helper(send, tensor=y, name="send", **edge)[2]
            received = op_def_library._apply_op_helper(recv, tensor_type=dtype, name="recv",
                                                       **edge)[2]
            with tf.control_dependencies([sent]):
                return {x: value}, [tf.identity(received.outputs[0])]
        return build
    return [Spec("float", [], graph=graph(F32, random_values(rng, (5,), F32, edges=True))),
            Spec("string", [], graph=graph(tf.string, np.array([b"", b"a\x00b"], dtype=object))),
            Spec("host_string", [], graph=graph(tf.string, np.array([b"c"], dtype=object),
                                                "_HostSend", "_HostRecv"))]


def summaries(dt, rng):
    x0 = random_values(rng, (50,), F32, edges=False)

    def graph():
        x = v1.placeholder(F32, [50], name="x")
        s = tf.raw_ops.ScalarSummary(tags=["loss", "acc"], values=x[:2])
        h = tf.raw_ops.HistogramSummary(tag="weights", values=x)
        return {x: x0}, [s, h, tf.raw_ops.MergeSummary(inputs=[s, h])]
    return [Spec("scalar_histogram_merge", [], graph=graph)]


def basics(dt, rng):
    x0 = random_values(rng, (2, 3), F32, edges=True)

    def graph():
        x = v1.placeholder(F32, [2, 3], name="x")
        c = tf.constant(np.arange(6, dtype=np.int32).reshape(2, 3))
        s = tf.constant([b"a", b"", b"\xff"])
        ok = tf.raw_ops.Assert(condition=tf.reduce_all(tf.math.is_finite(x[0:1, 0:1])),
                               data=[x])
        noop = tf.raw_ops.NoOp()
        both = tf.raw_ops.IdentityN(input=[x, s])  # what a lowered loop's outputs pass through
        return {x: x0}, [c, s, both[0] * 2.0, both[1]] + _after([ok, noop], [x])

    def failing():
        x = v1.placeholder(F32, [2], name="x")
        bad = tf.raw_ops.Assert(condition=tf.constant(False), data=[x, tf.constant("x is")])
        return {x: np.ones(2, np.float32)}, _after([bad], [x])
    return [Spec("const_placeholder_assert", [], graph=graph),
            Spec("assert_fails", [], graph=failing)]


def _example(**features):
    """A serialized tf.train.Example: floats, ints or bytes by name."""
    f = {}
    for k, v in features.items():
        if v and isinstance(v[0], bytes):
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif v and isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    example = tf.train.Example(features=tf.train.Features(feature=f))
    return example.SerializeToString(deterministic=True)


def parsing(dt, rng):
    """tf.io.parse_example and parse_single_example (ParseExampleV2) on fed
    serialized Examples: fixed-length dense features with and without
    defaults, variable-length dense (FixedLenSequenceFeature), sparse
    (VarLenFeature) and ragged features of every type, and the inputs
    TensorFlow refuses."""
    batch = np.array([
        _example(x=[1.5, -2.0], n=[7], s=[b"a", b"bc"], tags=[3, 4, 5], r=[0.5],
                 seq=[1.0, 2.0, 3.0, 4.0]),
        _example(x=[0.25, 8.0], s=[b""], r=[1.0, 2.0, 3.0], seq=[9.0, 10.0]),
        _example(x=[3.0, 3.0], n=[-1], tags=[]),
    ], dtype=object)
    spec = {
        "x": tf.io.FixedLenFeature([2], tf.float32),
        "n": tf.io.FixedLenFeature([], tf.int64, default_value=42),
        "s": tf.io.VarLenFeature(tf.string),
        "tags": tf.io.VarLenFeature(tf.int64),
        "r": tf.io.RaggedFeature(tf.float32),
        "seq": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                             default_value=-1.0),
        "missing": tf.io.FixedLenFeature([1, 2], tf.string, default_value=[[b"d", b"e"]]),
    }

    def flat(parsed):
        out = []
        for k in sorted(parsed):
            v = parsed[k]
            if isinstance(v, tf.SparseTensor):
                out += [v.indices, v.values, v.dense_shape]
            elif isinstance(v, tf.RaggedTensor):
                out += [v.flat_values, v.row_splits]
            else:
                out.append(v)
        return out

    def batch_graph(values, features=spec):
        def graph():
            ser = v1.placeholder(tf.string, [None], name="serialized")
            return {ser: values}, flat(tf.io.parse_example(ser, features))
        return graph

    def single_graph():
        ser = v1.placeholder(tf.string, None, name="serialized")
        single = {k: v for k, v in spec.items() if k != "r"}
        return {ser: batch[0]}, flat(tf.io.parse_single_example(ser, single))

    def raw(parsed):
        return (list(parsed.sparse_indices) + list(parsed.sparse_values) +
                list(parsed.sparse_shapes) + list(parsed.dense_values))

    dense_keys = ["x", "n", "seq", "missing"]
    dense_shapes = [[2], [], [None, 2], [1, 2]]

    def defaults():
        return [tf.zeros([0], tf.float32), tf.constant(42, tf.int64), tf.constant(-1.0),
                tf.constant([[b"d", b"e"]])]

    def v1_graph(values, rank=1, names=()):
        """TensorFlow 1's ParseExample: the keys one scalar input each."""
        def graph():
            # rank None: unknown, so that the kernel (not the shape function) sees it.
            ser = v1.placeholder(tf.string, None if rank is None else [None] * rank,
                                 name="serialized")
            return {ser: values}, raw(tf.raw_ops.ParseExample(
                serialized=ser, names=tf.constant(list(names), tf.string),
                sparse_keys=["s", "tags"], dense_keys=dense_keys, dense_defaults=defaults(),
                sparse_types=[tf.string, tf.int64], dense_shapes=dense_shapes))
        return graph

    def single_raw_graph(value, rank=0):
        """ParseSingleExample, the keys in attrs."""
        def graph():
            ser = v1.placeholder(tf.string, None if rank is None else [None] * rank,
                                 name="serialized")
            return {ser: value}, raw(tf.raw_ops.ParseSingleExample(
                serialized=ser, dense_defaults=defaults()[:2] + defaults()[3:], num_sparse=2,
                sparse_keys=["s", "tags"], dense_keys=["x", "n", "missing"],
                sparse_types=[tf.string, tf.int64], dense_shapes=[[2], [], [1, 2]]))
        return graph

    fixed = {"x": tf.io.FixedLenFeature([2], tf.float32)}
    return [
        Spec("v1_batch", [], graph=v1_graph(batch)),
        Spec("v1_batch_named", [], graph=v1_graph(batch, names=(b"a", b"b", b"c"))),
        Spec("v1_wrong_count", [], graph=v1_graph(np.array([_example(x=[1.0])], dtype=object))),
        Spec("v1_scalar", [], graph=v1_graph(batch[0], rank=None)),
        Spec("single_raw", [], graph=single_raw_graph(batch[1])),
        Spec("single_raw_missing_required", [],
             graph=single_raw_graph(_example(n=[1]))),
        Spec("single_raw_vector", [], graph=single_raw_graph(batch[:1], rank=None)),
        Spec("batch", [], graph=batch_graph(batch)),
        # An empty list of another kind is still the wrong type.
        Spec("empty_list_of_the_wrong_kind", [],
             graph=batch_graph(np.array([_example(x=[1.0, 2.0], seq=[])], dtype=object))),
        Spec("empty_batch", [], graph=batch_graph(np.array([], dtype=object))),
        Spec("single", [], graph=single_graph),
        Spec("required_missing", [], graph=batch_graph(np.array([_example(y=[1.0])],
                                                                dtype=object), fixed)),
        Spec("wrong_type", [], graph=batch_graph(np.array([_example(x=[1, 2])], dtype=object),
                                                 fixed)),
        Spec("wrong_count", [], graph=batch_graph(np.array([_example(x=[1.0])], dtype=object),
                                                  fixed)),
        # Field 1 says 5 bytes follow, 3 do (TensorFlow's message quotes the
        # input, so it is kept to ASCII here).
        Spec("not_a_proto", [], graph=batch_graph(np.array([b"\x0a\x05abc"], dtype=object),
                                                  fixed)),
    ]


def _sequence_example(context=None, lists=None):
    """A serialized tf.train.SequenceExample: `lists` maps a key to its steps,
    each a list of floats, ints or bytes."""
    def feature(v):
        if v and isinstance(v[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if v and isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    ctx = tf.train.Features(feature={k: feature(v) for k, v in (context or {}).items()})
    fl = tf.train.FeatureLists(feature_list={
        k: tf.train.FeatureList(feature=[feature(step) for step in steps])
        for k, steps in (lists or {}).items()})
    sequence = tf.train.SequenceExample(context=ctx, feature_lists=fl)
    return sequence.SerializeToString(deterministic=True)


def sequence_parsing(dt, rng):
    """tf.io.parse_sequence_example and parse_single_sequence_example
    (ParseSequenceExampleV2), TensorFlow 1's ParseSequenceExample and
    ParseSingleSequenceExample: context features of every kind, feature lists
    dense (with lengths; missing ones assumed empty or refused), sparse and
    ragged, and the inputs TensorFlow refuses."""
    a = _sequence_example(
        {"c": [5], "cs": [b"x", b"y"], "cf": [1.5, 2.5], "cr": [1.0]},
        {"d": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "s": [[1], [], [2, 3]],
         "r": [[b"a"], [b"b", b"c"]], "w": [[b"p"]]})
    b = _sequence_example({"cr": [2.0, 3.0]}, {"d": [[7.0, 8.0]], "s": [[9]], "w": []})
    c = _sequence_example({}, {"d": [], "s": [], "w": [[b"q"], [b"r", b"s"]]})
    batch = np.array([a, b, c], dtype=object)
    context = {"c": tf.io.FixedLenFeature([], tf.int64, default_value=-1),
               "cf": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0]),
               "cs": tf.io.VarLenFeature(tf.string),
               "cr": tf.io.RaggedFeature(tf.float32)}
    sequence = {"d": tf.io.FixedLenSequenceFeature([2], tf.float32),
                "s": tf.io.VarLenFeature(tf.int64),
                "r": tf.io.RaggedFeature(tf.string),
                "w": tf.io.RaggedFeature(tf.string, row_splits_dtype=tf.int64)}

    def flat(parsed):
        out = []
        for part in parsed:
            for k in sorted(part):
                v = part[k]
                if isinstance(v, tf.SparseTensor):
                    out += [v.indices, v.values, v.dense_shape]
                elif isinstance(v, tf.RaggedTensor):
                    out += [v.flat_values] + list(v.nested_row_splits)
                else:
                    out.append(v)
        return out

    def batch_graph(values, ctx=context, seq=sequence):
        def graph():
            ser = v1.placeholder(tf.string, [None], name="serialized")
            return {ser: values}, flat(tf.io.parse_sequence_example(ser, ctx, seq))
        return graph

    def single_graph(value, ctx=context, seq=sequence):
        def graph():
            ser = v1.placeholder(tf.string, [], name="serialized")
            return {ser: value}, flat(tf.io.parse_single_sequence_example(ser, ctx, seq))
        return graph

    def raw(outs):
        return [t for group in outs for t in (group if isinstance(group, list) else [group])]

    def v1_graph(values, assumed_empty=("d",)):
        """TensorFlow 1's ParseSequenceExample: the keys in attrs."""
        def graph():
            ser = v1.placeholder(tf.string, [None], name="serialized")
            return {ser: values}, raw(tf.raw_ops.ParseSequenceExample(
                serialized=ser, debug_name=tf.constant([], tf.string),
                context_dense_defaults=[tf.constant(-1, tf.int64)], Ncontext_sparse=1,
                Ncontext_dense=1, Nfeature_list_sparse=1, Nfeature_list_dense=1,
                feature_list_dense_missing_assumed_empty=list(assumed_empty),
                context_sparse_keys=["cs"], context_dense_keys=["c"],
                feature_list_sparse_keys=["s"], feature_list_dense_keys=["d"],
                context_sparse_types=[tf.string], feature_list_dense_types=[tf.float32],
                context_dense_shapes=[[]], feature_list_sparse_types=[tf.int64],
                feature_list_dense_shapes=[[2]]))
        return graph

    def single_raw_graph(value, assumed_empty=()):
        """ParseSingleSequenceExample: the keys scalar inputs."""
        def graph():
            ser = v1.placeholder(tf.string, None, name="serialized")
            return {ser: value}, raw(tf.raw_ops.ParseSingleSequenceExample(
                serialized=ser,
                feature_list_dense_missing_assumed_empty=tf.constant(list(assumed_empty),
                                                                     tf.string),
                context_sparse_keys=[tf.constant("cs")], context_dense_keys=[tf.constant("cf")],
                feature_list_sparse_keys=[tf.constant("s")],
                feature_list_dense_keys=[tf.constant("d")],
                context_dense_defaults=[tf.constant([0.5, 0.5])],
                debug_name=tf.constant("one"), context_sparse_types=[tf.string],
                feature_list_dense_types=[tf.float32], context_dense_shapes=[[2]],
                feature_list_sparse_types=[tf.int64], feature_list_dense_shapes=[[2]]))
        return graph

    missing_d = np.array([a, _sequence_example({}, {"s": [[1]]})], dtype=object)
    return [
        Spec("batch", [], graph=batch_graph(batch)),
        Spec("batch_of_one", [], graph=batch_graph(batch[:1])),
        Spec("empty_batch", [], graph=batch_graph(np.array([], dtype=object))),
        Spec("single", [], graph=single_graph(a)),
        Spec("single_empty_lists", [], graph=single_graph(c)),
        Spec("dense_list_missing", [],
             graph=batch_graph(missing_d, seq={"d": tf.io.FixedLenSequenceFeature(
                 [2], tf.float32)})),
        Spec("dense_list_missing_allowed", [],
             graph=batch_graph(missing_d, seq={"d": tf.io.FixedLenSequenceFeature(
                 [2], tf.float32, allow_missing=True)})),
        Spec("dense_list_wrong_type", [],
             graph=batch_graph(batch, seq={"d": tf.io.FixedLenSequenceFeature([2], tf.int64)})),
        Spec("dense_list_wrong_count", [],
             graph=batch_graph(batch, seq={"d": tf.io.FixedLenSequenceFeature([3], tf.float32)})),
        Spec("context_required_missing", [],
             graph=batch_graph(batch, ctx={"c": tf.io.FixedLenFeature([], tf.int64)}, seq={})),
        Spec("not_a_proto", [], graph=batch_graph(np.array([b"\x0a\x05abc"], dtype=object))),
        Spec("v1_batch", [], graph=v1_graph(batch)),
        Spec("v1_missing_refused", [], graph=v1_graph(missing_d, assumed_empty=())),
        Spec("single_raw", [], graph=single_raw_graph(a)),
        Spec("single_raw_missing_refused", [],
             graph=single_raw_graph(_sequence_example({}, {"s": [[1]]}))),
        Spec("single_raw_missing_allowed", [],
             graph=single_raw_graph(_sequence_example({}, {"s": [[1]]}), assumed_empty=["d"])),
        Spec("single_raw_vector", [], graph=single_raw_graph(batch[:1])),
    ]


def sparse_cross(dt, rng):
    """SparseCross (TensorFlow 1's feature crosses) of two sparse columns and
    a dense one, as strings and hashed into buckets; mixed string and int64
    columns, which TensorFlow crosses with internal_type int64 and refuses
    with string."""
    def graph(hashed, num_buckets, kind, internal=None):
        def build():
            ids = v1.placeholder(tf.int64, [None, 2], name="ids")
            a = v1.placeholder(tf.string if kind == "mixed" else kind, [None], name="a")
            b = v1.placeholder(tf.int64 if kind == "mixed" else kind, [None], name="b")
            dense = v1.placeholder(kind if kind != "mixed" else tf.string, [2, 1], name="dense")
            out = tf.raw_ops.SparseCross(
                indices=[ids, ids], values=[a, b], shapes=[[2, 3], [2, 3]],
                dense_inputs=[dense], hashed_output=hashed, num_buckets=num_buckets,
                hash_key=956888297470, out_type=tf.int64 if hashed else tf.string,
                internal_type=internal or (tf.int64 if kind == tf.int64 else tf.string))
            if kind == tf.int64:
                va, vb, vd = [3, 1, 4], [7, -3, 12], [[5], [9]]
                values = [np.array(v, np.int64) for v in (va, vb, vd)]
            else:
                values = [np.array([b"a", b"bb", b"c"], dtype=object),
                          np.array([b"x", b"", b"zz"], dtype=object),
                          np.array([[b"p"], [b"q"]], dtype=object)]
                if kind == "mixed":
                    values[1] = np.array([7, -3, 12], np.int64)
            feeds = {ids: np.array([[0, 0], [0, 2], [1, 1]], np.int64), a: values[0],
                     b: values[1], dense: values[2]}
            return feeds, list(out)
        return build
    return [Spec("strings", [], graph=graph(False, 0, tf.string)),
            Spec("hashed_strings", [], graph=graph(True, 0, tf.string)),
            Spec("hashed_buckets", [], graph=graph(True, 100, tf.string)),
            Spec("hashed_int64", [], graph=graph(True, 50, tf.int64)),
            Spec("mixed_types", [], graph=graph(True, 0, "mixed")),
            Spec("mixed_int64", [], graph=graph(True, 0, "mixed", tf.int64)),
            Spec("mixed_int64_strings", [], graph=graph(False, 0, "mixed", tf.int64))]


def ragged_cross(dt, rng):
    """RaggedCross (tf.ragged.cross and cross_hashed) of ragged, sparse and
    dense inputs in several orders: strings, int64 and both mixed, int32 and
    int64 row splits, empty rows, hashed with and without buckets. Row
    splits that do not start at 0 or end at the values' count, and batches
    that differ, fail."""
    def graph(order, hashed=False, buckets=0, splits=tf.int64, kind=tf.string,
              bad_splits=None, dense_rows=3):
        def build():
            feeds, ragged, sparse, dense = {}, [], [], []
            for k, c in enumerate(order):
                t = kind if kind != "mixed" else (tf.string if k % 2 == 0 else tf.int64)
                if t == tf.string:
                    vals = np.array([b"a", b"b", b"c", b"d", b"e"][:4 - k % 2], dtype=object)
                else:
                    vals = np.array([7, -1, 1 << 40, 3][:4 - k % 2], np.int64)
                n = len(vals)
                if c == "R":
                    v = v1.placeholder(t, [None])
                    sp = v1.placeholder(splits, [None])
                    feeds[v] = vals
                    feeds[sp] = np.array(bad_splits or [0, 2, 2, n], splits.as_numpy_dtype)
                    ragged.append((v, sp))
                elif c == "S":
                    ind = v1.placeholder(tf.int64, [None, 2])
                    v = v1.placeholder(t, [None])
                    rows = [0, 0, 2, 2][:n]
                    feeds[ind] = np.array([[r, j] for j, r in enumerate(rows)], np.int64)
                    feeds[v] = vals
                    sparse.append((ind, v))
                else:
                    d = v1.placeholder(t, [None, None])
                    feeds[d] = np.resize(vals, (dense_rows, 2))
                    dense.append(d)
            out = tf.raw_ops.RaggedCross(
                ragged_values=[v for v, _ in ragged], ragged_row_splits=[sp for _, sp in ragged],
                sparse_indices=[i for i, _ in sparse], sparse_values=[v for _, v in sparse],
                sparse_shape=[tf.constant([3, 4], tf.int64) for _ in sparse],
                dense_inputs=dense, input_order=order, hashed_output=hashed,
                num_buckets=buckets, hash_key=956888297470,
                out_values_type=tf.int64 if hashed else tf.string, out_row_splits_type=splits)
            return feeds, list(out)
        return build
    out = []
    for order in ("R", "RD", "SR", "DSR", "RRS"):
        for kind in (tf.string, tf.int64, "mixed"):
            name = kind if isinstance(kind, str) else kind.name
            out.append(Spec(f"{order}.{name}", [], graph=graph(order, kind=kind)))
            out.append(Spec(f"{order}.{name}.hashed", [], graph=graph(order, True, kind=kind)))
        out.append(Spec(f"{order}.buckets", [], graph=graph(order, True, 10)))
        out.append(Spec(f"{order}.int32", [], graph=graph(order, splits=tf.int32)))
    out.append(Spec("splits_not_from_0", [], graph=graph("RD", bad_splits=[1, 2, 2, 4])))
    out.append(Spec("splits_past_values", [], graph=graph("RD", bad_splits=[0, 2, 2, 5])))
    out.append(Spec("batches_differ", [], graph=graph("RD", dense_rows=2)))
    return out

def sparse_cross_v2(dt, rng):
    """SparseCrossV2 (joined by its separator) and SparseCrossHashed (by
    SipHash under a salt, or by fingerprints) of two sparse columns and a
    dense one: string, int64 and mixed columns, several separators, bucket
    counts and salts. A separator not a scalar and a salt not of two fail.
    (A dense int64 column under strong_hash crashes TensorFlow: its kernel
    reads the value as an address; see the kernel.)"""
    def graph(op, kind, dense_kind=None, **extra):
        def build():
            ids = v1.placeholder(tf.int64, [None, 2], name="ids")
            a = v1.placeholder(tf.string if kind == "mixed" else kind, [None], name="a")
            b = v1.placeholder(tf.int64 if kind == "mixed" else kind, [None], name="b")
            dk = dense_kind or (tf.string if kind == "mixed" else kind)
            dense = v1.placeholder(dk, [2, 1], name="dense")
            args = {k: v1.placeholder_with_default(v, None) for k, v in extra.items()}
            out = getattr(tf.raw_ops, op)(
                indices=[ids, ids], values=[a, b], shapes=[[2, 3], [2, 3]],
                dense_inputs=[dense], **args)
            strings = [np.array([b"a", b"bb", b"c"], dtype=object),
                       np.array([b"x", b"", b"zz"], dtype=object)]
            ints = [np.array([3, 1, 1 << 40], np.int64), np.array([7, -3, 12], np.int64)]
            va, vb = ints if kind == tf.int64 else strings
            if kind == "mixed":
                vb = ints[1]
            vd = (np.array([[5], [-9]], np.int64) if dk == tf.int64
                  else np.array([[b"p"], [b"q"]], dtype=object))
            feeds = {ids: np.array([[0, 0], [0, 2], [1, 1]], np.int64), a: va, b: vb,
                     dense: vd}
            return feeds, list(out)
        return build

    def hashed(kind, buckets, strong, salt=(1, 2), dense_kind=None):
        return graph("SparseCrossHashed", kind, dense_kind,
                     num_buckets=np.int64(buckets), strong_hash=np.bool_(strong),
                     salt=np.array(salt, np.int64))
    out = []
    for kind, name in [(tf.string, "strings"), (tf.int64, "int64"), ("mixed", "mixed")]:
        for sep in (b"_X_", b"", b"::"):
            out.append(Spec(f"v2.{name}.{sep.decode()}", [],
                            graph=graph("SparseCrossV2", kind, sep=np.array(sep, dtype=object))))
        for buckets in (0, 100):
            out.append(Spec(f"hashed.{name}.{buckets}", [], graph=hashed(kind, buckets, False)))
            out.append(Spec(f"hashed_strong.{name}.{buckets}", [],
                            graph=hashed(kind, buckets, True, dense_kind=tf.string)))
    out.append(Spec("hashed_strong_salt", [],
                    graph=hashed(tf.string, 7, True, salt=(-5, 1 << 62))))
    out.append(Spec("salt_of_3", [], graph=hashed(tf.string, 7, True, salt=(1, 2, 3))))
    out.append(Spec("sep_vector", [], graph=graph("SparseCrossV2", tf.string,
                                                  sep=np.array([b"a", b"b"], dtype=object))))
    return out


def ragged_to_tensor(dt, rng):
    """RaggedTensor.to_tensor (RaggedTensorToTensor) of row splits and of
    value row ids, two ragged dimensions, padding and a given shape, with the
    values' gradient."""
    def graph(make, **kwargs):
        def build():
            values = v1.placeholder(tf.float32, [None], name="values")
            rt = make(values)
            return {values: np.arange(1, 8, dtype=np.float32)}, [rt.to_tensor(**kwargs)]
        return build
    splits = lambda v: tf.RaggedTensor.from_row_splits(v, [0, 2, 2, 7])
    rowids = lambda v: tf.RaggedTensor.from_value_rowids(v, [0, 0, 1, 3, 3, 3, 3], nrows=5)
    nested = lambda v: tf.RaggedTensor.from_row_splits(
        tf.RaggedTensor.from_row_splits(v, [0, 1, 3, 3, 7]), [0, 2, 4])
    return [Spec("row_splits", [], graph=graph(splits), grad=(0,)),
            Spec("row_splits_default_shape", [], graph=graph(splits, default_value=-1.0,
                                                              shape=[4, 3]), grad=(0,)),
            Spec("value_rowids", [], graph=graph(rowids, default_value=9.0), grad=(0,)),
            Spec("nested", [], graph=graph(nested), grad=(0,))]


TRAINING_OPS = [
    "ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyAdadelta", "ApplyAdagrad",
    "ApplyAdagradV2", "ApplyProximalAdagrad", "ApplyAdagradDA", "ApplyFtrl", "ApplyFtrlV2",
    "ApplyMomentum", "ApplyAdam", "ApplyAdaMax", "ApplyRMSProp", "ApplyCenteredRMSProp",
    "ApplyAddSign", "ApplyPowerSign", "SparseApplyAdagrad", "SparseApplyAdagradV2",
    "SparseApplyFtrl", "SparseApplyFtrlV2", "SparseApplyMomentum", "SparseApplyRMSProp",
    "SparseApplyCenteredRMSProp", "SparseApplyAdadelta", "SparseApplyProximalAdagrad",
    "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA",
]
# tf_keras' updates, which TensorFlow has in the resource forms only.
RESOURCE_TRAINING_OPS = [
    "ResourceApplyKerasMomentum", "ResourceSparseApplyKerasMomentum",
    "ResourceApplyAdamWithAmsgrad",
]
# Updates again with their boolean attrs set (Nesterov, no slot update,
# FTRL's linear term multiplied by the learning rate).
TRAINING_VARIANTS = [
    ("ApplyMomentum", {"use_nesterov": True}), ("SparseApplyMomentum", {"use_nesterov": True}),
    ("ResourceApplyKerasMomentum", {"use_nesterov": True}),
    ("ResourceSparseApplyKerasMomentum", {"use_nesterov": True}),
    ("ApplyAdam", {"use_nesterov": True}), ("ApplyAdagrad", {"update_slots": False}),
    ("SparseApplyAdagradV2", {"update_slots": False}),
    ("ApplyFtrl", {"multiply_linear_by_lr": True}),
    ("SparseApplyFtrlV2", {"multiply_linear_by_lr": True}),
]

# (name, generator, the ops its graphs are there to check): each case is
# credited to the ops of the list its graph holds, and each op must be in
# some case's graph.
def rng_state(dt, rng):
    """RngReadAndSkip on int64 state variables: Philox's [counter low, high,
    key] read and the counter moved on by delta * 256 (carries, a product
    that wraps, delta 0, auto-select), as tf.random.Generator uses it; and
    unknown algorithms, short, int32 and 2-D states. (ThreeFry, XLA's only,
    is refused as Unimplemented, which the harness reads as no kernel:
    random_kernels_test has it.)"""
    def case(state, alg, deltas, dtype=tf.int64):
        def build():
            state_t = tf.constant(np.asarray(state, dtype.as_numpy_dtype))
            h = tf.raw_ops.VarHandleOp(shape=state_t.shape, dtype=dtype, shared_name="rng")
            deps = [tf.raw_ops.AssignVariableOp(resource=h, value=state_t)]
            reads = []
            for d in deltas:
                with tf.control_dependencies(deps):
                    r = tf.raw_ops.RngReadAndSkip(resource=h, alg=tf.constant(alg, tf.int32),
                                                  delta=tf.constant(d, tf.uint64))
                reads.append(r)
                deps = [r]
            with tf.control_dependencies(deps):
                final = tf.raw_ops.ReadVariableOp(resource=h, dtype=dtype)
            return {}, reads + [final]
        return build

    def generator():
        g = tf.random.Generator.from_seed(11, alg="philox")
        with tf.control_dependencies([g.state.initializer]):
            u = g.uniform([3])
        with tf.control_dependencies([u]):
            n = g.normal([2, 2])
        with tf.control_dependencies([n]):
            state = tf.identity(g.state.read_value())
        return {}, [u, n, state]

    cases = [("philox", [5, 7, 9], 1, [3, 1]), ("carry", [-1, 7, 9], 1, [1]),
             ("carry_high", [-256, -1, 9], 1, [1]), ("wrapping_product", [5, 7, 9], 1, [2**62]),
             ("auto_select", [5, 7, 9], 3, [2]), ("zero", [5, 7, 9], 1, [0]),
             ("unknown_alg", [5, 7, 9], 7, [1]),
             ("short", [5, 7], 1, [1]), ("two_d", [[5, 7, 9]], 1, [1])]
    out = [Spec(name, [], graph=case(state, alg, deltas)) for name, state, alg, deltas in cases]
    out.append(Spec("int32_state", [], graph=case([1, 2, 3], 1, [1], tf.int32)))
    out.append(Spec("generator", [], graph=generator))
    return out


def fourier(dt, rng):
    """The Fourier transforms between real placeholders and real outputs:
    RFFT and RFFT2D of a real signal (even and odd lengths) to magnitudes
    and parts, IRFFT and IRFFT2D of a spectrum made by Complex, FFT, IFFT
    and their 2-D and 3-D forms; forward values and the gradients
    (fft_ops.py's) with respect to the placeholders."""
    def real_input(real, shape, transform, lengths):
        def build():
            x = v1.placeholder(real, shape, name="x")
            spectrum = transform(x, tf.constant(lengths, tf.int32))
            outputs = [tf.abs(spectrum), tf.math.real(spectrum), tf.math.imag(spectrum)]
            return {x: random_values(rng, shape, real, edges=False)}, outputs
        return build

    def complex_input(real, shape, transform, lengths=None):
        def build():
            re = v1.placeholder(real, shape, name="re")
            im = v1.placeholder(real, shape, name="im")
            z = tf.complex(re, im)
            y = transform(z) if lengths is None else transform(z, tf.constant(lengths, tf.int32))
            outputs = [y] if y.dtype.is_floating else [tf.math.real(y), tf.math.imag(y)]
            return {re: random_values(rng, shape, real, edges=False),
                    im: random_values(rng, shape, real, edges=False)}, outputs
        return build

    out = []
    for real in (tf.float32, tf.float64):
        cases = [
            ("rfft_even", real_input(real, (3, 8), tf.signal.rfft, [8]), (0,)),
            ("rfft_odd", real_input(real, (2, 7), tf.signal.rfft, [7]), (0,)),
            ("rfft2d", real_input(real, (2, 4, 6), tf.signal.rfft2d, [4, 6]), (0,)),
            ("rfft2d_odd", real_input(real, (3, 5), tf.signal.rfft2d, [3, 5]), (0,)),
            ("irfft_even", complex_input(real, (3, 5), tf.signal.irfft, [8]), (0, 1)),
            ("irfft_odd", complex_input(real, (2, 5), tf.signal.irfft, [9]), (0, 1)),
            ("irfft2d", complex_input(real, (2, 3, 4), tf.signal.irfft2d, [3, 6]), (0, 1)),
            ("fft", complex_input(real, (2, 6), tf.signal.fft), (0, 1)),
            ("ifft", complex_input(real, (3, 5), tf.signal.ifft), (0, 1)),
            ("fft2d", complex_input(real, (2, 3, 4), tf.signal.fft2d), (0, 1)),
            ("ifft2d", complex_input(real, (3, 5), tf.signal.ifft2d), (0, 1)),
            ("fft3d", complex_input(real, (2, 3, 4), tf.signal.fft3d), (0, 1)),
            ("ifft3d", complex_input(real, (2, 2, 3), tf.signal.ifft3d), (0, 1)),
        ]
        out += [Spec(f"{real.name}.{label}", [], grad=grad, graph=build, tol=4.0)
                for label, build, grad in cases]
    return out


def einsum_reductions(dt, rng):
    """Einsum followed by reductions, as losses use it: the reductions'
    gradients need the einsum's output rank (its shape function)."""
    def case(equation, shapes, axis):
        def build():
            xs = [v1.placeholder(tf.float32, s, name=f"x{i}") for i, s in enumerate(shapes)]
            y = tf.einsum(equation, *xs)
            outputs = [tf.reduce_mean(y, axis=axis), tf.reduce_sum(tf.square(y))]
            return {x: random_values(rng, s, tf.float32, edges=False)
                    for x, s in zip(xs, shapes)}, outputs
        return build
    cases = [("ij,jk->ik", [(3, 4), (4, 5)], 1),
             ("bqhd,bkhd->bhqk", [(2, 3, 2, 4), (2, 5, 2, 4)], -1),
             ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)], 0)]
    return [Spec(eq, [], grad=tuple(range(len(shapes))), graph=case(eq, shapes, axis), tol=4.0)
            for eq, shapes, axis in cases]


def complex_numbers(dt, rng):
    """Complex numbers made from real placeholders, computed with, and taken
    back to real numbers, in float32 (complex64) and float64 (complex128):
    the forward values and the gradients of the real parts with respect to
    the placeholders (complex ops' gradients, conjugates included, as
    math_grad.py defines them)."""
    def case(real, shapes):
        def build():
            re = v1.placeholder(real, shapes[0], name="re")
            im = v1.placeholder(real, shapes[1], name="im")
            values = [random_values(rng, s, real, edges=False) for s in shapes]
            z = tf.complex(re, im)
            w = tf.complex(im + 2.0, re - 1.0)
            product = z * tf.math.conj(w) - w / (z + 3.0)
            outputs = [tf.abs(z), tf.math.angle(w), tf.math.real(product),
                       tf.math.imag(tf.exp(z * 0.25) + tf.math.reciprocal(w)),
                       tf.math.real(tf.reduce_sum(tf.square(z) - w, axis=-1)),
                       tf.math.imag(tf.math.divide_no_nan(z, w)), tf.math.real(-z)]
            return {re: values[0], im: values[1]}, outputs
        return build
    out = []
    for real in (tf.float32, tf.float64):
        for label, shapes in [("same", [(2, 3), (2, 3)]), ("broadcast", [(3, 1), (4,)])]:
            out.append(Spec(f"{real.name}.{label}", [], grad=(0, 1), graph=case(real, shapes)))
    return out


def chain(*makers):
    """Calls each maker after the ops the previous one made; returns the
    tensors they made, in order."""
    out, deps = [], []
    for make in makers:
        with tf.control_dependencies(deps):
            made = make()
        made = made if isinstance(made, (list, tuple)) else [made]
        out += [t for t in made if isinstance(t, tf.Tensor)]
        deps = list(made)
    return out


def queues(dt, rng):
    """TensorFlow 1's queues in one step each, their ops ordered by control
    dependencies: served in order, shuffled for the seeds, by priority
    (ties included), padded; and the errors of closed and misused queues."""
    x0 = random_values(rng, (3, 2), F32, edges=False)

    def fifo():
        x = v1.placeholder(F32, [3, 2], name="x")
        q = v1.FIFOQueue(3, [tf.int32, F32], shapes=[[], [2]], name="fifo")
        out = chain(lambda: q.enqueue_many([[1, 2, 3], x]), q.size, q.dequeue, q.close,
                    lambda: q.dequeue_up_to(5), q.is_closed, q.size)
        return {x: x0}, out

    def shuffle():
        q = v1.RandomShuffleQueue(100, 5, [tf.int32], shapes=[[]], seed=7, name="shuffle")
        return {}, chain(lambda: q.enqueue_many([tf.range(20)]), lambda: q.dequeue_many(10),
                         q.close, lambda: q.dequeue_many(10))

    def padding():
        q = v1.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], [None, 2]],
                                name="padding")
        return {}, chain(lambda: q.enqueue([[1, 2], [[b"a", b"b"]]]),
                         lambda: q.enqueue([[3], [[b"c", b"d"], [b"e", b"f"]]]),
                         lambda: q.dequeue_many(2), lambda: q.dequeue_many(0))

    def priority():
        q = v1.PriorityQueue(10, [tf.string], shapes=[[]], name="priority")
        keys = tf.constant([5, 1, 5, 5, 1, 2], tf.int64)
        return {}, chain(lambda: q.enqueue_many([keys, [b"a", b"b", b"c", b"d", b"e", b"f"]]),
                         lambda: q.dequeue_many(6), lambda: q.enqueue([7, b"g"]), q.dequeue)

    def closed_and_empty():
        q = v1.FIFOQueue(3, [F32], shapes=[[]])
        return {}, chain(q.close, q.dequeue)

    def enqueue_after_close():
        q = v1.FIFOQueue(3, [F32], shapes=[[]])
        return {}, chain(q.close, lambda: q.enqueue([1.0]), q.size)

    def close_twice():
        q = v1.FIFOQueue(3, [F32], shapes=[[]])
        return {}, chain(q.close, q.close, q.size)

    def too_few_after_close():
        q = v1.FIFOQueue(3, [F32], shapes=[[]])
        return {}, chain(lambda: q.enqueue([1.0]), q.close, lambda: q.dequeue_many(2))

    def batch_without_shapes():
        q = v1.FIFOQueue(3, [F32])
        return {}, chain(lambda: q.enqueue_many([[1.0, 2.0]]), lambda: q.dequeue_many(2))

    def min_after_dequeue_at_capacity():
        q = v1.RandomShuffleQueue(5, 5, [F32])
        return {}, [q.size()]

    def wrong_dtype():
        q = v1.FIFOQueue(3, [tf.int32], shapes=[[]])
        return {}, chain(lambda: tf.raw_ops.QueueEnqueueV2(handle=q.queue_ref,
                                                           components=[tf.constant(1.0)]),
                         q.size)

    def reference_handles():
        # The ops of graphs from before TensorFlow 1.2: a Ref(string) handle.
        raw = tf.raw_ops
        i32 = [tf.int32]
        fifo = raw.FIFOQueue(component_types=i32, shapes=[[]], capacity=5)
        shuffle = raw.RandomShuffleQueue(component_types=i32, shapes=[[]], capacity=10,
                                         min_after_dequeue=1, seed=3, seed2=4)
        padding = raw.PaddingFIFOQueue(component_types=i32, shapes=[[None]])
        priority = raw.PriorityQueue(component_types=i32, shapes=[[]])
        return {}, chain(
            lambda: raw.QueueEnqueueMany(handle=fifo, components=[[4, 5, 6]]),
            lambda: raw.QueueEnqueue(handle=shuffle, components=[7]),
            lambda: raw.QueueEnqueueMany(handle=shuffle, components=[[8, 9, 10]]),
            lambda: raw.QueueEnqueue(handle=padding, components=[[1, 2]]),
            lambda: raw.QueueEnqueueMany(handle=priority,
                                         components=[tf.constant([3, 1], tf.int64), [30, 10]]),
            lambda: raw.QueueDequeueMany(handle=fifo, n=2, component_types=i32),
            lambda: raw.QueueDequeue(handle=shuffle, component_types=i32),
            lambda: raw.QueueDequeueMany(handle=padding, n=1, component_types=i32),
            lambda: raw.QueueDequeueMany(handle=priority, n=2,
                                         component_types=[tf.int64, tf.int32]),
            lambda: raw.QueueClose(handle=fifo),
            lambda: raw.QueueIsClosed(handle=fifo),
            lambda: raw.QueueDequeueUpTo(handle=fifo, n=5, component_types=i32),
            lambda: raw.QueueSize(handle=shuffle))

    return [Spec(name, [], graph=g) for name, g in [
        ("fifo", fifo), ("reference_handles", reference_handles), ("shuffle", shuffle),
        ("padding", padding), ("priority", priority),
        ("closed_and_empty", closed_and_empty), ("enqueue_after_close", enqueue_after_close),
        ("close_twice", close_twice), ("too_few_after_close", too_few_after_close),
        ("batch_without_shapes", batch_without_shapes),
        ("min_after_dequeue_at_capacity", min_after_dequeue_at_capacity),
        ("wrong_dtype", wrong_dtype)]]


def accumulators(dt, rng):
    """ConditionalAccumulator (resource and V1 ref forms) and
    SparseConditionalAccumulator of each dtype TensorFlow registers: mean
    and sum, stale gradients dropped, the step moved on by a take and set,
    the count; bad shapes, indices and num_required."""
    def summed(dtype, reduction):
        def g():
            acc = v1.ConditionalAccumulator(dtype, shape=[2], reduction_type=reduction)
            c = lambda v: tf.constant(v, dtype)
            return {}, chain(lambda: acc.apply_grad(c([1, 2]), local_step=0),
                             lambda: acc.apply_grad(c([3, 5]), local_step=0),
                             acc.num_accumulated, lambda: acc.take_grad(2),
                             acc.num_accumulated,
                             lambda: acc.apply_grad(c([7, 7]), local_step=0),  # stale now
                             acc.num_accumulated, lambda: acc.set_global_step(5),
                             lambda: acc.apply_grad(c([1, 1]), local_step=5),
                             lambda: acc.apply_grad(c([2, 4]), local_step=6),
                             lambda: acc.take_grad(2))
        return g

    def reference_handle():
        raw = tf.raw_ops
        h = raw.ConditionalAccumulator(dtype=F32, shape=[3])
        return {}, chain(
            lambda: raw.AccumulatorApplyGradient(handle=h, local_step=0,
                                                 gradient=tf.constant([1.0, 2.0, 3.0])),
            lambda: raw.AccumulatorNumAccumulated(handle=h),
            lambda: raw.AccumulatorSetGlobalStep(handle=h, new_global_step=0),
            lambda: raw.AccumulatorTakeGradient(handle=h, num_required=1, dtype=F32))

    def bad_shape():
        x = v1.placeholder(F32, None, name="x")
        acc = v1.ConditionalAccumulator(F32, shape=[2])
        return {x: np.ones(3, np.float32)}, chain(lambda: acc.apply_grad(x), acc.num_accumulated)

    def shape_changes():
        x = v1.placeholder(F32, None, name="x")
        acc = v1.ConditionalAccumulator(F32)
        return {x: np.ones(3, np.float32)}, chain(
            lambda: acc.apply_grad(tf.ones([2])), lambda: acc.apply_grad(x), acc.num_accumulated)

    def none_required():
        acc = v1.ConditionalAccumulator(F32, shape=[2])
        return {}, chain(lambda: acc.apply_grad(tf.ones([2])), lambda: acc.take_grad(0))

    i64 = lambda v: tf.constant(v, tf.int64)

    def sparse(dtype, reduction):
        def g():
            acc = v1.SparseConditionalAccumulator(dtype, shape=[6, 2], reduction_type=reduction)
            c = lambda v: tf.constant(v, dtype)
            return {}, chain(
                lambda: acc.apply_grad(i64([1, 3]), c([[1, 2], [3, 4]]), local_step=0),
                lambda: acc.apply_grad(i64([0, 3, 5]), c([[5, 6], [7, 8], [9, 10]]),
                                       local_step=0),
                acc.num_accumulated, lambda: acc.take_grad(2),
                lambda: acc.apply_grad(i64([2]), c([[1, 1]]), local_step=0),  # stale now
                acc.num_accumulated, lambda: acc.set_global_step(3),
                # Unsorted and repeated indices: TensorFlow's merge as it walks them.
                lambda: acc.apply_grad(i64([4, 1, 4]), c([[1, 2], [3, 4], [5, 6]]),
                                       grad_shape=[6, 2], local_step=3),
                lambda: acc.apply_grad(i64([1, 4]), c([[2, 2], [2, 2]]), local_step=4),
                lambda: acc.take_grad(2))
        return g

    def sparse_unknown_shape():
        acc = v1.SparseConditionalAccumulator(F32)
        return {}, chain(lambda: acc.apply_grad(i64([7]), tf.ones([1, 3])),
                         lambda: acc.take_grad(1))

    def sparse_bad(indices, values, grad_shape=None, first=None):
        def g():
            acc = v1.SparseConditionalAccumulator(F32, shape=[6, 2])
            x = v1.placeholder(F32, None, name="x")
            makers = [] if first is None else [
                lambda: acc.apply_grad(i64(first[0]), tf.constant(first[1], F32))]
            makers += [lambda: acc.apply_grad(i64(indices), x, grad_shape=grad_shape),
                       acc.num_accumulated]
            return {x: np.array(values, np.float32)}, chain(*makers)
        return g

    cases = [Spec(f"{d.name}_{r.lower()}", [], graph=summed(d, r))
             for d in (F32, tf.float64, tf.float16) for r in ("MEAN", "SUM")]
    cases += [Spec(f"sparse_{d.name}_{r.lower()}", [], graph=sparse(d, r))
              for d in (F32, tf.float64, tf.float16) for r in ("MEAN", "SUM")]
    return cases + [Spec("reference_handle", [], graph=reference_handle),
                    Spec("bad_shape", [], graph=bad_shape),
                    Spec("shape_changes", [], graph=shape_changes),
                    Spec("none_required", [], graph=none_required),
                    Spec("sparse_unknown_shape", [], graph=sparse_unknown_shape),
                    Spec("sparse_index_past_the_shape", [], graph=sparse_bad([6], [[1, 2]])),
                    Spec("sparse_values_rows", [], graph=sparse_bad([1, 2], [[1, 2]])),
                    Spec("sparse_values_scalar", [], graph=sparse_bad([], 1.0)),
                    Spec("sparse_dense_shape", [], graph=sparse_bad([1], [[1, 2]], [5, 2])),
                    Spec("sparse_values_width", [], graph=sparse_bad([1], [[1, 2, 3]])),
                    Spec("sparse_values_width_after", [],
                         graph=sparse_bad([1], [[1, 2, 3]], first=([0], [[1, 2]]))),
                    Spec("sparse_values_rank_after", [],
                         graph=sparse_bad([1], [[[1, 2]]], first=([0], [[1, 2]])))]


def readers(dt, rng):
    """TensorFlow 1's readers fed file names by a queue: each reader's keys
    and values over several files (an empty one, a last line without a
    newline, CRLF, a gzip file), headers, footers and hops, reads up to a
    count, the counters, an IdentityReader's state, and the errors of a
    drained queue, a missing file and a bad state. (The other readers'
    states are Unimplemented in both, which this test reads as a missing
    kernel: reader_kernels_test checks them. TensorFlow 2.21 builds
    no graph with the V1 readers, removed at GraphDef version 26:
    reader_kernels_test runs them.)"""
    work = tempfile.mkdtemp(prefix="mg_readers_")  # read again when minigraph runs the cases
    atexit.register(shutil.rmtree, work, True)

    def write(name, data):
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def records(name, values, compression=None):
        path = os.path.join(work, name)
        with tf.io.TFRecordWriter(path, options=compression) as w:
            for v in values:
                w.write(v)
        return path

    import gzip
    a = records("a.tfrecord", [b"x", b"yy", b""])
    empty = records("empty.tfrecord", [])
    b = records("b.tfrecord", [b"z" * 300])
    zipped = records("c.tfrecord.gz", [b"p", b"q"], "GZIP")
    lines = write("a.csv", b"name,n\nx,1\r\ny,2")
    header_only = write("b.csv", b"name,n\n")
    blob = write("f.bin", b"HHabcdefgFF")
    blob_gz = write("f.bin.gz", gzip.compress(b"HHabcdefgFF"))

    def read(make_reader, files, reads, up_to=(), extra=None):
        def g():
            q = v1.FIFOQueue(10, [tf.string], shapes=[[]])
            r = make_reader()
            makers = [lambda: q.enqueue_many([files]), q.close]
            makers += [lambda: list(r.read(q))] * reads
            makers += [lambda n=n: list(r.read_up_to(q, n)) for n in up_to]
            makers += [r.num_records_produced, r.num_work_units_completed]
            makers += (extra(r, q) if extra else [])
            return {}, chain(*makers)
        return g

    def state(r, q):
        return [r.serialize_state, r.reset, r.num_records_produced]

    def restored(r, q):
        st = []

        def save():
            st.append(r.serialize_state())
            return st[0]
        return [save, r.reset, lambda: r.restore_state(st[0]), r.num_records_produced,
                r.num_work_units_completed]

    def bad_state():
        r = v1.IdentityReader()
        return {}, chain(lambda: r.restore_state(tf.constant(b"\xff\x01")),
                         r.num_records_produced)

    fixed = dict(record_bytes=3, header_bytes=2, footer_bytes=2, hop_bytes=2)
    return [
        Spec("tfrecord", [], graph=read(v1.TFRecordReader, [a, empty, b], 4)),
        Spec("tfrecord_gzip", [], graph=read(
            lambda: v1.TFRecordReader(options=v1.python_io.TFRecordOptions(
                v1.python_io.TFRecordCompressionType.GZIP)), [zipped], 2)),
        Spec("tfrecord_up_to", [], graph=read(v1.TFRecordReader, [a, b], 0, up_to=(2, 5, 5))),
        Spec("tfrecord_drained", [], graph=read(v1.TFRecordReader, [b], 2)),
        Spec("tfrecord_missing", [], graph=read(v1.TFRecordReader,
                                                [os.path.join(work, "missing")], 1)),
        Spec("text_lines", [], graph=read(lambda: v1.TextLineReader(skip_header_lines=1),
                                          [lines, header_only, lines], 4)),
        Spec("fixed_length", [], graph=read(lambda: v1.FixedLengthRecordReader(**fixed),
                                            [blob], 3)),
        Spec("fixed_length_gzip", [], graph=read(
            lambda: v1.FixedLengthRecordReader(encoding="GZIP", **fixed), [blob_gz], 3)),
        Spec("fixed_length_plain", [], graph=read(
            lambda: v1.FixedLengthRecordReader(record_bytes=4), [blob], 2)),
        Spec("whole_file", [], graph=read(v1.WholeFileReader, [blob, lines], 2)),
        Spec("identity_state", [], graph=read(v1.IdentityReader, ["a", "b"], 2, extra=state)),
        Spec("identity_restored", [], graph=read(v1.IdentityReader, ["a", "b", "c"], 2,
                                                 extra=restored)),
        Spec("bad_state", [], graph=bad_state),
    ]


GRAPH_GROUPS = [(op, training_op(op), [op]) for op in TRAINING_OPS]
GRAPH_GROUPS += [("Resource" + op, training_op("Resource" + op), ["Resource" + op])
                 for op in TRAINING_OPS]
GRAPH_GROUPS += [(op, training_op(op), [op]) for op in RESOURCE_TRAINING_OPS]
GRAPH_GROUPS += [(op, variable_scatter(op), [op]) for op in SCATTER_OPS]
GRAPH_GROUPS += [(op + "." + ".".join(attrs), training_op(op, attrs), [op])
                 for op, attrs in TRAINING_VARIANTS]
GRAPH_GROUPS += [
    ("ref_variables", variables("ref"),
     ["VariableV2", "Assign", "AssignAdd", "AssignSub", "IsVariableInitialized"]),
    ("old_variable", variables("old_ref"), ["Variable", "Assign"]),
    ("resource_variables", variables("resource"),
     ["VarHandleOp", "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
      "ReadVariableOp", "VarIsInitializedOp", "VariableShape", "ResourceGather",
      "DestroyResourceOp", "DisableCopyOnRead"]),
    ("control_flow", control_flow,
     ["Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "RefSwitch", "RefEnter",
      "RefMerge", "RefNextIteration", "RefExit", "RefIdentity", "ControlTrigger", "If", "StatelessIf", "While",
      "StatelessWhile"]),
    ("functions", functions, ["PartitionedCall", "StatefulPartitionedCall"]),
    ("rng_state", rng_state, ["RngReadAndSkip"]),
    ("count_up_to", count_up_to, ["CountUpTo", "ResourceCountUpTo"]),
    ("accumulators", accumulators,
     ["ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorTakeGradient",
      "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep", "ResourceConditionalAccumulator",
      "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
      "ResourceAccumulatorNumAccumulated", "ResourceAccumulatorSetGlobalStep",
      "SparseConditionalAccumulator", "SparseAccumulatorApplyGradient",
      "SparseAccumulatorTakeGradient"]),
    ("einsum_reductions", einsum_reductions, ["Einsum"]),
    ("complex_numbers", complex_numbers,
     ["Complex", "ComplexAbs", "Angle", "Real", "Imag", "Conj"]),
    ("fourier", fourier, ["RFFT", "RFFT2D", "IRFFT", "IRFFT2D", "FFT", "IFFT", "FFT2D",
                          "IFFT2D", "FFT3D", "IFFT3D"]),
    ("tensor_array", tensor_array,
     ["TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3", "TensorArrayGatherV3",
      "TensorArrayScatterV3", "TensorArraySplitV3", "TensorArrayConcatV3", "TensorArraySizeV3",
      "TensorArrayCloseV3", "TensorArrayGradV3", "TensorArrayGradWithShape", "Stack",
      "StackPush", "StackPop", "StackClose"]),
    ("tensor_list", tensor_list,
     ["TensorListFromTensor", "TensorListSetItem", "TensorListPushBack", "TensorListLength",
      "TensorListGetItem", "TensorListPopBack", "TensorListElementShape", "TensorListStack",
      "EmptyTensorList", "TensorListReserve"]),
    ("stack", stack, ["StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"]),
    ("optional", optional,
     ["OptionalFromValue", "OptionalNone", "OptionalGetValue", "OptionalHasValue"]),
    ("tables", tables,
     ["HashTableV2", "InitializeTableV2", "LookupTableFindV2", "LookupTableSizeV2",
      "MutableHashTableV2", "MutableHashTableOfTensorsV2", "LookupTableInsertV2",
      "LookupTableImportV2", "LookupTableExportV2", "MutableDenseHashTableV2",
      "LookupTableRemoveV2"]),
    ("text_file_tables", text_file_tables, ["InitializeTableFromTextFileV2"]),
    ("readers", readers,
     ["TFRecordReaderV2", "TextLineReaderV2", "FixedLengthRecordReaderV2", "WholeFileReaderV2",
      "IdentityReaderV2", "ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
      "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2", "ReaderSerializeStateV2",
      "ReaderRestoreStateV2"]),
    ("queues", queues,
     ["FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2",
      "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
      "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2", "FIFOQueue",
      "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue", "QueueEnqueue",
      "QueueEnqueueMany", "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo", "QueueClose",
      "QueueSize", "QueueIsClosed"]),
    ("datasets", datasets,
     ["RangeDataset", "MapDataset", "BatchDatasetV2", "TensorSliceDataset", "FilterDataset",
      "PaddedBatchDatasetV2", "TensorDataset", "RepeatDataset", "TakeDataset", "SkipDataset",
      "ZipDataset", "ConcatenateDataset", "FlatMapDataset", "InterleaveDataset",
      "ParallelMapDatasetV2", "CacheDataset", "PrefetchDataset", "MapAndBatchDataset",
      "ShuffleDataset", "ShuffleAndRepeatDataset", "TextLineDataset", "TFRecordDataset",
      "OneShotIterator", "IteratorV2", "MakeIterator", "IteratorGetNext",
      "IteratorToStringHandle", "IteratorFromStringHandleV2", "BatchDataset", "OptimizeDataset",
      "OptimizeDatasetV2", "ModelDataset", "Iterator", "IteratorFromStringHandle",
      "ParallelMapDataset", "PaddedBatchDataset", "OptionsDataset",
      "ParallelInterleaveDatasetV4", "LegacyParallelInterleaveDatasetV2", "ReadFile", "WriteFile",
      "ParallelBatchDataset", "ParallelInterleaveDataset", "ParallelInterleaveDatasetV2",
      "ParallelInterleaveDatasetV3"]),
    ("checkpoint_ops", checkpoint_ops,
     ["SaveV2", "RestoreV2", "ShardedFilename", "MergeV2Checkpoints", "Save", "Restore",
      "RestoreSlice", "SaveSlices"]),
    ("send_recv", send_recv, ["_Send", "_Recv", "_HostSend", "_HostRecv"]),
    ("summaries", summaries, ["ScalarSummary", "HistogramSummary", "MergeSummary"]),
    ("basics", basics, ["Const", "Placeholder", "Assert", "NoOp", "IdentityN"]),
    ("parsing", parsing, ["ParseExampleV2", "ParseExample", "ParseSingleExample"]),
    ("sequence_parsing", sequence_parsing,
     ["ParseSequenceExampleV2", "ParseSequenceExample", "ParseSingleSequenceExample"]),
    ("sparse_cross", sparse_cross, ["SparseCross"]),
    ("sparse_cross_v2", sparse_cross_v2, ["SparseCrossV2", "SparseCrossHashed"]),
    ("matching_files", matching_files, ["MatchingFiles"]),
    ("ragged_cross", ragged_cross, ["RaggedCross"]),
    ("ragged_to_tensor", ragged_to_tensor, ["RaggedTensorToTensor"]),
]
