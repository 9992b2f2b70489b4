# lit configuration for hetc: IR tests through hetc-opt, tool tests through
# hetc and hetc-sched, all checked with FileCheck.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "hetc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".sched", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hetc_obj_root, "test", "lit")

config.substitutions.append(("%chips", os.path.join(config.hetc_src_root, "chips")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%hetc-binary", os.path.join(config.hetc_tools_dir, "hetc")))
config.substitutions.append(
    ("%models", os.path.join(config.hetc_src_root, "test", "lit", "Inputs", "models.py")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.hetc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# The sanitizer build (scripts/sanitize.sh) sets these for every tool run.
llvm_config.with_system_environment(["ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.add_tool_substitutions(
    ["hetc", "hetc-opt", "hetc-sched", "hetc-tokenize"], [config.hetc_tools_dir])

# `hetc backends` says whether a CUDA device can run the CUDA backend here:
# tests of its results need one (REQUIRES: cuda-device), tests of its
# refusal need none (UNSUPPORTED: cuda-device).
import subprocess

try:
    _backends = subprocess.run([os.path.join(config.hetc_tools_dir, "hetc"), "backends"],
                               capture_output=True, text=True, timeout=60).stdout
except (OSError, subprocess.TimeoutExpired):
    _backends = ""
if "cuda: ready" in _backends:
    config.available_features.add("cuda-device")
