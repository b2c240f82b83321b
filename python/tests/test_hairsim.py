"""The Python API (issue 26), run by ctest (Python.Pytest) on the build tree's package.

Expected values come from the CLI (the same scene's summary.json), the files themselves (a round
trip), the parity bounds of tests/parity (reference vs cpu) and the GIL's contract.
"""
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import hairsim

SOURCE = os.environ.get("HAIRSIM_SOURCE_DIR",
                        os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("HAIRSIM_CLI", "hairsim")
DATA = os.path.join(SOURCE, "tests", "data")


def small_scene(**changes):
    """12 wavy strands of 10 vertices on a shaking head with the scalp ellipsoid, 6 frames."""
    scene = {
        "backend": "cpu", "precision": "double",
        "hair": {"generate": {"style": "wavy", "strands": 12, "seed": 5}, "vertices": 10},
        "damping": 0.5,
        "head": {"motion": {"type": "shake", "amplitude": 0.5, "frequency": 1.5},
                 "colliders": [{"shape": "ellipsoid", "radii": [0.075, 0.095, 0.095]}]},
        "time": {"fps": 30, "frames": 6},
        "output": {"frames": "none", "usd": False},
    }
    scene.update(changes)
    return scene


def test_strand_file_round_trip(tmp_path):
    # The Bangs fixture (millimetres) read, written as PLY in metres and read back: the same
    # strands; float32 PLY coordinates keep 7 digits (1e-7 relative of 0.3 m).
    points, counts = hairsim.read_strands(os.path.join(DATA, "Bangs_100.hair"), units="mm")
    assert points.dtype == np.float64 and points.shape[1] == 3
    assert counts.sum() == len(points) and len(counts) == 100
    assert 0.05 < np.abs(points).max() < 1.0  # metres, a head's size
    out = tmp_path / "bangs.ply"
    hairsim.write_strands(out, points, counts)
    back, back_counts = hairsim.read_strands(out)
    np.testing.assert_array_equal(back_counts, counts)
    np.testing.assert_allclose(back, points, rtol=0, atol=1e-7)


def test_generate_and_bad_strands():
    points, counts = hairsim.generate("curly", strands=7, vertices=9, seed=3)
    assert points.shape == (63, 3) and list(counts) == [9] * 7
    with pytest.raises(hairsim.Error) as e:
        hairsim.write_strands("never.ply", points, [9] * 6)
    assert e.value.field == "counts" and "sum to 54 vertices, points has 63" in str(e.value)
    assert not os.path.exists("never.ply")


def test_models_and_backends():
    names = [m["name"] for m in hairsim.models()]
    assert names[:2] == ["der", "cosserat"]
    assert hairsim.models()[1]["integrators"] == ["implicit"]
    assert hairsim.backends()[:2] == ["reference", "cpu"]


def test_scene_from_dict_matches_the_cli(tmp_path):
    # The same scene run by hairsim.run and by `hairsim run`: the same summary (steps, frames,
    # energies, contacts, counters), to the last digit (one engine, the same arithmetic).
    scene = small_scene()
    summary = hairsim.run(scene, tmp_path / "py")
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    subprocess.run([CLI, "run", str(path), "--out", str(tmp_path / "cli")], check=True,
                   stdout=subprocess.DEVNULL)
    cli = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert summary["status"] == cli["status"] == "complete"
    for key in ("frames", "steps", "strands", "energy", "max_stretch", "contacts_per_step"):
        assert summary[key] == cli[key], key
    assert json.loads((tmp_path / "py" / "summary.json").read_text())["energy"] == cli["energy"]


def test_reference_and_cpu_agree():
    # DER's linearly implicit step, double, no collider: the batched cpu backend within 1e-9 L
    # of the reference after 100 steps (the parity bound of tests/parity/test_every_model.cpp).
    scene = hairsim.Scene(small_scene(head={"motion": {"type": "shake", "amplitude": 0.5,
                                                       "frequency": 1.5}}))
    ref = hairsim.Simulator(scene, backend="reference", precision="double")
    cpu = hairsim.Simulator(scene, backend="cpu", precision="double")
    ref.step(100)
    cpu.step(100)
    x_ref, x_cpu = ref.positions(), cpu.positions()
    assert x_ref.shape == x_cpu.shape == (12, 10, 3) and x_cpu.dtype == np.float64
    length = np.linalg.norm(np.diff(x_ref, axis=1), axis=2).sum(axis=1).max()
    assert np.abs(x_ref - x_cpu).max() <= 1e-9 * length
    assert ref.steps == cpu.steps == 100 and abs(cpu.time - 100 * cpu.dt) < 1e-15
    moved = np.abs(x_cpu - scene.initial_strands()[0].reshape(12, 10, 3)).max()
    assert moved > 1e-3  # the hair moved: the comparison is not of two resting grooms
    assert set(cpu.counters()) >= {"contacts", "solver_failures"}


def test_float_precision_gives_float32():
    sim = hairsim.Simulator(small_scene(), precision="float")
    sim.step(3)
    assert sim.positions().dtype == np.float32 and sim.velocities().dtype == np.float32
    assert sim.summary()["precision"] == "float"


@pytest.mark.parametrize("change, field", [
    ({"damping": -1}, "damping"),
    ({"time": {"fps": 0}}, "time.fps"),
    ({"model": "superhelix"}, "model"),
    ({"hair": {"generate": {"style": "afro"}}}, "hair.generate.style"),
])
def test_bad_input_names_the_field(change, field):
    with pytest.raises(hairsim.Error) as e:
        hairsim.Scene(small_scene(**change))
    assert e.value.field == field, str(e.value)
    assert str(e.value).startswith(field + ": ")


def test_bad_file_names_file_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(small_scene(damping=-1)))
    with pytest.raises(hairsim.Error) as e:
        hairsim.Scene(path)
    assert str(e.value).startswith(f"{path}: damping: ")
    with pytest.raises(hairsim.Error):
        hairsim.Scene(tmp_path / "missing.json")
    with pytest.raises(ValueError):  # hairsim.Error is a ValueError
        hairsim.Simulator(small_scene(), backend="gpu")


