"""docs/python.md's sweep example: a stiffness study. Hair's Young's modulus from 0.5 to 8 GPa
on a head shaken at 1 and 2 Hz (python/examples/stiffness/spec.json, 10 variants) run by
hairsim.sweep on a LocalCluster, and how far the hair leaves its groom plotted against it.

    PYTHONPATH=build/ci/python python3 python/examples/stiffness_study.py out/stiffness \\
        docs/python_stiffness_study.png
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

import hairsim

if __name__ == "__main__":  # the LocalCluster's worker processes import this file again
    spec = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stiffness", "spec.json")
    table = hairsim.sweep(spec, sys.argv[1], local=2)
    print(table[["head.motion.frequency", "material.youngs_modulus", "status",
                 "max_drift_from_groom_m", "wall_s", "task_s"]].to_string(index=False))

    fig, ax = plt.subplots(figsize=(5, 3.2), dpi=100)
    for frequency, runs in table.groupby("head.motion.frequency"):
        ax.plot(runs["material.youngs_modulus"] / 1e9, runs["max_drift_from_groom_m"] * 100,
                "o-", label=f"shake at {frequency:g} Hz")
    ax.set_xscale("log")
    ax.set_xticks([0.5, 1, 2, 4, 8], ["0.5", "1", "2", "4", "8"])
    ax.set_xlabel("Young's modulus (GPa)")
    ax.set_ylabel("largest drift from the groom (cm)")
    ax.set_title("100 wavy strands, 1.5 s of a 0.6 rad shake", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2])
