"""hairsim from Python: strand files, generated styles, scenes, the simulator, runs and the bench.

The same engine as the `hairsim` command: a scene given here as a dict or a JSON file is
validated as `hairsim run` validates it, and bad input raises :class:`Error` (a ``ValueError``)
whose message is the CLI's one-line error and whose ``field`` names the field or file.
See docs/python.md for a worked example.

    import hairsim
    scene = hairsim.Scene({"hair": {"generate": {"style": "wavy", "strands": 50},
                                    "vertices": 16},
                           "time": {"fps": 30, "frames": 10}})
    sim = hairsim.Simulator(scene, backend="cpu", precision="double")
    sim.step(100)
    x = sim.positions()          # (strands, vertices, 3), metres
"""
from __future__ import annotations

import json as _json
import os as _os
from typing import Any, Iterable, Mapping, Optional, Sequence, Tuple, Union

# OpenMP's wait policy, as the CLI runs (src/engine/threads.hpp, default_wait_policy): passive
# unless the user chose one. libgomp reads it once, when it is loaded, so this comes before the
# extension (and numpy) load it; a process that loaded libgomp earlier keeps its own policy.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["OMP_WAIT_POLICY"] = "passive"

import numpy as _np  # noqa: E402

from . import _hairsim  # noqa: E402
from ._hairsim import Error, RunFailure  # noqa: E402

__all__ = [
    "Error", "RunFailure", "read_strands", "write_strands", "generate", "models", "backends",
    "devices", "Scene", "Simulator", "run", "bench", "sweep",
]

PathLike = Union[str, "_os.PathLike[str]"]

_INT_MAX = 2**31 - 1  # the native module's int arguments
_INT64_MAX = 2**63 - 1


def _error(field: str, why: str) -> Error:
    err = Error(f"{field}: {why}")
    err.field = field
    return err


def _integer(field: str, value: Any, lo: int, hi: int) -> int:
    """An integer argument checked here, where Python's integers have no bound: a bool, a float
    or a number past the native int would otherwise fail in the binding with a TypeError that
    names no field."""
    if isinstance(value, bool) or not isinstance(value, (int, _np.integer)):
        raise _error(field, f"must be an integer (got {value!r})")
    if not lo <= int(value) <= hi:
        raise _error(field, f"must be in {lo} .. {hi} (got {value})")
    return int(value)


def _points(points: Any) -> _np.ndarray:
    try:
        return _np.asarray(points, dtype=float)
    except (TypeError, ValueError) as e:
        raise _error("points", f"must be an (N, 3) array of numbers ({e})") from None


def _counts(counts: Any) -> _np.ndarray:
    """Vertices per strand as int64, each checked to fit (whole, finite, within int64): numpy's
    own conversion would wrap 2**64 or truncate 9.5. The native side compares each count with
    the points left, so no sum of them can overflow."""
    try:
        a = _np.asarray(counts)
    except (TypeError, ValueError) as e:
        raise _error("counts", f"must be a 1-D array of integers ({e})") from None
    if a.size == 0:
        return _np.zeros(a.shape, dtype=_np.int64)
    if a.dtype.kind == "f":
        if not (_np.isfinite(a).all() and (a == _np.floor(a)).all()):
            raise _error("counts", "must be whole numbers of vertices")
        if _np.abs(a).max() >= 2.0**63:
            raise _error("counts", "a count beyond 2**63 - 1")
        return a.astype(_np.int64)
    if a.dtype.kind == "u":
        if int(a.max()) > _INT64_MAX:  # compared as Python integers, not as float64
            raise _error("counts", f"a count beyond 2**63 - 1 (got {a.max()})")
        return a.astype(_np.int64)
    if a.dtype.kind != "i":  # bool, object (integers past 64 bits), text
        raise _error("counts", f"must be integers (got an array of {a.dtype})")
    return a.astype(_np.int64, copy=False)


