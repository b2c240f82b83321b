#!/usr/bin/env python3
"""The compiler's resource report of every CUDA kernel, and the occupancy it implies.

Usage: scripts/cuda_resources.py BUILD_DIR [--json FILE] [--arch sm_90]

Recompiles each .cu file of BUILD_DIR's compile_commands.json with `-Xptxas -v` (the same flags
the build used, the object thrown away) and prints, per kernel entry point: registers per thread,
stack frame, spill stores and loads, static shared memory, and the theoretical occupancy on an
H100 (compute capability 9.0) at the block size the kernel is launched with. Works without a GPU:
ptxas is part of nvcc. docs/gpu.md explains the columns and bench/RESULTS.md holds the table.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Hopper (sm_90) limits, CUDA C Programming Guide, "Compute Capabilities" table.
H100 = {
    "registers_per_sm": 65536,
    "register_unit": 256,  # registers are allocated per warp in units of 256
    "max_warps_per_sm": 64,
    "max_blocks_per_sm": 32,
    "shared_per_sm": 228 * 1024,
    "shared_reserved_per_block": 1024,
}


def occupancy(registers, block, shared=0, limits=H100):
    """Resident warps per SM / the maximum, from registers, block size and shared memory."""
    warps_per_block = -(-block // 32)
    per_warp = -(-registers * 32 // limits["register_unit"]) * limits["register_unit"]
    by_registers = limits["registers_per_sm"] // (per_warp * warps_per_block)
    by_warps = limits["max_warps_per_sm"] // warps_per_block
    by_shared = limits["shared_per_sm"] // (shared + limits["shared_reserved_per_block"])
    blocks = min(by_registers, by_warps, limits["max_blocks_per_sm"], by_shared)
    return blocks * warps_per_block / limits["max_warps_per_sm"], blocks


def launch_block(kernel, source_root):
    """The block size a kernel is launched with: every kernel over a model's batch (its traits
    or its arrays in the signature) uses the model's kCudaBlock (kernels/<model>/<model>_batch.hpp);
    another kernel is shown at 128, marked assumed."""
    m = re.search(r"kernels::(\w+)::\w+Batch(?:Arrays)?<", kernel)
    if m:
        model = m.group(1)
        path = os.path.join(source_root, "kernels", model, f"{model}_batch.hpp")
        if os.path.exists(path):
            found = re.search(r"kCudaBlock\s*=\s*(\d+)", open(path).read())
            if found:
                return int(found.group(1)), "kCudaBlock"
    return 128, "assumed"


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, out.stdout.splitlines())) if out.returncode == 0 else {n: n for n in names}


def short_name(kernel):
    """`batched_step_kernel<der, float>` from the demangled signature."""
    name = kernel.replace("(anonymous namespace)::", "").split("(")[0]
    model = re.search(r"kernels::(\w+)::\w+<(float|double)>", name)
    base = re.sub(r"^.*::", "", re.sub(r"<.*", "", name.replace("(anonymous namespace)::", "")))
    if model:
        return f"{base}<{model.group(1)}, {model.group(2)}>"
    prec = re.search(r"<(float|double)>", name)
    return f"{base}<{prec.group(1)}>" if prec else base


def parse_ptxas(text):
    """Entries of `ptxas -v` output: mangled name -> numbers."""
    kernels, current = {}, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '(\S+)' for '(\w+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = {"arch": m.group(2), "stack": 0, "spill_stores": 0,
                                "spill_loads": 0, "registers": 0, "shared": 0, "constant0": 0}
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m and "entry" not in kernels[current]:
            kernels[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                                    spill_loads=int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m:
            kernels[current]["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            kernels[current]["shared"] = int(s.group(1)) if s else 0
            c = re.search(r"(\d+) bytes cmem\[0\]", line)
            kernels[current]["constant0"] = int(c.group(1)) if c else 0
            kernels[current]["entry"] = True  # later "Function properties" lines are callees'
            current = None
    return kernels


def compile_with_ptxas_report(entry):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    with tempfile.TemporaryDirectory() as tmp:
        if "-o" in args:
            args[args.index("-o") + 1] = os.path.join(tmp, "resources.o")
        args += ["-Xptxas", "-v"]
        out = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cuda_resources: compiling {entry['file']} failed:\n{out.stderr[-2000:]}")
    return out.stdout + out.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("--json", help="also write the rows to this file")
    a = parser.parse_args()
    commands = os.path.join(a.build_dir, "compile_commands.json")
    if not os.path.exists(commands):
        sys.exit(f"cuda_resources: {commands}: not found (configure the build first)")
    entries = [e for e in json.load(open(commands)) if e["file"].endswith(".cu")]
    if not entries:
        sys.exit(f"cuda_resources: {commands}: no .cu file (was CUDA enabled in this build?)")
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = []
    for entry in sorted(entries, key=lambda e: e["file"]):
        kernels = parse_ptxas(compile_with_ptxas_report(entry))
        names = demangle(list(kernels))
        for mangled, k in kernels.items():
            full = names.get(mangled, mangled)
            block, block_source = launch_block(full, source_root)
            occ, blocks = occupancy(k["registers"], block, k["shared"])
            rows.append({"file": os.path.relpath(entry["file"], source_root),
                         "kernel": short_name(full), "signature": full, **k,
                         "block": block, "block_source": block_source,
                         "blocks_per_sm": blocks, "occupancy_h100": occ})
    print("| kernel | arch | registers | stack (B) | spill stores (B) | spill loads (B) "
          "| shared (B) | block | blocks/SM | occupancy (H100) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        block = f"{r['block']}" + ("" if r["block_source"] == "kCudaBlock" else " (assumed)")
        print(f"| `{r['kernel']}` | {r['arch']} | {r['registers']} | {r['stack']} "
              f"| {r['spill_stores']} | {r['spill_loads']} | {r['shared']} | {block} "
              f"| {r['blocks_per_sm']} | {100 * r['occupancy_h100']:.1f} % |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
