#!/usr/bin/env python3
"""Validation 7 of the Super Space Clothoids (issue 20; the paper's §8.1 benchmark a): total
energy against time of scenes/validation/swinging_rod.json for SSC (5 elements) and DER's
linearly implicit step (50 edges) at Δt = 11 and 33 ms, as one PNG.

Usage: scripts/plot_swinging_rod.py HAIRSIM OUT.png   (runs the four scenes in a scratch folder).
Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes", "validation",
                     "swinging_rod.json")


def run(hairsim, out, dt, extra):
    steps = round(3 / dt)
    subprocess.run([hairsim, "run", SCENE, "--set", f"time.dt={dt}", "--set", f"time.steps={steps}",
                    "--out", out] + extra, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "trace.csv")) as f:
        rows = list(csv.DictReader(f))
    t = [float(r["time_s"]) for r in rows]
    e = [float(r["kinetic_J"]) + float(r["elastic_J"]) + float(r.get("stretching_J") or 0) +
         float(r["gravity_J"]) for r in rows]
    return t, [x - e[0] for x in e]


def main():
    hairsim, png = sys.argv[1], sys.argv[2]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    with tempfile.TemporaryDirectory() as tmp:
        for dt, style in ((0.011, "-"), (0.033, "--")):
            ms = round(dt * 1000)
            t, e = run(hairsim, os.path.join(tmp, f"ssc{ms}"), dt, ["--set", "rod.elements=5"])
            ax.plot(t, e, style, color="tab:blue", label=f"SSC, 5 elements, Δt = {ms} ms")
            t, e = run(hairsim, os.path.join(tmp, f"der{ms}"), dt,
                       ["--model", "der", "--set", "time.integrator=implicit"])
            ax.plot(t, e, style, color="tab:red", label=f"DER implicit, 50 edges, Δt = {ms} ms")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("total energy − initial (J)")
    ax.set_title("A 1 m rod swinging under gravity without friction (potential released ≈ 0.045 J)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
