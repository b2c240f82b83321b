"""hairsim sweep (issue 43) on a LocalCluster of 2 worker processes, run by ctest (Python.Sweep).

Expected values come from the variants' own summary.json files and frames, from an unkilled run
of the same variant (the resumed run must equal it to the bit: docs/scenes.md, checkpoints on the
cpu backend) and from the spec's values. Each variant: 12 strands of 10 vertices, 40 frames,
about 0.5 s on one core of the 2-core CI machine.
"""
import csv
import json
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import hairsim
from hairsim import _hairsim, _sweep
from test_hairsim import small_scene

pytest.importorskip("distributed", reason="python3-distributed (scripts/install-deps.sh)")
# Debian's tornado 6.2 under distributed 2022.12 (a worker restarted after its kill).
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")

CLI = os.environ.get("HAIRSIM_CLI", "hairsim")
FRAMES = 40
# test_hairsim's 12 strands of 10 vertices on a shaking head, with frames and previews.
SCENE = small_scene(output={"frames": "ply", "png_every": 10, "width": 96, "height": 96})
GRID = {"material.youngs_modulus": [1e9, 3e9], "head.motion.frequency": [1, 2]}


def write_spec(folder, **fields):
    (folder / "scene.json").write_text(json.dumps(SCENE))
    spec = {"scene": "scene.json", "set": {"time.frames": FRAMES, "output.checkpoint_every": 2}}
    spec.update(fields)
    path = folder / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def last_frame(folder):
    return (folder / "frames" / f"frame_{FRAMES:05d}.ply").read_bytes()