def _vector3(field: str, value: Any) -> _np.ndarray:
    try:
        v = _np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise _error(field, "must be 3 numbers") from None
    if v.shape != (3,) or not _np.isfinite(v).all():
        raise _error(field, f"must be 3 finite numbers (got {value!r})")
    return v


def read_strands(path: PathLike, units: str = "m") -> Tuple[_np.ndarray, _np.ndarray]:
    """Read a strand file (.hair, .ply, .obj, .data, .bin by extension; docs/formats.md).

    ``units`` is the length unit of the numbers in the file (m, cm or mm); the points come
    back in metres. Returns ``(points, counts)``: points, float64 of shape (N, 3), every
    strand's vertices after the previous strand's, root first; counts, int64 of shape (S,),
    the vertices of each strand (``numpy.split(points, numpy.cumsum(counts)[:-1])`` gives one
    array per strand).
    """
    return _hairsim.read_strands(_os.fspath(path), units)


def write_strands(path: PathLike, points: Any, counts: Any, units: str = "m") -> None:
    """Write strands (points in metres, as :func:`read_strands` returns them) to a strand file,
    its format chosen by the extension, its numbers in ``units``. Raises :class:`Error` when
    the counts are not whole numbers or do not add up to the points (each count is checked
    against the points left: counts whose sum overflows are refused, not wrapped), a strand has
    fewer than 2 vertices or a coordinate is not finite; nothing is written then."""
    _hairsim.write_strands(_os.fspath(path), _points(points), _counts(counts), units)


def generate(style: str = "wavy", strands: int = 1000, vertices: int = 32, length: float = 0.25,
             seed: int = 1) -> Tuple[_np.ndarray, _np.ndarray]:
    """Generate a hairstyle on the default ellipsoid head (as `hairsim generate`): style
    straight, wavy or curly; strand length in metres (+-10 % per strand). Returns
    ``(points, counts)`` as :func:`read_strands`."""
    return _hairsim.generate(style, _integer("strands", strands, -_INT_MAX, _INT_MAX),
                             _integer("vertices", vertices, -_INT_MAX, _INT_MAX), float(length),
                             _integer("seed", seed, 0, 2**64 - 1))


def models() -> list:
    """The registered rod models, from the model table: a list of dicts with ``name``,
    ``description`` (the paper), ``integrators`` (the first is the model's default) and
    ``backends`` (where it simulates hairstyles; empty: single-rod scenes only)."""
    return _hairsim.models()


def devices() -> dict:
    """The CPU and the CUDA devices this build can use (as `hairsim devices`)."""
    return _json.loads(_hairsim.devices())


def backends() -> list:
    """The backends that run on this machine: reference and cpu always, cuda when hairsim was
    built with CUDA and a device is present."""
    names = ["reference", "cpu"]
    if devices()["cuda"]["devices"]:
        names.append("cuda")
    return names


class Scene:
    """A hairstyle scene (docs/scenes.md), from a dict or a JSON file, validated as `hairsim run`
    validates it. ``overrides`` are `--set` assignments (``"damping=0.7"``). Relative file names
    in a dict are taken from ``directory`` (default: the current directory), in a file from the
    file's folder. Raises :class:`Error` naming the field (and the file) on bad input."""

    def __init__(self, source: Union[Mapping[str, Any], PathLike],
                 overrides: Sequence[str] = (), directory: Optional[PathLike] = None):
        if isinstance(overrides, str):  # one assignment, not its characters
            overrides = [overrides]
        if isinstance(source, Mapping):
            text = _json.dumps(source)
            name = ""
            folder = _os.fspath(directory) if directory is not None else _os.getcwd()
        else:
            name = _os.fspath(source)
            try:
                with open(name, "rb") as f:
                    text = f.read().decode("utf-8", errors="replace")
            except OSError as e:
                err = Error(f"{name}: cannot read ({e.strerror})")
                err.field = name
                raise err from None
            folder = _os.fspath(directory) if directory is not None else (
                _os.path.dirname(name) or ".")
        self._scene = _hairsim._scene(text, name, folder, list(overrides))

    @property
    def document(self) -> dict:
        """The scene as parsed, overrides applied."""
        return _json.loads(self._scene.json)

    @property
    def strands(self) -> int:
        return self._scene.strands

    @property
    def frames(self) -> int:
        return self._scene.frames

    @property
    def dt(self) -> float:
        return self._scene.dt

    @property
    def model(self) -> str:
        return self._scene.model

    @property
    def backend(self) -> str:
        return self._scene.backend

    @property
    def precision(self) -> str:
        return self._scene.precision

    def initial_strands(self) -> Tuple[_np.ndarray, _np.ndarray]:
        """The groom the simulation starts from, resampled to the scene's vertex count."""
        return self._scene.initial_strands


