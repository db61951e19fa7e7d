#!/usr/bin/env python3
"""Kernel Tuner's strategies on a complete bartune landscape (issue 26).

Builds a Kernel Tuner cache from the records of one size tuple (every
candidate measured: each config with its status), runs Kernel Tuner's
strategies on it in simulation mode, seed by seed, and prints what bartune
replay prints: the measured configurations a strategy needed to come within
2% of the best, median over the seeds that got there. Counted as bartune
counts: over_occupancy and compile_error cost no measurement (Kernel Tuner is
asked for as many evaluations as give `budget` measured ones).

    python3 -m venv /tmp/ktv && /tmp/ktv/bin/pip install kernel_tuner==1.5.0
    /tmp/ktv/bin/python tools/kt-compare.py RECORDS.jsonl[.gz] [--size n=16777216] \
        [--strategies basinhopping,dual_annealing] [--seeds 30] [--budget 500]
"""
import argparse
import gzip
import json
import math
import os
import random
import statistics
import sys
import tempfile
import warnings

FREE = ("over_occupancy", "compile_error")  # cost no measurement (bartune replay)
ERRORS = {"over_occupancy": "InvalidConfig", "launch_refused": "InvalidConfig",
          "compile_error": "CompilationFailedConfig", "compile_timeout": "CompilationFailedConfig"}
ABSENT = "-"  # a parameter that does not apply to a variant


def interval(vals):
    """The median's 95% interval, as bartune replay prints it (tuner/replay.c:
    the order statistics 0.98 sqrt(n) ranks either side of the middle)."""
    if not vals:
        return ""
    n, half = len(vals), 0.98 * math.sqrt(len(vals))
    lo, hi = max(0, math.floor(n / 2 - half)), min(n - 1, math.ceil(n / 2 + half))
    return f", 95% interval {vals[lo]}-{vals[hi]}"


def read_landscape(path, size):
    opener = gzip.open if path.endswith(".gz") else open
    recs = {}
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if size and any(str(r["sizes"].get(k)) != v for k, v in size.items()):
                continue
            key = json.dumps(r["config"], sort_keys=True)
            old = recs.get(key)
            # one record per config: the ok one, the fastest if measured twice
            if old is None or (r["status"] == "ok" and (old["status"] != "ok" or r["median_ms"] < old["median_ms"])):
                recs[key] = r
    sizes = {json.dumps(r["sizes"], sort_keys=True) for r in recs.values()}
    if len(sizes) != 1:
        sys.exit(f"{path}: records at {len(sizes)} size tuples; pick one with --size k=v")
    return list(recs.values())


def write_cache(recs, path):
    names = sorted({k for r in recs for k in r["config"]})
    values = {n: sorted({r["config"].get(n, ABSENT) for r in recs}, key=lambda v: (isinstance(v, str), v)) for n in names}
    cache = {}
    for r in recs:
        params = {n: r["config"].get(n, ABSENT) for n in names}
        key = ",".join(str(params[n]) for n in names)
        entry = dict(params)
        if r["status"] == "ok":
            entry["time"], entry["times"] = r["median_ms"], [r["median_ms"]]
        else:
            entry["time"] = ERRORS.get(r["status"], "RuntimeFailedConfig")
        for t in ("compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time"):
            entry[t] = 0
        entry["timestamp"] = r.get("date", "")
        entry["bartune_status"] = r["status"]
        cache[key] = entry
    with open(path, "w") as f:
        json.dump({"device_name": "bartune", "kernel_name": "k", "problem_size": 1, "tune_params_keys": names,
                   "tune_params": values, "objective": "time", "cache": cache}, f)
    return names, values, cache


def exact_space(cache):
    """Kernel Tuner's search space as exactly the recorded candidates, in the
    order of the Cartesian product, where the space is not the whole product:
    Kernel Tuner's own construction would filter the product (9.8 million
    points for pipeline) through a restriction function on every call."""
    import kernel_tuner.interface as ki
    from kernel_tuner.searchspace import Searchspace

    ordered = {}  # made once: every tune_kernel call gets the same tune_params

    def make(tune_params, restrictions, max_threads, **_):
        if not ordered:
            # in the order Kernel Tuner's own construction sorts it: by value
            # index, first parameter first
            index = {n: {v: i for i, v in enumerate(vals)} for n, vals in tune_params.items()}
            ordered.update(sorted(cache.items(), key=lambda kv: tuple(index[n][kv[1][n]] for n in tune_params)))
        return Searchspace(None, None, None, from_cache={"tune_params": tune_params, "cache": ordered})
    ki.Searchspace = make


def run_one(kt, strategy, seed, budget, names, values, cache, path):
    random.seed(seed)
    import numpy as np
    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kt.tune_kernel("k", "__global__ void k() {}", 1, [], values, cache=path,
                                    simulation_mode=True, strategy=strategy,
                                    strategy_options={"max_fevals": budget}, iterations=1, quiet=True,
                                    verbose=False)
    seen, order = set(), []
    for r in results:
        key = ",".join(str(r[n]) for n in names)
        if key not in seen:
            seen.add(key)
            order.append(cache[key])
    return order


def within(order, best, pct, budget):
    measured, found = 0, None
    for e in order:
        if e["bartune_status"] in FREE:
            continue
        measured += 1
        if measured > budget:
            return None
        if e["bartune_status"] == "ok" and (found is None or e["time"] < found):
            found = e["time"]
        if found is not None and found <= best * (1 + pct / 100):
            return measured
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records")
    ap.add_argument("--size", action="append", default=[], help="k=v: the size tuple to take")
    ap.add_argument("--strategies", default="basinhopping,dual_annealing,genetic_algorithm,simulated_annealing,"
                    "greedy_ils,mls,pso,random_sample")
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--budget", type=int, default=500)
    a = ap.parse_args()
    import kernel_tuner as kt
    size = dict(s.split("=", 1) for s in a.size)
    recs = read_landscape(a.records, size)
    best = min(r["median_ms"] for r in recs if r["status"] == "ok")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cache.json")
        names, values, cache = write_cache(recs, path)
        product = 1
        for vals in values.values():
            product *= len(vals)
        if product != len(cache):  # Kernel Tuner builds a complete product itself, as users run it
            exact_space(cache)
        ok = sum(1 for r in recs if r["status"] == "ok")
        measurable = sum(1 for r in recs if r["status"] not in FREE)
        print(f"{a.records} {size or ''}: {len(cache)} candidates ({ok} ok), best {best:.4f} ms; "
              f"{a.seeds} seeds, budget {a.budget}; Kernel Tuner {kt.__version__}")
        for st in a.strategies.split(","):
            hits = []
            for seed in range(1, a.seeds + 1):
                try:
                    # Kernel Tuner's max_fevals counts the free ones too: ask for
                    # enough evaluations that `budget` of them are measured
                    order = run_one(kt, st, seed, a.budget * len(cache) // max(1, measurable), names, values,
                                    cache, path)
                    hits.append(within(order, best, 2, a.budget))
                except Exception as e:  # a strategy that fails on this space: say so, go on
                    print(f"  {st}: seed {seed} failed: {type(e).__name__}: {str(e)[:200]}")
                    break
            got = sorted(h for h in hits if h is not None)
            med = statistics.median_high(got) if got else None
            print(f"  {st:22s} within 2%: median {med if med is not None else 'never'} measured "
                  f"({len(got)}/{len(hits)} seeds){interval(got)}", flush=True)


if __name__ == "__main__":
    main()
