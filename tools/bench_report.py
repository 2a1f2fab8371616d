#!/usr/bin/env python3
"""Assembles the raw outputs tools/bench.sh collected in OUT into one table
of same-run ratios against the speed goals, OUT/bench.json, and the data
files the gnuplot scripts plot.

  tools/bench_report.py OUT

Raw inputs (each optional; a missing one is reported as not measured):
  restore.jsonl      restore_bench JSON lines (per size, threads, aligned or not)
  cold_save.json     restore_bench --cold --save
  small.json         restore_bench --tensors=20000 --tensor_kb=1
  mlp_*.json         mlp_benchmark --benchmark_format=json, per round
  eigen_mlp_*.txt    ../shared/bench/eigen_mlp output, per round and threads
  micro.json         local_session_benchmark (MatMul and Tanh against Eigen)
  crc.json           crc32c_benchmark
  peers_*.txt        ../shared/bench/peers_ckpt.py output, per size
  torch_mlp_*.txt    ../shared/bench/torch_overhead.py output, per threads
  distributed.json   distributed_bench (1 ps + 2 workers MLP, RecvTensor)
  tf_ckpt.jsonl      tools/tf_bench.py ckpt, per size (restore_bench's checkpoint)
  tf_mlp.jsonl       tools/tf_bench.py mlp, per round and threads
  tf_oneop.json      tools/tf_bench.py oneop
  tf_session_peer.json  tools/tf_session_peer.cc: TensorFlow's C++ Session::Run
  tf_cluster.json    tools/tf_bench.py cluster
  tf_data.json       tools/tf_bench.py data (TensorFlow's elements/s per pipeline)
  data.jsonl         graph_bench on the graphs tf_bench.py data wrote, per pipeline
  data_two_processes.jsonl  two graph_bench runs of the sequential map at once
  tf_loops.json      tools/tf_bench.py loops (a while loop's forward and gradient runs/s)
  loops.jsonl        graph_bench on its graph: loss:0, then train
  tf_kernels.json    tools/tf_bench.py kernels (runs/s per "NAME/forward|backward/THREADS")
  kernels.jsonl      graph_bench on those graphs: {"key": ..., "result": graph_bench's line}
  train_mlp.txt      `train --model=mlp`'s output (the steps/s it prints)
  tf_models.jsonl    tools/tf_bench.py models, a line per round and threads (steps/s)
  models.jsonl       graph_bench on those graphs: {"key": "NAME/train|forward/THREADS", ...}
  tf_model_profiles.json, profile_NAME.json
                     one traced training step's microseconds per op type, each side
"""
import glob
import json
import os
import re
import statistics
import sys


def load_json_lines(path):
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def load_benchmark(path):
    """Google Benchmark JSON -> {name: benchmark row} for the medians."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data.get("benchmarks", []):
        if b.get("aggregate_name", "median") == "median":
            out[b.get("run_name", b["name"])] = b
    return out


def steps_per_s(path, pattern):
    """The steps/s that `pattern`'s one group matches in a peer's output
    file (eigen_mlp, torch_overhead.py), or None."""
    if not os.path.exists(path):
        return None
    m = re.search(pattern, open(path).read())
    return float(m.group(1)) if m else None


def peers_rates(path):
    """{method: GB/s} from one peers_ckpt.py output file."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        m = re.match(r"(.{44}) +([\d.]+) GB/s", line)
        if m:
            out[m.group(1).strip()] = float(m.group(2))
    return out