class Simulator:
    """Steps a scene's hairstyle with a rod model on a backend (defaults: the scene's).

    ``precision`` is float or double (the reference backend runs double only; asking it of a
    scene in float gives double). With ``drive_head=True`` the scene's head motion is replaced
    by poses given from Python, one per step, with :meth:`set_head_pose`.

    :meth:`positions` and :meth:`velocities` return new arrays of shape (strands, vertices, 3)
    in the simulation's precision (float32 or float64): the batched backends keep the state in a
    tiled layout (and on the GPU), so every call copies; writing to the arrays changes nothing.
    :meth:`step` releases the GIL: other Python threads run while it steps.
    """

    def __init__(self, scene: Union[Scene, Mapping[str, Any], PathLike], model: str = "",
                 backend: str = "", precision: str = "", drive_head: bool = False):
        # ``model`` parses the scene again with that model, as ``overrides=["model=..."]`` and
        # `hairsim run --model` do: its solver settings, integrator and step are the model's.
        if not isinstance(scene, Scene):
            scene = Scene(scene)
        self.scene = scene
        self._sim = _hairsim._Simulator(scene._scene, model, backend, precision, drive_head)

    def step(self, n: int = 1) -> None:
        """Advance n steps of dt (on cuda: launched, finished by the next read)."""
        self._sim.step(_integer("n", n, 0, _INT_MAX))

    def positions(self) -> _np.ndarray:
        """Every vertex's position (m), shape (strands, vertices, 3)."""
        return self._sim.positions()

    def velocities(self) -> _np.ndarray:
        """Every vertex's velocity (m/s), shape (strands, vertices, 3)."""
        return self._sim.velocities()

    def counters(self) -> dict:
        """The model's work counters summed over strands and steps (Newton and PCG iterations,
        projection iterations, contacts, solver_failures, ...)."""
        return self._sim.counters()

    def summary(self) -> dict:
        """Model, backend, precision, device, strands, vertices, dt, steps, time and counters."""
        return self._sim.summary()

    def set_head_pose(self, translation: Iterable[float],
                      rotation: Iterable[float] = (0.0, 0.0, 0.0)) -> None:
        """The head's pose at the end of the next step, from its pose at t = 0: a translation
        (m) and a rotation vector (axis times angle, rad) about the head's centre. Between
        poses the head moves smoothly (docs/python.md). Needs ``drive_head=True``."""
        self._sim.set_head_pose(_vector3("translation", translation),
                                _vector3("rotation", rotation))

    def save_state(self) -> bytes:
        """The complete state (every model variable, steps, counters) as bytes."""
        return self._sim.save_state()

    def restore_state(self, state: bytes) -> None:
        """Continue from a state saved by a simulator of the same scene and options. Raises
        :class:`Error` (``field`` "state") naming what differs for a state of another setup
        (model, backend, precision, strand, vertex or element counts, solver settings); the
        simulator is unchanged then."""
        self._sim.restore_state(state)

    strands = property(lambda self: self._sim.strands, doc="strand count")
    vertices = property(lambda self: self._sim.vertices, doc="vertices per strand")
    dt = property(lambda self: self._sim.dt, doc="time step (s)")
    time = property(lambda self: self._sim.time, doc="simulated time (s)")
    steps = property(lambda self: self._sim.steps, doc="steps taken")
    device = property(lambda self: self._sim.device, doc="the CPU or GPU it runs on")


