#!/usr/bin/env python3
"""The sweep's cost (bench/RESULTS.md, issue 43): a spec's variants run one after the other as
`hairsim run` processes, then as `hairsim sweep --local N`; wall times, the runs' own time (their
summaries' wall_time_s.total) and what is left per variant: the overhead.

    PYTHONPATH=build/ci/python /usr/bin/python3 scripts/sweep_bench.py build/ci/src/hairsim \\
        bench/sweep/sweep16.json --local 2 --out /tmp/sweep_bench
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import time

from hairsim import _sweep


def timed(command):
    t = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def main():
    p = argparse.ArgumentParser()
    p.add_argument("hairsim")
    p.add_argument("spec")
    p.add_argument("--local", type=int, default=2)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    spec = _sweep.load_spec(a.spec)
    shutil.rmtree(a.out, ignore_errors=True)
    n = len(spec.variants)
    load = os.getloadavg()[0]

    # One after the other, each its own `hairsim run` (OpenMP on every core).
    sequential, runs = 0.0, 0.0
    for v in spec.variants:
        out = os.path.join(a.out, "sequential", v.name)
        command = [a.hairsim, "run", spec.scene, "--out", out]
        for o in v.overrides:
            command += ["--set", o]
        sequential += timed(command)
        with open(os.path.join(out, "summary.json")) as f:
            runs += json.load(f)["wall_time_s"]["total"]

    out = os.path.join(a.out, "sweep")
    wall = timed([a.hairsim, "sweep", a.spec, "--local", str(a.local), "--out", out])
    with open(os.path.join(out, "sweep.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    again = timed([a.hairsim, "sweep", a.spec, "--local", str(a.local), "--out", out])
    assert all(r["status"] == "complete" for r in rows)
    swept = sum(float(r["wall_s"]) for r in rows)
    tasks = sum(float(r["task_s"]) for r in rows)
    print(f"variants {n}, workers {a.local}, cores {os.cpu_count()}, load average (1 min) "
          f"{load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"sequential `hairsim run`: wall {sequential:.2f} s, runs' own {runs:.2f} s, "
          f"overhead {(sequential - runs) / n * 1e3:.0f} ms a run")
    print(f"`hairsim sweep --local {a.local}`: wall {wall:.2f} s, runs' own {swept:.2f} s, "
          f"tasks {tasks:.2f} s; on the workers {(tasks - swept) / n * 1e3:.0f} ms a task beyond "
          f"its run; all told {(a.local * wall - swept) / n * 1e3:.0f} ms a task "
          f"(workers x wall - runs, over the variants)")
    print(f"the same sweep again (every variant complete: skipped, no cluster): {again:.2f} s")


if __name__ == "__main__":
    main()
