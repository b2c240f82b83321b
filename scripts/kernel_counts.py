#!/usr/bin/env python3
"""Bytes and floating-point operations per strand-vertex update (SVU), counted on the cpu backend.

Usage: scripts/kernel_counts.py [--build DIR] [--strands N] [--vertices V] [--json FILE]

The cpu backend runs the same per-strand source (kernels/<model>/) as the CUDA kernels, so what
it reads, writes and computes per step is what a CUDA thread does for its strand. Two counts,
both from one build configured here (build/counting: -DHAIRSIM_COUNT_ACCESSES, -g, no PIE, no
CUDA):

- bytes: every read and write of a batch array goes through common/strided.hpp, which in that
  build counts them (sizeof the element each). Per step, as the code is written: an upper bound
  of a GPU's DRAM traffic (no reuse through L1/L2 assumed).
- floating-point operations: callgrind's per-instruction execution counts (--dump-instr=yes),
  summed over the x86 SSE/AVX arithmetic instructions (add, sub, mul, div, sqrt, min, max; a
  packed one counts its lanes, an FMA two), split into single and double precision. Conversions,
  compares and sign masks are not counted; neither is the arithmetic inside libm calls (sin, cos,
  atan2, remainder), whose calls are counted apart.

Both are the difference between a run of S + 2 and S timed steps, divided by 2 x strands x
vertices, so setup and warm-up cancel. docs/gpu.md turns them into the roofline prediction.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARITH = re.compile(r"^v?(add|sub|mul|div|sqrt|min|max)(ss|sd|ps|pd)$")
FMA = re.compile(r"^vf(n?)m(add|sub)(132|213|231)?(ss|sd|ps|pd)$")
LIBM = ("sin", "cos", "atan2", "remainder", "sincos", "exp", "log", "pow", "acos", "asin")


def build(build_dir):
    flags = "-DHAIRSIM_COUNT_ACCESSES -g -fno-pie"
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                    "-DHAIRSIM_CUDA=OFF", "-DHAIRSIM_BUILD_TESTS=OFF", "-DHAIRSIM_BUILD_BENCH=OFF",
                    "-DHAIRSIM_PYTHON=OFF",
                    f"-DCMAKE_CXX_FLAGS={flags}", "-DCMAKE_POSITION_INDEPENDENT_CODE=OFF",
                    "-DCMAKE_EXE_LINKER_FLAGS=-no-pie"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count()), "--target",
                    "hairsim"], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(build_dir, "src", "hairsim")


def flop_weights(binary):
    """Address -> (single flops, double flops) of every FP arithmetic instruction in the binary."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True,
                         text=True, check=True).stdout
    weights = {}
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        mnemonic, operands = m.group(2), m.group(3)
        fma = FMA.match(mnemonic)
        arith = ARITH.match(mnemonic)
        if not (fma or arith):
            continue
        kind = (fma or arith).groups()[-1]
        lanes = {"ss": 1, "sd": 1, "ps": 4, "pd": 2}[kind]
        if "%ymm" in operands and kind in ("ps", "pd"):
            lanes *= 2
        flops = lanes * (2 if fma else 1)
        single = kind in ("ss", "ps")
        weights[int(m.group(1), 16)] = (flops if single else 0, 0 if single else flops)
    return weights


def callgrind_instruction_counts(path):
    """Self Ir per instruction address of the main object, and the calls into libm by name."""
    counts = defaultdict(int)
    libm_calls = defaultdict(int)
    names = {}
    addr = 0
    skip_next = False
    current_fn = cfn = ""
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith(("fn=", "cfn=", "fl=", "fi=", "fe=", "cfi=", "cfl=", "ob=",
                                "cob=")):
                key, _, value = line.partition("=")
                m = re.match(r"\((\d+)\)(?: (.*))?", value)
                name = value
                if m:
                    if m.group(2):
                        names[(key in ("fn", "cfn"), m.group(1))] = m.group(2)
                    name = names.get((key in ("fn", "cfn"), m.group(1)), value)
                if key == "fn":
                    current_fn = name
                elif key == "cfn":
                    cfn = name
                continue
            if line.startswith("calls="):
                skip_next = True
                count = int(line.split("=")[1].split()[0])
                base = re.sub(r"[@(].*$", "", cfn)
                if base in LIBM or base.rstrip("f") in LIBM:
                    libm_calls[base] += count
                continue
            if not (line[0] in "0123456789+-*" or line.startswith("0x")):
                continue
            parts = line.split()
            pos = parts[0]
            if pos.startswith("0x"):
                addr = int(pos, 16)
            elif pos.startswith("+"):
                addr += int(pos[1:], 16) if pos[1:].startswith("0x") else int(pos[1:])
            elif pos.startswith("-"):
                addr -= int(pos[1:], 16) if pos[1:].startswith("0x") else int(pos[1:])
            if skip_next:  # the inclusive cost of a call: not this instruction's own
                skip_next = False
                continue
            if len(parts) >= 3:
                counts[addr] += int(parts[2])
    del current_fn
    return counts, libm_calls