def run(scene: Union[Scene, Mapping[str, Any], PathLike], out: PathLike,
        resume: bool = False) -> dict:
    """Run a hairstyle scene as `hairsim run` does, on the same run path: ``out`` checked and
    locked for the run (a folder another run, CLI or Python, is writing into raises
    :class:`Error` naming the holder), its outputs (frames, .usda, PNG, MP4, summary.json)
    written there; returns the summary. ``resume`` continues a stopped run from its checkpoint
    (a damaged or edited one raises :class:`Error` naming the file and field). Raises
    :class:`Error` on bad input (nothing is left of a folder the run made),
    :class:`RunFailure` when the run fails, diverges or cannot write (a full disk): the summary
    in ``out`` says where, the frames before are kept. Ctrl-C stops the run after its current
    frame, its outputs complete and its summary "interrupted", then raises KeyboardInterrupt."""
    if not isinstance(scene, Scene):
        scene = Scene(scene)
    return _json.loads(_hairsim._run(scene._scene, _os.fspath(out), resume))


def bench(model: str = "der", backend: str = "cpu", precision: str = "float",
          integrator: str = "", collisions: bool = False, strands: int = 1000,
          vertices: int = 32, steps: int = 20) -> dict:
    """Time steps of generated hair on a still head, as one row of `hairsim bench`: ms per
    step, SVU/s and the model's work counters. A case that cannot run here (cuda without a
    device) comes back with ``ran`` False and a ``note``."""
    return _json.loads(_hairsim._bench(model, backend, precision, integrator, bool(collisions),
                                       _integer("strands", strands, -_INT_MAX, _INT_MAX),
                                       _integer("vertices", vertices, -_INT_MAX, _INT_MAX),
                                       _integer("steps", steps, -_INT_MAX, _INT_MAX)))


def sweep(spec: Union[Mapping[str, Any], PathLike], out: PathLike, scheduler: Optional[str] = None,
          local: Optional[int] = None, client: Any = None, progress: Any = "stderr",
          progress_every: float = 10.0):
    """Run every variant of a spec on Dask's ``distributed``, each as one task running
    :func:`run` into its own folder of ``out`` (docs/cluster.md).

    ``spec``: a dict or a JSON file with ``"scene"`` (the base scene's path, relative to the
    spec's folder; a dict's to the current one), ``"set"`` (``--set`` keys and values for every
    variant) and either ``"grid"`` (keys and lists of values: every combination) or
    ``"variants"`` (a list of ``--set`` objects). Workers: ``scheduler`` (a running scheduler's
    address), ``local`` (a LocalCluster of that many worker processes; default one per core)
    or a ``client`` of your own. Returns a pandas DataFrame, one row per variant, as
    ``out/sweep.csv``: the varied keys' values, ``status`` and ``reason`` as the summary says
    them, ``action`` (ran, resumed, restarted, skipped), wall times, backend, device and the
    summary's measures; ``out/contact_sheet.png`` shows every variant's last preview. A variant
    that fails is a row saying so and the others go on; a worker that dies mid-task has its task
    run again, resumed from the variant's last checkpoint; variants already complete in ``out``
    are skipped. Progress lines go to ``progress`` (a stream; None: none). Raises :class:`Error`
    naming the file and field for a bad spec, before anything is written."""
    import sys as _sys

    from . import _sweep
    stream = _sys.stderr if progress == "stderr" else progress
    return _sweep.sweep(spec, out, scheduler=scheduler, local=local, client=client,
                        progress=stream, progress_every=progress_every)

