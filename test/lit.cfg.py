# -*- Python -*-
# lit configuration of the rlx tests: dialect round trips and invalid IR,
# one file per pass, and end-to-end files that compile with rlxc and run
# with rlx-run.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "rlx"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# fuzz/: libFuzzer harnesses and their seed corpora (inputs, not tests).
config.excludes = ["unittests", "lib", "CMakeLists.txt", "lit.cfg.py",
                   "Inputs", "fuzz"]

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.use_default_substitutions()
config.substitutions.append(("%rlx_src_root", config.rlx_src_root))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

tool_dirs = [config.rlx_tools_dir, config.llvm_tools_dir]
tools = ["rlx-opt", "rlxc", "rlx-run", "rlx-testdata"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# AMX: the e2e tests that run tile code (rlx-cpu-dot-product-matmul's AMX
# tiles) need a CPU that has it; Linux lists the flags once AMX is usable.
def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


if {"amx_tile", "amx_bf16", "amx_int8"} <= _cpu_flags():
    config.available_features.add("amx")
# The f32 matmul kernel's 32-column panels (what prepacked and block-scaled
# weights are packed into) are two AVX-512 vectors wide.
if "avx512f" in _cpu_flags():
    config.available_features.add("avx512")