def bench(binary, model, integrator, strands, vertices, steps, callgrind_out=None):
    cmd = [binary, "bench", "--model", model, "--integrator", integrator, "--backend", "cpu",
           "--precision", "float", "--collisions", "on", "--strands", str(strands),
           "--vertices", str(vertices), "--steps", str(steps)]
    # The policy set: hairsim would otherwise run itself again to set it (src/engine/threads.hpp),
    # an exec that callgrind does not follow.
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
    with tempfile.TemporaryDirectory() as tmp:
        rows_path = os.path.join(tmp, "rows.json")
        cmd += ["--json", rows_path]
        if callgrind_out:
            cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes",
                   f"--callgrind-out-file={callgrind_out}"] + cmd
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return json.load(open(rows_path))[0]


def flops_of_run(binary, weights, *args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        row = bench(binary, *args, callgrind_out=out)
        counts, libm = callgrind_instruction_counts(out)
    single = sum(n * weights[a][0] for a, n in counts.items() if a in weights)
    double = sum(n * weights[a][1] for a, n in counts.items() if a in weights)
    return single, double, libm, row


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build", "counting"))
    p.add_argument("--strands", type=int, default=64)
    p.add_argument("--vertices", type=int, default=32)
    p.add_argument("--steps", type=int, default=2, help="S: runs of S and S + 2 timed steps")
    p.add_argument("--json")
    # H100 SXM datasheet rates: HBM3 bandwidth, FP32 and FP64 (non-tensor) arithmetic.
    p.add_argument("--bandwidth", type=float, default=3.35e12, help="bytes/s")
    p.add_argument("--fp32", type=float, default=67e12, help="FLOP/s")
    p.add_argument("--fp64", type=float, default=34e12, help="FLOP/s")
    a = p.parse_args()
    binary = build(a.build)
    weights = flop_weights(binary)
    models = [line.split("\t") for line in subprocess.run(
        [binary, "models"], capture_output=True, text=True, check=True).stdout.splitlines()]
    rows = []
    for name, integrators, *_ in models:
        for integrator in integrators.split(","):
            case = (name, integrator, a.strands, a.vertices)
            s0, d0, libm0, row0 = flops_of_run(binary, weights, *case, a.steps)
            s1, d1, libm1, row1 = flops_of_run(binary, weights, *case, a.steps + 2)
            updates = 2.0 * a.strands * a.vertices
            row = {"model": name, "integrator": integrator, "precision": "float",
                   "collisions": True, "strands": a.strands, "vertices": a.vertices,
                   "load_bytes_per_svu": row1["load_bytes_per_svu"],
                   "store_bytes_per_svu": row1["store_bytes_per_svu"],
                   "single_flops_per_svu": (s1 - s0) / updates,
                   "double_flops_per_svu": (d1 - d0) / updates,
                   "libm_calls_per_svu": {k: (libm1[k] - libm0.get(k, 0)) / updates
                                          for k in libm1 if libm1[k] != libm0.get(k, 0)},
                   "work_counters": {k: v for k, v in row1.items() if k not in (
                       "model", "integrator", "collisions", "backend", "precision", "strands",
                       "vertices", "steps", "dt", "ran", "failed", "note", "device",
                       "ms_per_step", "svu_per_second", "seconds", "load_bytes_per_svu",
                       "store_bytes_per_svu")}}
            bytes_per_svu = row["load_bytes_per_svu"] + row["store_bytes_per_svu"]
            bounds = {"memory": a.bandwidth / bytes_per_svu,
                      "fp32": a.fp32 / max(row["single_flops_per_svu"], 1e-30),
                      "fp64": a.fp64 / max(row["double_flops_per_svu"], 1e-30)}
            row["roofline_svu_per_second"] = bounds
            row["roofline_bound"] = min(bounds, key=bounds.get)
            row["predicted_svu_per_second"] = min(bounds.values())
            rows.append(row)
            print(f"{name:9s} {integrator:10s} loads {row['load_bytes_per_svu']:8.1f} B  "
                  f"stores {row['store_bytes_per_svu']:8.1f} B  "
                  f"fp32 {row['single_flops_per_svu']:8.1f}  fp64 {row['double_flops_per_svu']:8.1f}"
                  f"  libm {row['libm_calls_per_svu']}  {row['work_counters']}  roofline "
                  f"{row['predicted_svu_per_second']:.3g} SVU/s ({row['roofline_bound']})",
                  flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    sys.exit(main())
