"""Shared plumbing of the ONNX import tests: running rlxc and rlx-run on a
model and reading rlx-run's safetensors outputs (parsed here, so the check
does not go through rlx's own reader)."""
import collections
import concurrent.futures
import json
import os
import re
import struct
import subprocess
import sys

import numpy as np

SKIP = 77  # ctest SKIP_RETURN_CODE


def require(module):
    try:
        return __import__(module)
    except ImportError:
        print(f"SKIP: python module '{module}' is missing (scripts/install-deps.sh "
              f"installs python3-{module})")
        sys.exit(SKIP)


DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64,
          "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8,
          "U16": np.uint16, "U32": np.uint32, "U64": np.uint64,
          "BOOL": np.bool_, "F16": np.float16}


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        lo, hi = info["data_offsets"]
        raw = data[base + lo:base + hi]
        if info["dtype"] == "BF16":  # the high half of an f32
            bits = np.frombuffer(raw, np.uint16).astype(np.uint32) << 16
            out[name] = bits.view(np.float32).reshape(info["shape"])
            continue
        out[name] = np.frombuffer(raw, DTYPES[info["dtype"]]).reshape(info["shape"])
    return out


def run(argv, expect_ok=True):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if expect_ok and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}):\n"
                           f"{p.stdout}{p.stderr}")
    return p


def compile_and_run(rlxc, rlx_run, model_path, input_sets, extra=(),
                    fn="main"):
    """Compiles model_path with rlxc, then runs rlx-run (entry point fn)
    once per dict of inputs in input_sets; returns one dict of outputs per
    set."""
    stem = os.path.splitext(model_path)[0]
    run([rlxc, model_path, "-o", stem + ".so", *extra])
    results = []
    for k, inputs in enumerate(input_sets):
        args = [rlx_run, stem + ".so", "--fn", fn, "--weights",
                stem + ".safetensors"]
        for name, value in inputs.items():
            path = f"{stem}.in{k}.{len(args)}.npy"
            np.save(path, value)
            args += ["--input", f"{name}={path}"]
        out = f"{stem}.out{k}.safetensors"
        run(args + ["--outputs", out])
        results.append(read_safetensors(out))
    return results


def close(expected, got, rtol=1e-4, atol=1e-5):
    """|got - expected| <= rtol |expected| + atol, elementwise; exact for
    integers and booleans. Returns a message or ''."""
    expected = np.asarray(expected)
    got = np.asarray(got)
    if expected.shape != got.shape:
        return f"shape {got.shape}, expected {expected.shape}"
    if expected.dtype.kind in "biu":
        bad = np.argwhere(expected != got)
        return "" if bad.size == 0 else \
            f"{bad.shape[0]} elements differ, first at {tuple(bad[0])}"
    with np.errstate(invalid="ignore"):
        err = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    # Equal infinities are right (their difference is NaN).
    err = np.where(got == expected, 0.0, err)
    tol = rtol * np.abs(expected.astype(np.float64)) + atol
    # NaN where the reference has NaN is right (sqrt(-1), 0 ** -0.5).
    both_nan = np.isnan(got) & np.isnan(expected)
    err = np.where(both_nan, 0.0, err)
    tol = np.where(both_nan, 0.0, tol)
    if np.all(err <= tol) and not np.any(np.isnan(got) != np.isnan(expected)):
        return ""
    i = np.unravel_index(np.argmax(err - tol), err.shape)
    return (f"max excess at {tuple(int(v) for v in i)}: got {got[i]}, "
            f"expected {expected[i]}")


def reason_of(stderr):
    """A short, groupable reason from the importer's error."""
    line = next((l for l in stderr.splitlines() if "error:" in l), stderr.strip())
    line = line.split("error:", 1)[-1].strip()
    line = re.sub(r"^node \d+ ('[^']*' )?\([^)]*\): ", "", line)
    line = re.sub(r"'[^']*\.onnx'", "MODEL", line)
    return line[:140]


def compile_and_compare(rlxc, rlx_run, path, model, data_sets, rtol, atol):
    """Compiles the ONNX file `path` (whose ModelProto is `model`) with rlxc
    and runs each (inputs, expected outputs) of `data_sets` with rlx-run;
    returns ("PASS", ""), ("FAIL", why) or ("UNSUPPORTED", why): the
    importer's clean errors are unsupported, a crash or an error after the
    import (a pass rejecting the imported IR) is a failure."""
    base = os.path.splitext(path)[0]
    p = run([rlxc, path, "-o", base + ".so"], expect_ok=False)
    if p.returncode != 0:
        text = p.stderr + p.stdout
        if p.returncode < 0 or "Stack dump" in text or "LLVM ERROR" in text:
            return "FAIL", "rlxc crashed: " + text[-300:]
        imported = run([os.path.join(os.path.dirname(rlxc), "rlx-import-onnx"),
                        path, "-o", base + ".mlir", "--weights-out",
                        base + ".import.safetensors"], expect_ok=False)
        if imported.returncode != 0:
            return "UNSUPPORTED", reason_of(imported.stderr)
        return "FAIL", "rlxc: " + reason_of(text)
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    outputs = [o.name for o in model.graph.output]
    for k, (inputs, expected) in enumerate(data_sets):
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
            if want.dtype.kind in "iu" and got[name].dtype != want.dtype:
                return "FAIL", (f"output {name}: dtype {got[name].dtype}, "
                                f"want {want.dtype}")
            msg = close(want, got[name].astype(want.dtype)
                        if want.dtype != np.bool_ else got[name],
                        rtol=rtol, atol=atol)
            if msg:
                return "FAIL", f"output {name}: {msg}"
    return "PASS", ""


def run_all(cases, run_case):
    """{name: run_case(case)} over {name: case}, two at a time; a harness
    exception is that case's failure."""
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(run_case, c): name for name, c in cases.items()}
        for f in concurrent.futures.as_completed(futures):
            try:
                results[futures[f]] = f.result()
            except Exception as e:  # noqa: BLE001
                results[futures[f]] = ("FAIL", f"harness: {e}")
    return results


def summarize(results, passing_file, title, update):
    """Prints the failures, the unsupported cases by reason and the counts
    of {name: (status, why)}; with `update` rewrites `passing_file` (the
    cases that must pass) from this run. Returns the exit code: 1 when a
    case the file names did not pass."""
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
    print(f"\n{title}: {counts['PASS']} pass, {counts['FAIL']} "
          f"fail, {counts['UNSUPPORTED']} unsupported, of {len(results)}")
    passing = sorted(n for n, (s, _) in results.items() if s == "PASS")
    script = os.path.basename(sys.argv[0])
    if update:
        with open(passing_file, "w") as f:
            f.write(f"# {title} that pass ({script} --update); the list only "
                    "grows.\n")
            f.write("\n".join(passing) + "\n")
        return 0
    expected = set()
    if os.path.exists(passing_file):
        expected = {l.strip() for l in open(passing_file) if l.strip() and
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
