#!/usr/bin/env python3
"""Issue 20's benchmark: the four rod models' references on the same single rods.

1. Cost of one step against the resolution N (elements for super_clothoid and super_helix,
   edges for der and cosserat): scenes/validation/swinging_rod.json, Δt = 1 ms, 200 steps,
   wall_time_s / steps from summary.json (scene set-up, e.g. the Super-Helix's fit, excluded).
2. Accuracy against cost (the paper's Fig. 9 right): scenes/validation/curly_hanging.json,
   static, the tip's distance / L from a converged super_clothoid (24 elements), against the
   wall time of the solve.

Usage: scripts/bench_rod_models.py HAIRSIM OUT_DIR   (writes rod_models_steps.csv,
rod_models_accuracy.csv and rod_models.png). Needs matplotlib (Debian: python3-matplotlib).
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SWING = os.path.join(ROOT, "scenes", "validation", "swinging_rod.json")
CURL_SCENE = os.path.join(ROOT, "scenes", "validation", "curly_hanging.json")

# Per model: the --set that fixes its resolution, extra settings, the resolutions timed.
MODELS = {
    "super_clothoid": ("rod.elements", [], [1, 2, 4, 8, 16, 32]),
    "super_helix": ("rod.elements", [], [1, 2, 4, 8, 16, 32, 64]),
    "der": ("rod.edges", ["time.integrator=implicit"], [4, 8, 16, 32, 64, 128, 256]),
    "cosserat": ("rod.edges", ["time.integrator=implicit"], [4, 8, 16, 32, 64, 128]),
}
# Per model for the curl: extra settings, the resolutions solved.
CURL = {
    "super_clothoid": ([], [2, 4, 6, 8, 12]),
    "super_helix": ([], [5, 10, 20, 30, 50]),
    "der": (["time.integrator=implicit", "material.stretching_stiffness=1000"],
            [50, 100, 200, 400]),
    "cosserat": ([], [50, 100, 200]),
}


def run(hairsim, scene, model, sets, out):
    args = [hairsim, "run", scene, "--model", model, "--out", out]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def main():
    hairsim, out_dir = sys.argv[1], sys.argv[2]
    steps_rows, accuracy_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for model, (field, extra, resolutions) in MODELS.items():
            for n in resolutions:
                s = run(hairsim, SWING, model, [f"{field}={n}", "time.dt=0.001", "time.steps=200",
                                                "output.trace_every=0"] + extra,
                        os.path.join(tmp, f"{model}{n}"))
                steps_rows.append({"model": model, "n": n,
                                   "ms_per_step": 1000 * s["wall_time_s"] / 200})
                print(model, n, steps_rows[-1]["ms_per_step"], "ms/step", flush=True)
        ref = run(hairsim, CURL_SCENE, "super_clothoid", ["rod.elements=24"],
                  os.path.join(tmp, "ref"))
        tip_ref, length = ref["tip_position_m"], ref["length_m"]
        for model, (extra, resolutions) in CURL.items():
            field = MODELS[model][0]
            for n in resolutions:
                s = run(hairsim, CURL_SCENE, model, [f"{field}={n}"] + extra,
                        os.path.join(tmp, f"c{model}{n}"))
                error = math.dist(s["tip_position_m"], tip_ref) / length
                accuracy_rows.append({"model": model, "n": n, "error_L": error,
                                      "wall_s": s["wall_time_s"]})
                print(model, n, error, "L", s["wall_time_s"], "s", flush=True)
    for name, rows in (("rod_models_steps.csv", steps_rows),
                       ("rod_models_accuracy.csv", accuracy_rows)):
        with open(os.path.join(out_dir, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8))
    for model in MODELS:
        r = [x for x in steps_rows if x["model"] == model]
        a.loglog([x["n"] for x in r], [x["ms_per_step"] for x in r], "o-", label=model)
        r = [x for x in accuracy_rows if x["model"] == model]
        b.loglog([x["wall_s"] for x in r], [x["error_L"] for x in r], "o-", label=model)
    a.set_xlabel("elements (super_*) or edges (der, cosserat)")
    a.set_ylabel("ms per step (reference, one thread's work)")
    a.set_title("One step of a falling 1 m rod")
    b.set_xlabel("wall time of the static solve (s)")
    b.set_ylabel("tip distance / L from the converged shape")
    b.set_title("Hanging 2-turn curl: accuracy against cost")
    b.axhline(1e-3, color="gray", lw=0.8, ls=":")
    for ax in (a, b):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "rod_models.png"), dpi=110)


if __name__ == "__main__":
    main()
