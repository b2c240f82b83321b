#!/usr/bin/env python3
"""Plots bench_super_helix's CSV files (issue 18): ms per step against the element count,
recursive and composite, log-log with the fitted slopes (Table 1's comparison), and the largest
stable time step against the element count (Fig. 6, left).

Usage: scripts/plot_super_helix_bench.py DIR OUT.png   (DIR holds super_helix_timing.csv and
super_helix_stability.csv). Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    n = len(lx)
    mx, my = sum(lx) / n, sum(ly) / n
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    folder, out = sys.argv[1], sys.argv[2]
    timing = read(f"{folder}/super_helix_timing.csv")
    stability = read(f"{folder}/super_helix_stability.csv")
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    n = [float(r["elements"]) for r in timing]
    for key, label in (("recursive_ms", "recursive (§4)"), ("composite_ms", "composite [BAC*06]")):
        y = [float(r[key]) for r in timing]
        left.loglog(n, y, "o-", label=f"{label}: slope {slope(n, y):.2f}")
    left.set_xlabel("elements N")
    left.set_ylabel("ms per semi-implicit step")
    left.set_title("One step of a falling 1 m rod (single thread)")
    left.grid(True, which="both", alpha=0.3)
    left.legend()
    n = [float(r["elements"]) for r in stability]
    for key, label, style in (("composite_dt", "composite", "o-"),
                              ("recursive_dt", "recursive", "s--"),
                              ("recursive_paper_dt", "recursive, paper's first pass", "^-")):
        right.semilogy(n, [float(r[key]) for r in stability], style, label=label)
    right.set_xlabel("elements N")
    right.set_ylabel("largest stable Δt (s)")
    right.set_title("Stability (Fig. 6 left): fall without damping")
    right.grid(True, which="both", alpha=0.3)
    right.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