def test_head_driven_from_python():
    # A head translated 2 cm along x over 20 steps from Python: the roots follow it (the root
    # is clamped to the head), to round-off.
    scene = small_scene(head={"motion": {"type": "still"}})
    sim = hairsim.Simulator(scene, drive_head=True)
    roots0 = sim.positions()[:, 0, :].copy()
    for k in range(1, 21):
        sim.set_head_pose([0.001 * k, 0.0, 0.0])
        sim.step()
    roots = sim.positions()[:, 0, :]
    np.testing.assert_allclose(roots - roots0, np.tile([0.02, 0, 0], (12, 1)), atol=1e-12)
    with pytest.raises(hairsim.Error):
        hairsim.Simulator(scene).set_head_pose([0, 0, 0])


def test_state_save_and_restore():
    sim = hairsim.Simulator(small_scene())
    sim.step(5)
    state = sim.save_state()
    sim.step(5)
    first = sim.positions()
    sim.restore_state(state)
    sim.step(5)
    np.testing.assert_array_equal(sim.positions(), first)


def test_step_releases_the_gil():
    # A long step in a second thread, timed inside that thread; the main thread notes the time
    # every 100 loop iterations meanwhile. With the GIL held through the step, the main thread
    # could not run between the step's start and end: no note would fall inside it.
    sim = hairsim.Simulator(small_scene(hair={"generate": {"style": "curly", "strands": 200},
                                              "vertices": 24},
                                        model="cosserat", precision="double"))
    span = {}

    def work():
        span["start"] = time.perf_counter()
        sim.step(30)
        span["end"] = time.perf_counter()

    t = threading.Thread(target=work)
    notes = []
    spins = 0
    t.start()
    while t.is_alive():
        spins += 1
        if spins % 100 == 0:
            notes.append(time.perf_counter())
    t.join()
    start, end = span["start"], span["end"]
    assert end - start > 0.05, "the step was too short to tell"
    margin = 0.1 * (end - start)
    inside = [n for n in notes if start + margin < n < end - margin]
    assert len(inside) > 10, f"{len(inside)} notes of the main thread during the step"