def main():
    out_dir = sys.argv[1]
    p = lambda name: os.path.join(out_dir, name)
    goals = []  # (goal, measured, ">=" or "<=", target, met or None, detail)
    supporting = []  # (figure, value): measured beside the goals

    def goal(name, value, target, detail, higher_is_better=True):
        op = ">=" if higher_is_better else "<="
        if value is None:
            goals.append((name, None, op, target, None, detail or "not measured"))
            return
        met = value >= target if higher_is_better else value <= target
        goals.append((name, value, op, target, met, detail))

    # 1. Restores, per size and threads, each against the baseline that
    # does the same work: a warm restore (crc on, into used memory) against
    # pread into used buffers; a fresh process's first restore of a
    # checkpoint laid out as TensorFlow writes it (copied into memory never
    # touched) against pread into fresh buffers; the first restore of an
    # aligned checkpoint (read in place: no copy, no new memory) against
    # pread into used buffers. One thread: 0.9, 0.8, 1.0; two: 1.0 each.
    restore = load_json_lines(p("restore.jsonl"))
    for r in sorted(restore, key=lambda r: (r.get("aligned", False), r["threads"], r["size_mb"])):
        one = r["threads"] == 1
        where = "%d MiB, %d thread%s" % (r["size_mb"], r["threads"], "" if one else "s")
        if r.get("aligned"):
            goal("first restore, aligned (in place), vs pread into used buffers, " + where,
                 r["session_first_ratio"], 1.0,
                 "%.2f vs %.2f GB/s" % (r["session_first_gbps"], r["baseline_gbps"]))
            supporting.append(("warm restore, aligned (in place), vs pread into used buffers, "
                               + where, r["session_ratio"]))
            continue
        goal("warm restore vs pread into used buffers, " + where, r["session_ratio"],
             0.9 if one else 1.0, "%.2f vs %.2f GB/s" % (r["session_gbps"], r["baseline_gbps"]))
        goal("first restore (TensorFlow's layout) vs pread into fresh buffers, " + where,
             r["session_first_vs_fresh"], 0.8 if one else 1.0,
             "%.2f vs %.2f GB/s" % (r["session_first_gbps"], r["fresh_baseline_gbps"]))
    host = [r for r in restore if r["size_mb"] >= 256 and "memcpy_gbps" in r]
    if host:
        print("host: memcpy %.1f GB/s, pread into used buffers %.1f, into fresh buffers %.1f, "
              "mmap + reading every byte %.1f (restore_bench, %d MiB, medians of the runs)" % (
                  statistics.median(r["memcpy_gbps"] for r in host),
                  statistics.median(r["baseline_gbps"] for r in host),
                  statistics.median(r["fresh_baseline_gbps"] for r in host),
                  statistics.median(r["mapped_read_gbps"] for r in host), host[0]["size_mb"]))

    # 2 and 3. Cold restore and durable save.
    cs = load_json_lines(p("cold_save.json"))
    cs = cs[-1] if cs else {}
    goal("cold restore vs best plain cold read", cs.get("cold_session_ratio"), 0.9,
         cs and "%.2f vs %.2f GB/s (%s)" % (cs["cold_session_gbps"], cs["cold_baseline_gbps"],
                                           cs["cold_baseline"]))
    goal("durable save vs plain write + fdatasync", cs.get("save_ratio"), 0.9,
         cs and "%.2f vs %.2f GB/s" % (cs["save_gbps"], cs["save_baseline_gbps"]))

    # 4. Many small tensors.
    small = load_json_lines(p("small.json"))
    small = small[-1] if small else {}
    goal("restore overhead per 1 KiB tensor (20,000), us", small.get("session_overhead_us_per_tensor"),
         5.0, small and "Saver restore %.3f GB/s, pread %.3f GB/s" % (
             small["session_gbps"], small["baseline_gbps"]),
         higher_is_better=False)

    # 5. The MLP step against the hand-fused Eigen step, interleaved rounds.
    ours = {1: [], 2: []}
    adam = {1: [], 2: []}
    for f in sorted(glob.glob(p("mlp_*.json"))):
        for name, b in load_benchmark(f).items():
            m = re.match(r"BM_MlpTrainStep/adam:(\d)/threads:(\d)", name)
            if m:
                rate = 1e9 / b["real_time"] if b.get("time_unit") == "ns" else b["steps_per_s"]
                (adam if m.group(1) == "1" else ours)[int(m.group(2))].append(rate)
    eigen = {1: [], 2: []}
    for t in (1, 2):
        for f in sorted(glob.glob(p("eigen_mlp_t%d_*.txt" % t))):
            r = steps_per_s(f, r"train\s+([\d.]+) steps/s")
            if r:
                eigen[t].append(r)
    torch_rate = {t: steps_per_s(p("torch_mlp_t%d.txt" % t),
                                 r"train step \(fwd\+bwd\+SGD\):\s+([\d.]+) steps/s")
                  for t in (1, 2)}
    med = lambda v: statistics.median(v) if v else None
    o, e = med(ours[1]), med(eigen[1])
    goal("MLP SGD step vs hand-fused Eigen, 1 thread", o / e if o and e else None, 0.8,
         o and e and "%.0f vs %.0f steps/s" % (o, e))
    o, e = med(ours[2]), med(eigen[2])
    if o and e:
        supporting.append(("MLP SGD step vs hand-fused Eigen, 2 threads", o / e))

    # The rates `train --model=mlp` prints (each run's first second, its
    # start-up and first batches, left out) against the engine's step in
    # the same rounds: what making its inputs costs.
    train_rates = []
    if os.path.exists(p("train_mlp.txt")):
        with open(p("train_mlp.txt")) as f:
            for run in f.read().split("initialized from scratch")[1:]:
                rates = re.findall(r"\(([\d.]+) steps/s\)", run)
                train_rates += [float(r) for r in rates[1:]]
    t, o = med(train_rates), med(ours[1])
    goal("train --model=mlp vs the engine's step (mlp_benchmark), 1 thread",
         t / o if t and o else None, 0.95, t and o and "%.0f vs %.0f steps/s" % (t, o))

    # Supporting figures (no goal in the issue): executor-level ratios.
    micro = load_benchmark(p("micro.json"))

    def pair(a, b, label):
        if a in micro and b in micro:
            supporting.append((label, micro[b]["real_time"] / micro[a]["real_time"]))

    for t in (1, 2):
        pair("BM_MatMulSession/%d/real_time" % t, "BM_MatMulEigen/%d/real_time" % t,
             "MatMul 1024^2 in a session vs Eigen directly, %d thread(s)" % t)
        pair("BM_TanhSession/%d/real_time" % t, "BM_TanhEigen/%d/real_time" % t,
             "Tanh over 1M floats in a session vs Eigen directly, %d thread(s)" % t)
    crc = load_benchmark(p("crc.json"))
    for name, b in sorted(crc.items()):
        if "bytes_per_second" in b:
            supporting.append(("%s GB/s" % name, b["bytes_per_second"] / 1e9))

    # Peers at each size: torch.load and np.load per tensor.
    peers = {}
    for f in glob.glob(p("peers_*.txt")):
        size = int(re.search(r"peers_(\d+)\.txt", f).group(1))
        peers[size] = peers_rates(f)

    # TensorFlow 2.21 in the same run: minigraph / TensorFlow, higher is
    # better for minigraph.
    tf_ckpt = {round(r["size_mb"]): r for r in load_json_lines(p("tf_ckpt.jsonl"))}
    for r in sorted((r for r in restore if not r.get("aligned")), key=lambda r: r["size_mb"]):
        t = tf_ckpt.get(round(r["size_mb"]))
        if r["threads"] != 2 or not t:
            continue
        size = "%d MiB" % round(r["size_mb"])
        goal("restore (warm) vs TensorFlow's Saver.restore, " + size,
             r["session_gbps"] / t["restore_gbps"], 1.0,
             "%.2f vs %.2f GB/s" % (r["session_gbps"], t["restore_gbps"]))
        supporting.append(("first restore in a fresh process vs TensorFlow's first, " + size,
                           r["session_first_gbps"] / t["restore_first_gbps"]))
        if "save_gbps" in r:
            goal("durable save vs TensorFlow's Saver.save + fsync, " + size,
                 r["save_gbps"] / t["save_durable_gbps"], 1.0,
                 "%.2f vs %.2f GB/s; TensorFlow without fsync %.2f" % (
                     r["save_gbps"], t["save_durable_gbps"], t["save_gbps"]))
    tf_mlp = {1: [], 2: []}
    for r in load_json_lines(p("tf_mlp.jsonl")):
        tf_mlp[r["threads"]].append(r["steps_per_s"])
    for t in (1, 2):
        o, f = med(ours[t]), med(tf_mlp[t])
        goal("MLP SGD step vs TensorFlow, %d thread%s" % (t, "s" if t > 1 else ""),
             o / f if o and f else None, 1.0, o and f and "%.0f vs %.0f steps/s" % (o, f))
    tf_oneop = load_json_lines(p("tf_oneop.json"))
    one = micro.get("BM_OneOpRun")
    ours_us = None
    if one:
        ours_us = one["real_time"] / 1e3 if one.get("time_unit") == "ns" else one["real_time"]
    if tf_oneop and one:
        goal("Session.run of one op vs TensorFlow's (time, inverted)",
             tf_oneop[-1]["one_op_run_us"] / ours_us, 1.0,
             "%.2f vs %.2f us; TensorFlow's through its Python client" % (
                 ours_us, tf_oneop[-1]["one_op_run_us"]))
    # Like for like: TensorFlow's C++ Session::Run (tools/tf_session_peer.cc)
    # of the same one-op graph and MLP step.
    tf_cc = load_json_lines(p("tf_session_peer.json"))
    tf_cc = tf_cc[-1] if tf_cc else {}
    if tf_cc and one:
        goal("Session::Run of one op vs TensorFlow's C++ (time, inverted)",
             tf_cc["one_op_run_us"] / ours_us, 1.0,
             "%.2f vs %.2f us" % (ours_us, tf_cc["one_op_run_us"]))
    for t in (1, 2):
        o, f = med(ours[t]), tf_cc.get("mlp_steps_per_s", {}).get(str(t))
        goal("MLP SGD step vs TensorFlow's C++ Session::Run, %d thread%s" % (
            t, "s" if t > 1 else ""), o / f if o and f else None, 1.0,
            o and f and "%.0f vs %.0f steps/s" % (o, f))
    dist = load_json_lines(p("distributed.json"))
    dist = dist[-1] if dist else {}
    tf_cluster = load_json_lines(p("tf_cluster.json"))
    tf_cluster = tf_cluster[-1] if tf_cluster else {}
    for key, label, unit in (("mlp_worker_steps_per_s", "1 ps + 2 workers MLP, per worker",
                              "steps/s"),
                             ("recv_gbps", "64 MiB RecvTensor", "GB/s")):
        o, f = dist.get(key), tf_cluster.get(key)
        goal(label + " vs TensorFlow's cluster", o / f if o and f else None, 1.0,
             o and f and "%.2f vs %.2f %s" % (o, f, unit))

    # tf.data: threads against the same pipeline without them, and each
    # pipeline against TensorFlow's run of the same graph.
    data = {os.path.splitext(os.path.basename(r["graph"]))[0]: r["elements_per_s"]
            for r in load_json_lines(p("data.jsonl"))}
    tf_data = load_json_lines(p("tf_data.json"))
    tf_data = tf_data[-1]["elements_per_s"] if tf_data else {}
    # What this machine's two cores give the same work: two processes of
    # the sequential map at once, over one alone. The threads' speed-ups
    # are measured against it.
    two = [r["elements_per_s"] for r in load_json_lines(p("data_two_processes.jsonl"))]
    ceiling = sum(two) / data["map"] if len(two) == 2 and data.get("map") else None
    if ceiling:
        supporting.append(("tf.data: two processes' sequential maps at once / one alone",
                           ceiling))
    for fast, slow, label in (
            ("map_parallel", "map", "tf.data map, 2 parallel calls vs 1"),
            ("interleave_parallel", "interleave", "tf.data interleave, 2 threads vs none"),
            ("map_prefetch_then_train", "map_then_train",
             "tf.data prefetch before a training step vs none")):
        a, b = data.get(fast), data.get(slow)
        if a and b:
            supporting.append((label + " (speed-up)", a / b))
        goal(label + ", of two processes'", a / b / ceiling if a and b and ceiling else None,
             0.8, a and b and ceiling and "%.2fx (%.0f vs %.0f elements/s); two processes %.2fx"
             % (a / b, a, b, ceiling))
    for name in sorted(data):
        o, f = data.get(name), tf_data.get(name)
        goal("tf.data %s vs TensorFlow" % name, o / f if o and f else None, 1.0,
             o and f and "%.0f vs %.0f elements/s" % (o, f))

    # A TensorFlow 1 while loop: forward, and forward with the gradient
    # (the loop's stacks), against TensorFlow's runs of the same graph.
    loops = load_json_lines(p("loops.jsonl"))
    tf_loops = load_json_lines(p("tf_loops.json"))
    tf_loops = tf_loops[-1] if tf_loops else {}
    if len(loops) == 2:
        for (label, target), ours_rate, key in zip(
                (("while loop forward vs TensorFlow", 1.0),
                 ("while loop forward + gradient vs TensorFlow (within 1.3x)", 1 / 1.3)),
                (loops[0]["runs_per_s"], loops[1]["runs_per_s"]),
                ("forward_runs_per_s", "forward_backward_runs_per_s")):
            theirs = tf_loops.get(key)
            goal(label, ours_rate / theirs if theirs else None, target,
                 theirs and "%.1f vs %.1f runs/s" % (ours_rate, theirs))
        # The backward pass's time over the forward's.
        back = 1 / loops[1]["runs_per_s"] - 1 / loops[0]["runs_per_s"]
        supporting.append(("while loop: backward time / forward time, minigraph",
                           back * loops[0]["runs_per_s"]))
        if tf_loops:
            tf_back = (1 / tf_loops["forward_backward_runs_per_s"] -
                       1 / tf_loops["forward_runs_per_s"])
            supporting.append(("while loop: backward time / forward time, TensorFlow",
                               tf_back * tf_loops["forward_runs_per_s"]))

    # Single ops at models' shapes against TensorFlow's runs of the same
    # graphs, forward and backward, at 1 and 2 threads.
    kernel_rows = load_json_lines(p("kernels.jsonl"))
    tf_kernels = load_json_lines(p("tf_kernels.json"))
    tf_kernels = tf_kernels[-1].get("runs_per_s", {}) if tf_kernels else {}
    kernels = {row["key"]: row["result"]["runs_per_s"] for row in kernel_rows}
    for key in sorted(kernels):
        name, fetch, threads = key.split("/")
        mine, peer = kernels[key], tf_kernels.get(key)
        goal("%s %s, %s thread%s, vs TensorFlow" % (name, fetch, threads,
                                                     "" if threads == "1" else "s"),
             mine / peer if peer else None, 1.0,
             peer and "%.1f vs %.1f runs/s" % (mine, peer))

    # Models' training steps against TensorFlow's of the same graphs: the
    # median over the rounds of each back-to-back pair's ratio, and the
    # median rates; forward passes beside them.
    model_rows = load_json_lines(p("models.jsonl"))
    model_runs, tf_model_runs = {}, {}
    for row in model_rows:
        model_runs.setdefault(row["key"], []).append(row["result"]["runs_per_s"])
    for line in load_json_lines(p("tf_models.jsonl")):
        for name, rate in line["steps_per_s"].items():
            tf_model_runs.setdefault("%s/%d" % (name, line["threads"]), []).append(rate)
    models = {k: med(v) for k, v in model_runs.items()}
    tf_models = {k: med(v) for k, v in tf_model_runs.items()}
    for key in sorted(models, key=lambda k: (k.split("/")[1] != "train", k)):
        name, fetch, threads = key.split("/")
        pairs = list(zip(model_runs[key], tf_model_runs.get(key, [])))
        mine, peer = models[key], tf_models.get(key)
        ratio = med([a / b for a, b in pairs]) if pairs else None
        label = "%s %s, %s thread%s, vs TensorFlow" % (name, "training step" if fetch == "train"
                                                      else "forward", threads,
                                                      "" if threads == "1" else "s")
        if fetch == "train":
            goal(label, ratio, 1.0, peer and "%.1f vs %.1f steps/s; rounds %s" % (
                mine, peer, " ".join("%.2f" % (a / b) for a, b in pairs)))
        elif ratio:
            supporting.append((label, ratio))
    # Where a training step's time goes: the op types that took most of one
    # traced step, on each side (TensorFlow's after grappler's rewrites).
    profiles = {}
    tf_profiles = {}
    if os.path.exists(p("tf_model_profiles.json")):
        with open(p("tf_model_profiles.json")) as f:
            tf_profiles = json.load(f)
    for name in sorted(tf_profiles):
        path = p("profile_%s.json" % name)
        if os.path.exists(path):
            with open(path) as f:
                profiles[name] = json.load(f)

    # The table.
    print("%-58s %10s %8s  %s" % ("goal (same-run ratio)", "measured", "target", "status"))
    print("-" * 100)
    for name, value, op, target, met, detail in goals:
        status = "not measured" if met is None else ("met" if met else "NOT MET")
        shown = "-" if value is None else "%.2f" % value
        print("%-58s %10s %8s  %s  (%s)" % (name, shown, "%s %g" % (op, target), status,
                                             detail or ""))
    if supporting:
        print("\nsupporting figures")
        for label, v in supporting:
            print("  %-70s %.2f" % (label, v))
    if peers:
        print("\npeers (GB/s, same run)")
        for size in sorted(peers):
            for k, v in sorted(peers[size].items()):
                print("  %5d MiB  %-44s %.2f" % (size, k, v))
    if profiles:
        print("\nwhere a training step's time goes (ms of one traced step, 1 thread; "
              "minigraph | TensorFlow)")
        for name in sorted(profiles):
            mine, peer = profiles[name], tf_profiles.get(name, {})
            top = lambda prof: ", ".join("%s %.1f" % (op, us / 1000)
                                         for op, us in list(prof.items())[:5])
            print("  %-18s %5.1f ms: %s" % (name, sum(mine.values()) / 1000, top(mine)))
            print("  %-18s %5.1f ms: %s" % ("", sum(peer.values()) / 1000, top(peer)))
    if any(torch_rate.values()):
        print("\nPyTorch MLP steps/s: " + ", ".join(
            "%d thread(s) %.0f" % (t, r) for t, r in torch_rate.items() if r))

    report = {
        "goals": [
            {"goal": n, "measured": v, "target": "%s %g" % (op, t), "met": m, "detail": d or ""}
            for n, v, op, t, m, d in goals
        ],
        "supporting": [{"figure": l, "value": v} for l, v in supporting],
        "restore": restore,
        "cold_save": cs,
        "small_tensors": small,
        "mlp_steps_per_s": {"minigraph_sgd": ours, "minigraph_adam": adam, "eigen_hand_fused": eigen,
                            "pytorch": torch_rate},
        "peers_gbps": peers,
        "distributed": dist,
        "tensorflow": {"ckpt": list(tf_ckpt.values()), "mlp_steps_per_s": tf_mlp,
                       "one_op": tf_oneop, "cc_session": tf_cc, "cluster": tf_cluster,
                       "data": tf_data},
        "data_elements_per_s": data,
        "while_loop": {"minigraph": loops, "tensorflow": tf_loops},
        "kernels": {"minigraph": kernels, "tensorflow": tf_kernels},
        "models": {"minigraph": models, "tensorflow": tf_models,
                   "profiles_us": {"minigraph": profiles, "tensorflow": tf_profiles}},
    }
    with open(p("bench.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)

    # Data for the plots: restore GB/s against size, per threads.
    with open(p("restore.dat"), "w") as f:
        f.write("# size_mb threads session first pread torch_load np_load\n")
        for r in sorted((r for r in restore if not r.get("aligned")),
                        key=lambda r: (r["threads"], r["size_mb"])):
            pr = peers.get(int(r["size_mb"]), {})
            f.write("%g %d %.3f %.3f %.3f %s %s\n" % (
                r["size_mb"], r["threads"], r["session_gbps"], r["session_first_gbps"],
                r["baseline_gbps"], pr.get("torch.load", "NaN"),
                pr.get("np.load per tensor (.npy)", "NaN")))
    with open(p("mlp.dat"), "w") as f:
        f.write("# threads minigraph_sgd minigraph_adam eigen pytorch\n")
        for t in (1, 2):
            vals = [med(ours[t]), med(adam[t]), med(eigen[t]), torch_rate[t]]
            f.write("%d %s\n" % (t, " ".join("NaN" if v is None else "%.1f" % v for v in vals)))
    met = [g[4] for g in goals]
    print("\n%d goal(s) met, %d not met, %d not measured; %s" % (
        met.count(True), met.count(False), met.count(None), p("bench.json")))


if __name__ == "__main__":
    main()