@pytest.fixture(scope="module")
def grid_sweep(tmp_path_factory):
    """The 2 x 2 grid through the C++ verb (`hairsim sweep`, handed to Python): (out, result)."""
    folder = tmp_path_factory.mktemp("grid")
    spec = write_spec(folder, grid=GRID)
    out = folder / "out"
    result = subprocess.run([CLI, "sweep", str(spec), "--local", "2", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    return out, result


def read_rows(out):
    with open(out / "sweep.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_grid_completes_with_a_row_per_variant(grid_sweep):
    out, result = grid_sweep
    assert result.returncode == 0, result.stderr
    assert "4/4 done (0 failed, 0 skipped)" in result.stderr  # the progress lines
    rows = read_rows(out)
    assert len(rows) == 4
    combos = [(e, f) for e in GRID["material.youngs_modulus"]
              for f in GRID["head.motion.frequency"]]
    for row, (modulus, frequency) in zip(rows, combos):
        assert float(row["material.youngs_modulus"]) == modulus
        assert float(row["head.motion.frequency"]) == frequency
        folder = out / row["folder"]
        summary = json.loads((folder / "summary.json").read_text())
        variant = json.loads((folder / "variant.json").read_text())
        assert f"material.youngs_modulus={json.dumps(modulus)}" in variant["overrides"]
        assert row["status"] == summary["status"] == "complete"
        assert row["action"] == "ran"
        assert int(row["frames"]) == summary["frames"] == FRAMES
        assert int(row["steps"]) == summary["steps"]
        assert row["backend"] == summary["backend"] and row["device"] == summary["device"]
        for key in ("max_stretch", "max_drift_from_groom_m", "max_speed_m_s", "contacts_per_step"):
            assert float(row[key]) == summary[key], key  # Python's repr round-trips
        assert float(row["wall_s"]) == summary["wall_time_s"]["total"]
    # The variants differ: the stiffer hair and the faster shake are other runs.
    assert len({r["max_drift_from_groom_m"] for r in rows}) == 4


def test_contact_sheet_holds_every_last_preview(grid_sweep):
    # 96 px previews are their own thumbnails (no shrinking): 2 x 2 cells of 96 px, 4 px apart,
    # each cell the variant's last preview to the byte; the last grid key's values across.
    out, _ = grid_sweep
    sheet = _hairsim._read_png(str(out / "contact_sheet.png"))
    assert sheet.shape == (2 * 100 + 4, 2 * 100 + 4, 3)
    for i, row in enumerate(read_rows(out)):
        preview = _hairsim._read_png(str(out / row["folder"] / "png" / f"frame_{FRAMES:05d}.png"))
        y, x = 4 + (i // 2) * 100, 4 + (i % 2) * 100
        np.testing.assert_array_equal(sheet[y:y + 96, x:x + 96], preview)


def test_png_round_trip(tmp_path):
    # The contact sheet's PNG input and output (libpng, src/render/png.cpp): every byte back;
    # a file that is not a PNG raises Error naming it.
    rgb = np.random.default_rng(4).integers(0, 256, size=(7, 11, 3), dtype=np.uint8)
    _hairsim._write_png(str(tmp_path / "a.png"), rgb)
    np.testing.assert_array_equal(_hairsim._read_png(str(tmp_path / "a.png")), rgb)
    (tmp_path / "b.png").write_text("not a png")
    with pytest.raises(hairsim.Error, match="b.png"):
        _hairsim._read_png(str(tmp_path / "b.png"))


def test_rerun_skips_the_finished_variants(grid_sweep):
    out, _ = grid_sweep
    before = {p: p.stat().st_mtime_ns for p in out.glob("*/summary.json")}
    t = time.monotonic()
    table = hairsim.sweep(out.parent / "spec.json", out, local=2, progress=None)
    assert time.monotonic() - t < 5  # no cluster is started for nothing to run
    assert list(table["action"]) == ["skipped"] * 4
    assert list(table["status"]) == ["complete"] * 4
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/summary.json")} == before


def kill_worker_mid_run(folder_prefix, out, killed):
    """SIGKILL the worker process running the variant whose folder starts with the prefix, once
    it has written frame 6 (checkpoints every 2 frames): its pid is in the run's lock file."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        folders = list(out.glob(folder_prefix + "*")) if out.is_dir() else []
        if folders:
            try:
                summary = json.loads((folders[0] / "summary.json").read_text())
                if summary["status"] == "running" and summary["frames"] >= 6:
                    pid = int((folders[0] / ".hairsim.lock").read_text())
                    os.kill(pid, signal.SIGKILL)
                    killed.append((pid, summary["frames"]))
                    return
            except (OSError, ValueError, KeyError):
                pass  # not written yet, or being replaced
        time.sleep(0.005)


def test_killed_worker_resumes_to_the_same_frames(tmp_path, grid_sweep):
    reference, _ = grid_sweep
    spec = write_spec(tmp_path, grid=GRID)
    out = tmp_path / "out"
    killed = []
    killer = threading.Thread(target=kill_worker_mid_run, args=("000-", out, killed))
    killer.start()
    table = hairsim.sweep(spec, out, local=2, progress=None)
    killer.join()
    assert killed and killed[0][0] != os.getpid(), "the worker was not killed mid-run"
    row = table.iloc[0]
    assert row["status"] == "complete" and row["action"] == "resumed"
    # From its last checkpoint (every 2 frames; the kill came at frame 6 or a frame or two later),
    # not from the start and not after the end.
    assert 2 <= row["resumed_from_frame"] < FRAMES
    assert list(table["status"]) == ["complete"] * 4
    # The same final frame and energies as the unkilled run of the grid sweep, to the bit.
    folder, unkilled = out / row["folder"], reference / row["folder"]
    assert last_frame(folder) == last_frame(unkilled)
    energy = json.loads((folder / "summary.json").read_text())["energy"]
    assert energy == json.loads((unkilled / "summary.json").read_text())["energy"]


def test_a_checkpoint_that_cannot_be_resumed_runs_again(tmp_path):
    # The task itself, in this process: a variant stopped "running" whose checkpoint.bin is
    # damaged (as another build's would be refused) runs from its start, saying why.
    spec = _sweep.load_spec(write_spec(tmp_path, variants=[{"damping": 1.0}]))
    folder = tmp_path / "variant"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({"status": "running", "frames": 4}))
    (folder / "checkpoint.bin").write_bytes(b"not a checkpoint")
    result = _sweep.run_variant(spec.scene, spec.variants[0].overrides, str(folder))
    assert result["action"] == "restarted" and result["status"] == "complete"
    assert result["checkpoint"]["resumed_from_frame"] == -1 and result["frames"] == FRAMES
    assert "not resumed: " in result["notice"] and "checkpoint.bin" in result["notice"]


def test_a_diverged_variant_is_recorded_and_the_others_go_on(tmp_path):
    spec = write_spec(tmp_path, variants=[{"guard.max_speed": 0.05}, {"damping": 1.0}])
    table = hairsim.sweep(spec, tmp_path / "out", local=2, progress=None)
    assert list(table["status"]) == ["diverged", "complete"]
    assert "guard.max_speed" in table.iloc[0]["reason"]
    assert np.isnan(table.iloc[0]["damping"]) and table.iloc[1]["damping"] == 1.0


@pytest.mark.parametrize("spec, message", [
    ("{", "spec.json: not JSON"),
    ({"set": {}}, "spec.json: scene: must name the base scene file"),
    ({"scene": "missing.json", "grid": GRID}, "spec.json: scene: no such file"),
    ({"scene": "scene.json"}, "spec.json: grid: give either grid"),
    ({"scene": "scene.json", "grid": GRID, "variants": [{}]}, "spec.json: grid: give either"),
    ({"scene": "scene.json", "grid": {"damping": []}}, 'spec.json: grid["damping"]: must be a'),
    ({"scene": "scene.json", "grid": {"damping": [0.5, -1]}},
     'spec.json: grid["damping"][1]: '),
    ({"scene": "scene.json", "variants": [{"no_such_field": 1}]},
     "spec.json: variants[0]: "),
    ({"scene": "scene.json", "set": {"damping": 1}, "grid": {"damping": [1]}},
     'spec.json: grid["damping"]: is also in set'),
    ({"scene": "scene.json", "grid": GRID, "seed": 1}, "spec.json: seed: unknown field"),
])
def test_bad_spec_is_refused_with_exit_2_and_nothing_written(tmp_path, spec, message):
    (tmp_path / "scene.json").write_text(json.dumps(SCENE))
    path = tmp_path / "spec.json"
    path.write_text(spec if isinstance(spec, str) else json.dumps(spec))
    out = tmp_path / "out"
    result = subprocess.run([CLI, "sweep", str(path), "--out", str(out)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hairsim: error: ") and message in lines[0]
    assert not out.exists()


def test_an_edited_spec_is_refused_in_the_old_folder(grid_sweep):
    # The same grid with another "set": the same folder names, other runs: refused (exit 2,
    # naming the folder; nothing there changes).
    out, _ = grid_sweep
    spec = out.parent / "edited.json"
    spec.write_text(json.dumps({"scene": "scene.json", "set": {"time.frames": FRAMES // 2},
                                "grid": GRID}))
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    result = subprocess.run([CLI, "sweep", str(spec), "--out", str(out)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("hairsim: error: --out: ")
    assert "000-youngs_modulus=1e+09-frequency=1 holds another variant" in result.stderr
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before
