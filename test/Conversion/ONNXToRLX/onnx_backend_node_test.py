#!/usr/bin/env python3
"""ONNX's own backend node tests (924 cases in python3-onnx 1.12, generated
by `onnx.backend.test.case.node.collect_testcases`: a one-op model, inputs,
and the outputs ONNX's NumPy reference computed), each compiled by `rlxc
model.onnx`, run by rlx-run and compared at the case's tolerances.

Each case is PASS, FAIL (wrong values, or rlxc/rlx-run failed after the
import succeeded, or crashed) or UNSUPPORTED (the importer refused the model
with an error: an op, attribute or type it does not map), and the summary
lists the unsupported ones grouped by reason. The test fails when a case
named in onnx_backend_node_passing.txt does not pass (the list only grows:
`--update` rewrites it from this run).

Usage: onnx_backend_node_test.py RLXC RLX_RUN SCRATCH_DIR [--update]
       [--only SUBSTRING]"""
import collections
import concurrent.futures
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_common import SKIP, close, read_safetensors, require, run  # noqa: E402

np = require("numpy")
# python3-onnx 1.12's case generators use aliases NumPy 1.24 removed.
for alias, value in [("float", float), ("int", int), ("bool", bool),
                     ("object", object), ("str", str), ("complex", complex)]:
    if alias not in np.__dict__:
        setattr(np, alias, value)
onnx = require("onnx")
import warnings  # noqa: E402

warnings.simplefilter("ignore")
from onnx.backend.test.case import node as node_cases  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PASSING = os.path.join(HERE, "onnx_backend_node_passing.txt")


def reason_of(stderr):
    """A short, groupable reason from the importer's error."""
    line = next((l for l in stderr.splitlines() if "error:" in l), stderr.strip())
    line = line.split("error:", 1)[-1].strip()
    line = re.sub(r"^node \d+ ('[^']*' )?\([^)]*\): ", "", line)
    line = re.sub(r"'[^']*\.onnx'", "MODEL", line)
    return line[:140]


# The .npy dtypes rlx-run reads.
NPY_DTYPES = {np.dtype(t) for t in (np.float16, np.float32, np.float64,
                                    np.bool_, np.int8, np.int32, np.int64)}


# Cases whose stored outputs disagree with the current ONNX spec, not rlx.
KNOWN_DIFFERENCES = {
    "test_cast_FLOAT_to_BFLOAT16":
        "ONNX 1.12's reference truncates to bfloat16; rlx rounds to nearest "
        "even, as the spec says since ONNX 1.14",
}


def run_case(case, rlxc, rlx_run, d):
    if case.name in KNOWN_DIFFERENCES:
        return "UNSUPPORTED", KNOWN_DIFFERENCES[case.name]
    base = os.path.join(d, case.name)
    for inputs, _ in case.data_sets:
        for value in inputs:
            if isinstance(value, (list, tuple)) or value is None:
                return "UNSUPPORTED", "a sequence or optional input"
            dtype = np.asarray(value).dtype
            if dtype not in NPY_DTYPES:
                return "UNSUPPORTED", f"an input of dtype {dtype} (rlx-run's .npy reader)"
    path = base + ".onnx"
    onnx.save(case.model, path)
    p = run([rlxc, path, "-o", base + ".so"], expect_ok=False)
    if p.returncode != 0:
        text = p.stderr + p.stdout
        if p.returncode < 0 or "Stack dump" in text or "LLVM ERROR" in text:
            return "FAIL", "rlxc crashed: " + text[-300:]
        # The importer's clean errors are unsupported; an error after the
        # import (a pass rejecting the imported IR) is a failure.
        imported = run([os.path.join(os.path.dirname(rlxc), "rlx-import-onnx"),
                        path, "-o", base + ".mlir", "--weights-out",
                        base + ".import.safetensors"], expect_ok=False)
        if imported.returncode != 0:
            return "UNSUPPORTED", reason_of(imported.stderr)
        return "FAIL", "rlxc: " + reason_of(text)
    inits = {t.name for t in case.model.graph.initializer}
    names = [i.name for i in case.model.graph.input if i.name not in inits]
    outputs = [o.name for o in case.model.graph.output]
    for k, (inputs, expected) in enumerate(case.data_sets):
        args = [rlx_run, base + ".so", "--fn", "main", "--weights",
                base + ".safetensors"]
        for j, (name, value) in enumerate(zip(names, inputs)):
            f = f"{base}.in{k}.{j}.npy"
            np.save(f, np.asarray(value))
            args += ["--input", f"{name}={f}"]
        out = f"{base}.out{k}.safetensors"
        r = run(args + ["--outputs", out], expect_ok=False)
        if r.returncode != 0:
            return "FAIL", "rlx-run: " + (r.stderr or r.stdout).strip()[-200:]
        got = read_safetensors(out)
        for name, want in zip(outputs, expected):
            want = np.asarray(want)
            if name not in got:
                return "FAIL", f"output {name} missing"
            msg = close(want, got[name].astype(want.dtype) if want.dtype != np.bool_
                        else got[name], rtol=case.rtol, atol=case.atol)
            if msg:
                return "FAIL", f"output {name}: {msg}"
    return "PASS", ""


def main():
    args = sys.argv[1:]
    update = "--update" in args
    only = ""
    if "--only" in args:
        only = args[args.index("--only") + 1]
    rlxc, rlx_run, d = [a for a in args if not a.startswith("--")][:3]
    os.makedirs(d, exist_ok=True)
    cases = [c for c in node_cases.collect_testcases("") if only in c.name]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(run_case, c, rlxc, rlx_run, d): c.name
                   for c in cases}
        for f in concurrent.futures.as_completed(futures):
            try:
                results[futures[f]] = f.result()
            except Exception as e:  # noqa: BLE001
                results[futures[f]] = ("FAIL", f"harness: {e}")
    counts = collections.Counter(status for status, _ in results.values())
    reasons = collections.defaultdict(list)
    for name, (status, why) in sorted(results.items()):
        if status == "UNSUPPORTED":
            reasons[why].append(name)
        elif status == "FAIL":
            print(f"FAIL {name}: {why}")
    print("\nUnsupported, by reason:")
    for why, names in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(names):4d}  {why}   e.g. {names[0]}")
    print(f"\nONNX backend node tests: {counts['PASS']} pass, {counts['FAIL']} "
          f"fail, {counts['UNSUPPORTED']} unsupported, of {len(results)}")
    passing = sorted(n for n, (s, _) in results.items() if s == "PASS")
    if update:
        with open(PASSING, "w") as f:
            f.write("# ONNX backend node tests that pass (onnx_backend_node_test.py"
                    " --update); the list only grows.\n")
            f.write("\n".join(passing) + "\n")
        return 0
    expected = set()
    if os.path.exists(PASSING):
        expected = {l.strip() for l in open(PASSING) if l.strip() and
                    not l.startswith("#")}
    regressed = sorted(n for n in expected if n in results and
                       results[n][0] != "PASS")
    for n in regressed:
        print(f"REGRESSED {n}: {results[n][1]}")
    new = sorted(set(passing) - expected)
    if new:
        print(f"{len(new)} cases pass that the list does not name yet "
              f"(--update adds them): {', '.join(new[:20])}")
    return 1 if regressed else 0


if __name__ == "__main__":
    sys.exit(main())
