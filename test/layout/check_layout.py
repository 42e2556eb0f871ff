#!/usr/bin/env python3
"""The layout rules of rlx, checked: every pass is defined in a file named
like it, in the folder of its layer, and has a lit test named like it in the
mirrored test folder (dialects/RLX/Transforms -> test/Dialect/RLX/Transforms,
conversion/X -> test/Conversion/X, codegen/X -> test/Codegen/X).

Usage: check_layout.py SOURCE_ROOT. Prints every violation; exit 1 if any.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
problems = []


def stem_of(pass_name):
    """rlx-cpu-vectorize-matmul -> vectorizematmul; convert-a-to-b -> atob."""
    for prefix in ("rlx-cpu-", "rlx-gpu-", "rlx-", "convert-"):
        if pass_name.startswith(prefix):
            pass_name = pass_name[len(prefix):]
            break
    return pass_name.replace("-", "")


def test_folder(source_dir):
    rel = os.path.relpath(source_dir, root)
    if rel.startswith("dialects/"):
        return os.path.join("test", "Dialect", rel[len("dialects/"):])
    if rel.startswith("conversion/"):
        return os.path.join("test", "Conversion", rel[len("conversion/"):])
    if rel.startswith("codegen/"):
        return os.path.join("test", "Codegen", rel[len("codegen/"):])
    return None


for layer in ("dialects", "conversion", "codegen"):
    for dirpath, _, files in os.walk(os.path.join(root, layer)):
        if "Passes.td" not in files:
            continue
        td = open(os.path.join(dirpath, "Passes.td")).read()
        sources = {f: open(os.path.join(dirpath, f)).read()
                   for f in files if f.endswith(".cpp")}
        for record, name in re.findall(r'^def (\w+)\s*:\s*Pass<"([^"]+)"', td,
                                       re.M):
            where = os.path.relpath(dirpath, root)
            macro = "GEN_PASS_DEF_" + record.upper()
            defining = [f for f, text in sources.items() if macro in text]
            want = stem_of(name)
            if not defining:
                problems.append(f"{where}: pass {name} ({record}) is defined "
                                f"in no .cpp of its folder")
            for f in defining:
                stem = os.path.splitext(f)[0].lower()
                if stem not in (want, "convert" + want):
                    problems.append(f"{where}/{f} defines {name}: the file "
                                    f"should be named like the pass")
            folder = test_folder(dirpath)
            lit = os.path.join(root, folder, name + ".mlir")
            if not os.path.exists(lit):
                problems.append(f"{where}: pass {name} has no lit test "
                                f"{os.path.relpath(lit, root)}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