def test_bench_row():
    row = hairsim.bench(model="der", backend="cpu", precision="float", strands=8, vertices=6,
                        steps=2)
    assert row["ran"] and row["svu_per_second"] > 0 and row["strands"] == 8
    # Sizes outside the generator's ranges are the caller's error, not a skipped row.
    with pytest.raises(hairsim.Error) as e:
        hairsim.bench(strands=10, vertices=10**6, steps=1)
    assert e.value.field == "--vertices" and "between 3 and 100000" in str(e.value)


def test_generate_refuses_what_memory_cannot_hold():
    # 1e7 strands of 1e5 vertices (1e12 points) raised MemoryError from std::bad_alloc.
    with pytest.raises(hairsim.Error) as e:
        hairsim.generate(strands=10**7, vertices=10**5)
    assert e.value.field == "strands" and "needs about" in str(e.value)
    cuda = hairsim.bench(backend="cuda", strands=8, vertices=6, steps=1)
    assert cuda["ran"] or cuda["note"]


# --- the run path shared with the CLI, sizes checked, states of another setup ----------------

def test_run_refuses_a_folder_a_cli_run_holds(tmp_path):
    # The reporter's case: `hairsim run` writing 30 strands into a folder, hairsim.run of 5
    # strands into the same one. Before, both wrote there (frames of 5 and 30 strands mixed) and
    # both said complete; now the Python run is refused by the CLI's lock (one run path).
    out = tmp_path / "out"
    cli_scene = small_scene(hair={"generate": {"style": "wavy", "strands": 30, "seed": 5},
                                  "vertices": 10},
                            time={"fps": 30, "frames": 100000},
                            output={"frames": "ply", "usd": False})
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(cli_scene))
    cli = subprocess.Popen([CLI, "run", str(path), "--out", str(out)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while not (out / "frames" / "frame_00001.ply").exists() and time.time() < deadline:
            time.sleep(0.02)
        assert (out / "frames" / "frame_00001.ply").exists(), "the CLI run wrote no frame"
        with pytest.raises(hairsim.Error) as e:
            hairsim.run(small_scene(output={"frames": "ply", "usd": False}), out)
        assert e.value.field == "out"
        assert f"is in use by another run (process {cli.pid}" in str(e.value)
    finally:
        cli.terminate()
        cli.wait(timeout=60)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["strands"] == 30
    frames = sorted((out / "frames").iterdir())
    assert len(frames) == summary["frames"] + 1
    for frame in frames:  # the CLI's alone
        assert len(hairsim.read_strands(frame)[1]) == 30, frame.name


def test_counts_whose_sum_overflows_are_refused(tmp_path):
    # [2**63-1, 2**63-1, 6] summed to 4 in 64 bits: the check passed and the writer ran away in
    # memory. Each count is now compared with the points left.
    points = np.zeros((6, 3))
    out = tmp_path / "never.ply"
    for counts, why in [([2**63 - 1, 2**63 - 1, 6], "sum to more than the 6 points"),
                        ([3, 2**63 - 1], "sum to more than the 6 points"),
                        ([2**64, 3], "must be integers"),
                        (np.array([2**63, 3], dtype=np.uint64), "beyond 2**63 - 1"),
                        ([2.5, 3.5], "whole numbers"),
                        ([3, 3, 2], "sum to more than the 6 points"),
                        ([True, True], "must be integers")]:
        with pytest.raises(hairsim.Error) as e:
            hairsim.write_strands(out, points, counts)
        assert e.value.field == "counts", counts
        assert why in str(e.value), (counts, str(e.value))
        assert not out.exists()
    hairsim.write_strands(out, np.arange(18.0).reshape(6, 3), [3.0, 3])  # whole floats: taken
    assert list(hairsim.read_strands(out)[1]) == [3, 3]


@pytest.mark.parametrize("call, field", [
    (lambda: hairsim.generate(strands=2**40), "strands"),
    (lambda: hairsim.generate(vertices=2.5), "vertices"),
    (lambda: hairsim.generate(seed=-1), "seed"),
    (lambda: hairsim.bench(strands=2**31), "strands"),
    (lambda: hairsim.bench(steps=None), "steps"),
    (lambda: hairsim.Simulator(small_scene()).step(2**31), "n"),
    (lambda: hairsim.Simulator(small_scene(), drive_head=True).set_head_pose([0, 0]),
     "translation"),
    (lambda: hairsim.Simulator(small_scene(), drive_head=True).set_head_pose([0, 0, 0],
                                                                             [0, np.nan, 0]),
     "rotation"),
])
def test_sizes_are_checked_before_the_native_module(call, field):
    # Python's integers are unbounded: one past the native int raised a TypeError naming
    # nothing; now hairsim.Error naming the argument.
    with pytest.raises(hairsim.Error) as e:
        call()
    assert e.value.field == field, str(e.value)


def test_restore_state_refuses_another_setup():
    # The reporter's case: a 21-strand state restored into a 20-strand simulator silently.
    def simulator(strands, **options):
        return hairsim.Simulator(small_scene(hair={"generate": {"style": "wavy",
                                                                "strands": strands, "seed": 5},
                                                   "vertices": 10}), **options)

    twenty, twenty_one = simulator(20), simulator(21)
    twenty_one.step(2)
    twenty.step(1)
    before = twenty.positions()
    with pytest.raises(hairsim.Error) as e:
        twenty.restore_state(twenty_one.save_state())
    assert e.value.field == "state"
    assert "strands 21 in the state, 20 in this simulator" in str(e.value)
    np.testing.assert_array_equal(twenty.positions(), before)  # unchanged
    assert twenty.steps == 1
    with pytest.raises(hairsim.Error) as e:
        twenty.restore_state(simulator(20, precision="float").save_state())
    assert 'precision "float" in the state, "double" in this simulator' in str(e.value)
    with pytest.raises(hairsim.Error) as e:
        twenty.restore_state(simulator(20, model="cosserat").save_state())
    assert 'model "cosserat" in the state, "der" in this simulator' in str(e.value)


def test_simulator_takes_every_model():
    # model= raised "the setup's model settings are another model's" for every model but the
    # scene's: it patched the options, not the model's settings. It now parses the scene with
    # the model, as overrides=["model=..."] does.
    scene = hairsim.Scene(small_scene(hair={"generate": {"style": "wavy", "strands": 3,
                                                         "seed": 5}, "vertices": 10}))
    for model in [m["name"] for m in hairsim.models() if "cpu" in m["backends"]]:
        sim = hairsim.Simulator(scene, model=model)
        sim.step(1)
        assert sim.summary()["model"] == model and sim.steps == 1
        assert np.isfinite(sim.positions()).all(), model
        same = hairsim.Simulator(hairsim.Scene(scene.document, overrides=[f"model={model}"]))
        assert same.dt == sim.dt, model  # the same scene as the override's
    assert scene.model == "der"  # the scene itself is unchanged
    with pytest.raises(hairsim.Error) as e:
        hairsim.Simulator(scene, model="superhelix")
    assert e.value.field == "model"


def test_ctrl_c_stops_a_run_after_its_frame(tmp_path):
    # SIGINT during hairsim.run: as `hairsim run` does, the run stops after its current frame
    # with every output complete and summary.json "interrupted"; then KeyboardInterrupt. Before,
    # the signal waited for the whole run (the GIL released, no handler ran).
    import signal
    out = tmp_path / "out"
    scene = small_scene(time={"fps": 30, "frames": 100000},
                        output={"frames": "ply", "usd": True, "checkpoint_every": 2})

    def interrupt_after_frame_two():
        deadline = time.time() + 60
        while not (out / "frames" / "frame_00002.ply").exists() and time.time() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_after_frame_two, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        hairsim.run(scene, out)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted"
    frames = summary["frames"]
    assert 2 <= frames < 1000
    assert len(list((out / "frames").iterdir())) == frames + 1
    assert summary["checkpoint"]["last_frame"] == frames  # checkpointed at the stop
    assert not (out / "hair.usda.frames.tmp").exists()
    assert (out / "hair.usda").read_text().count(": [") == frames + 1
