"""docs/python.md's worked example: one scene on the reference and the cpu backend, the
difference between them, and a strand tip's trajectory plotted with matplotlib.

    PYTHONPATH=build/ci/python python3 python/examples/tip_trajectory.py docs/python_tip_trajectory.png
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import hairsim

scene = hairsim.Scene({
    "model": "der",
    "hair": {"generate": {"style": "wavy", "strands": 40, "seed": 3}, "vertices": 16},
    "damping": 0.5,
    "head": {"motion": {"type": "shake", "amplitude": 0.6, "frequency": 1.5},
             "colliders": [{"shape": "ellipsoid", "radii": [0.075, 0.095, 0.095]}]},
    "time": {"fps": 30, "frames": 45},
})
reference = hairsim.Simulator(scene, backend="reference", precision="double")
cpu = hairsim.Simulator(scene, backend="cpu", precision="double")
print("model", cpu.summary()["model"], "| dt", cpu.dt, "s |", cpu.strands, "strands x",
      cpu.vertices, "vertices | cpu backend on", cpu.device)

strand = 7
tips = {"reference": [], "cpu": []}
times = []
for k in range(int(1.5 / cpu.dt)):
    reference.step()
    cpu.step()
    if k % 5 == 0:
        times.append(cpu.time)
        tips["reference"].append(reference.positions()[strand, -1])
        tips["cpu"].append(cpu.positions()[strand, -1])
gap = np.abs(reference.positions() - cpu.positions()).max()
print(f"after {cpu.steps} steps: largest reference-cpu difference {gap:.2e} m;",
      "cpu counters", cpu.counters())

tip = {name: np.array(path) for name, path in tips.items()}
fig, (side, top) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=100)
for name, style in (("reference", "-"), ("cpu", "--")):
    side.plot(times, tip[name][:, 0] * 100, style, label=f"x, {name}")
    side.plot(times, tip[name][:, 1] * 100, style, label=f"y, {name}")
    top.plot(tip[name][:, 0] * 100, tip[name][:, 2] * 100, style, label=name)
side.set_xlabel("time (s)")
side.set_ylabel("tip position (cm)")
side.set_title(f"strand {strand}'s tip, head shaking 0.6 rad at 1.5 Hz")
side.legend(fontsize=8)
top.set_xlabel("x (cm)")
top.set_ylabel("z (cm)")
top.set_title(f"seen from above; max difference {gap:.1e} m")
top.set_aspect("equal", adjustable="datalim")
top.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[1] if len(sys.argv) > 1 else "tip_trajectory.png")
