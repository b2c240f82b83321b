"""Many runs of one scene at once: a parameter study or a batch of shots, each variant one task on
Dask's ``distributed`` (a LocalCluster here, a scheduler's address on a cluster; docs/cluster.md).

A spec (JSON) names the base ``"scene"`` (relative to the spec's folder), ``"set"`` (``--set``
overrides for every variant) and either ``"grid"`` (key -> list of values: every combination) or
``"variants"`` (a list of ``--set`` objects). Each variant runs `hairsim run`'s own run path
(:func:`hairsim.run`) into its own folder of DIR; DIR/sweep.csv holds one row per variant and
DIR/contact_sheet.png every variant's last preview. Faults: a variant that fails or diverges is
a row saying so; a worker that dies mid-task has its task run again by the scheduler, which
resumes from the variant's last checkpoint; a sweep run again skips the variants whose summary
says complete.
"""
from __future__ import annotations

import asyncio
import csv
import itertools
import json
import math
import os
import re
import socket
import sys
import time
import uuid
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import Error, RunFailure, Scene, _hairsim, run

# Checkpoint frequency (frames) given to the variants of a scene that sets none, so that a task
# whose worker dies resumes instead of starting again. A scene (or the spec's "set") that sets
# output.checkpoint_every, 0 included, keeps its own.
DEFAULT_CHECKPOINT_EVERY = 10
_SPEC_FIELDS = ("scene", "set", "grid", "variants")
_STATUS_FILE = "summary.json"
_VARIANT_FILE = "variant.json"  # what a variant's folder holds: its scene and overrides
_WORKER_START_S = 60  # a LocalCluster's workers start in 1-2 s on the 2-core VM
_THUMB_WIDTH = 240  # px, a variant's cell on the sweep's contact sheet (at most)


def _error(field: str, why: str) -> Error:
    err = Error(f"{field}: {why}")
    err.field = field
    return err


class Variant:
    """One run of the sweep: its index, its folder name, the values of the varied keys and every
    --set override it runs with (the spec's "set" first)."""

    def __init__(self, index: int, values: Dict[str, Any], overrides: List[str], name: str):
        self.index, self.values, self.overrides, self.name = index, values, overrides, name

    def record(self, scene: str) -> dict:
        return {"scene": scene, "overrides": self.overrides, "values": self.values}


class Spec:
    """A spec as load_spec checked it: the scene's absolute path, the varied keys (sweep.csv's
    columns) and the variants."""

    def __init__(self, scene: str, keys: List[str], variants: List[Variant], document: dict,
                 columns: int):
        self.scene, self.keys, self.variants = scene, keys, variants
        self.document = document  # the spec as resolved (the scene's absolute path)
        self.columns = columns  # of the contact sheet


def _override(key: str, value: Any) -> str:
    return f"{key}={json.dumps(value)}"


def _short(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ""))


def _folder_name(index: int, width: int, values: Mapping[str, Any]) -> str:
    """The index (the order of the spec) and the values by their keys' last part:
    ``003-youngs_modulus=3e+09-frequency=2``; readable, stable for the same spec."""
    text = "-".join(f"{k.rsplit('.', 1)[-1]}={_short(v)}" for k, v in values.items())
    text = re.sub(r"[^A-Za-z0-9._+=-]", "_", text)[:72]
    return f"{index:0{width}d}" + (f"-{text}" if text else "")


def _check_key(field: str, key: Any) -> str:
    if not isinstance(key, str) or not key or "=" in key or any(not p for p in key.split(".")):
        raise _error(field, f"{key!r} is not a scene field path (key.path, as --set takes)")
    return key


def _check_scene(where: str, field: str, scene: str, overrides: List[str]) -> Scene:
    """The scene parsed with these overrides, as the worker will: bad input names the spec's
    field and the scene's message."""
    try:
        return Scene(scene, overrides)
    except Error as e:
        raise _error(f"{where}: {field}", str(e)) from None


def load_spec(spec: Union[Mapping[str, Any], str, "os.PathLike[str]"],
              directory: Optional[str] = None) -> Spec:
    """Reads and checks a spec (a dict, or a JSON file whose folder the scene's path is relative
    to; a dict's is relative to ``directory``, default the current one). Raises :class:`Error`
    naming the file and field."""
    if isinstance(spec, Mapping):
        where, folder, doc = "spec", directory or os.getcwd(), dict(spec)
    else:
        where = os.fspath(spec)
        folder = directory or os.path.dirname(os.path.abspath(where))
        try:
            with open(where, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
        except OSError as e:
            raise _error(where, f"cannot read ({e.strerror})") from None
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise _error(where, f"not JSON ({e})") from None
        if not isinstance(doc, dict):
            raise _error(where, "must be a JSON object with scene, set and grid or variants")
    for field in doc:
        if field not in _SPEC_FIELDS:
            raise _error(f"{where}: {field}",
                         f"unknown field (a spec has {', '.join(_SPEC_FIELDS)})")

    scene = doc.get("scene")
    if not isinstance(scene, str) or not scene:
        raise _error(f"{where}: scene", "must name the base scene file (relative to the spec)")
    scene = os.path.abspath(os.path.join(folder, scene))
    if not os.path.isfile(scene):
        raise _error(f"{where}: scene", f"no such file {scene}")

    common_values = doc.get("set", {})
    if not isinstance(common_values, dict):
        raise _error(f"{where}: set", "must be an object of --set keys and values")
    common = [_override(_check_key(f"{where}: set", k), v) for k, v in common_values.items()]
    base = _check_scene(where, "set" if common else "scene", scene, common)

    if ("grid" in doc) == ("variants" in doc):
        raise _error(f"{where}: grid", "give either grid (every combination) or variants (a list)")
    checked: List[Tuple[str, List[str]]] = []  # (spec field, overrides) to parse once each
    if "grid" in doc:
        grid = doc["grid"]
        if not isinstance(grid, dict) or not grid:
            raise _error(f"{where}: grid", "must be an object of keys and lists of values")
        for k, values in grid.items():
            _check_key(f"{where}: grid", k)
            if k in common_values:
                raise _error(f'{where}: grid["{k}"]', "is also in set")
            if not isinstance(values, list) or not values:
                raise _error(f'{where}: grid["{k}"]', "must be a non-empty list of values")
            # Each value of a key is parsed once, with the first values of the other keys (not
            # every combination: a scene's parse can take a second; docs/cluster.md).
            for i, v in enumerate(values):
                firsts = [_override(o, grid[o][0]) for o in grid if o != k]
                checked.append((f'grid["{k}"][{i}]', firsts + [_override(k, v)]))
        keys = list(grid)
        combos = [dict(zip(keys, c)) for c in itertools.product(*grid.values())]
        columns = len(grid[keys[-1]])
    else:
        variants = doc["variants"]
        if not isinstance(variants, list) or not variants:
            raise _error(f"{where}: variants", "must be a non-empty list of --set objects")
        combos, keys, seen = [], [], {}
        for i, v in enumerate(variants):
            if not isinstance(v, dict):
                raise _error(f"{where}: variants[{i}]",
                             "must be an object of --set keys and values")
            for k in v:
                _check_key(f"{where}: variants[{i}]", k)
                if k in common_values:
                    raise _error(f'{where}: variants[{i}]["{k}"]', "is also in set")
                if k not in keys:
                    keys.append(k)
            same = seen.setdefault(json.dumps(v, sort_keys=True), i)
            if same != i:
                raise _error(f"{where}: variants[{i}]", f"is the same as variants[{same}]")
            combos.append(dict(v))
            checked.append((f"variants[{i}]", [_override(k, x) for k, x in v.items()]))
        columns = math.ceil(math.sqrt(len(combos)))
    for field, overrides in checked:
        _check_scene(where, field, scene, common + overrides)

    # Checkpoints, so that a task whose worker dies resumes (unless the scene or set chose).
    if "checkpoint_every" not in base.document.get("output", {}) and not any(
            "output.checkpoint_every" in c for c in combos):
        common = common + [_override("output.checkpoint_every", DEFAULT_CHECKPOINT_EVERY)]
    width = max(3, len(str(len(combos) - 1)))
    out = [Variant(i, c, common + [_override(k, v) for k, v in c.items()],
                   _folder_name(i, width, c)) for i, c in enumerate(combos)]
    resolved = dict(doc, scene=scene)
    return Spec(scene, keys, out, resolved, columns)


def _read_json(path: str) -> Optional[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def _write_json(path: str, value: Any) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def run_variant(scene: str, overrides: List[str], folder: str) -> dict:
    """One variant, on a worker: a finished run is kept, a stopped or killed one resumed from its
    checkpoint, anything else run afresh. Returns the run's summary (``status`` and ``reason``
    as it says them; ``failed`` with the reason for input the worker cannot read) with
    ``action`` (ran, resumed, restarted, skipped), ``task_s`` (this call's wall time), ``host``
    and ``pid``. Never raises for a failed run: the sweep records it and goes on."""
    t0 = time.monotonic()
    summary_path = os.path.join(folder, _STATUS_FILE)
    before = _read_json(summary_path) or {}
    action = "skipped"
    if before.get("status") == "complete":  # its run finished; the worker died after
        summary = before
    else:
        resume = before.get("status") in ("running", "interrupted") and os.path.isfile(
            os.path.join(folder, "checkpoint.bin"))
        action = "resumed" if resume else "ran"
        try:
            parsed = Scene(scene, overrides)
            try:
                summary = run(parsed, folder, resume=resume)
            except Error as e:
                if not resume:
                    raise
                # A checkpoint this run cannot continue (another build): from the start.
                summary = run(parsed, folder)
                notice = "; ".join(filter(None, [summary.get("notice"), f"not resumed: {e}"]))
                action, summary["notice"] = "restarted", notice
        except RunFailure as e:
            summary = _read_json(summary_path) or {"status": "failed"}
            summary.setdefault("reason", str(e))
        except Error as e:
            summary = {"status": "failed", "reason": str(e)}
    summary.pop("energy", None)  # per frame: the folder has it; the row takes the scalars
    summary.update(action=action, task_s=time.monotonic() - t0, host=socket.gethostname(),
                   pid=os.getpid())
    return summary


# Columns of sweep.csv after the varied keys, then the summary's other scalars in its order.
_FIRST_COLUMNS = ["status", "reason", "action", "wall_s", "task_s", "backend", "device",
                  "precision", "model", "frames", "frames_asked", "resumed_from_frame"]
_NOT_COLUMNS = {"energy", "pid"}


def _row(variant: Variant, result: Mapping[str, Any]) -> dict:
    row: Dict[str, Any] = {"index": variant.index, "folder": variant.name}
    row.update(variant.values)
    row["wall_s"] = result.get("wall_time_s", {}).get("total")
    row["resumed_from_frame"] = result.get("checkpoint", {}).get("resumed_from_frame")
    for key, value in result.items():
        if key in _NOT_COLUMNS or key in row:
            continue
        if key in ("failed_at", "diverged_at") or isinstance(value, (str, int, float, bool)):
            row[key] = value if not isinstance(value, (dict, list)) else json.dumps(value)
    return row


def _write_csv(path: str, rows: List[dict], keys: List[str]) -> List[str]:
    columns = ["index", "folder"] + keys + _FIRST_COLUMNS
    for row in rows:
        columns += [k for k in row if k not in columns]
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, columns)
        w.writeheader()
        for row in rows:
            w.writerow({k: (json.dumps(v) if isinstance(v, (list, dict)) else v)
                        for k, v in row.items()})
    os.replace(tmp, path)
    return columns


def _last_preview(folder: str) -> Optional[str]:
    png = os.path.join(folder, "png")
    try:
        frames = sorted(f for f in os.listdir(png) if re.fullmatch(r"frame_\d+\.png", f))
    except OSError:
        return None
    return os.path.join(png, frames[-1]) if frames else None


def _thumbnail(image: np.ndarray) -> np.ndarray:
    """Shrunk by a whole factor (the mean of each block) to at most _THUMB_WIDTH wide."""
    k = max(1, math.ceil(image.shape[1] / _THUMB_WIDTH))
    h, w = image.shape[0] // k * k, image.shape[1] // k * k
    blocks = image[:h, :w].reshape(h // k, k, w // k, k, 3).astype(np.float32)
    return np.rint(blocks.mean(axis=(1, 3))).astype(np.uint8)


def contact_sheet(folders: List[str], columns: int, path: str) -> Optional[str]:
    """Every variant's last preview side by side, in the order of sweep.csv, ``columns`` a row
    (a grid: the last key's values across); a variant without one is a grey cell. Returns why
    there is no sheet (no variant wrote previews), or None once written."""
    previews = [_last_preview(f) for f in folders]
    if not any(previews):
        return "no variant wrote previews (output.png_every is 0)"
    thumbs = [_thumbnail(_hairsim._read_png(p)) if p else None for p in previews]
    ch = max(t.shape[0] for t in thumbs if t is not None)
    cw = max(t.shape[1] for t in thumbs if t is not None)
    gap, rows = 4, math.ceil(len(thumbs) / columns)
    sheet = np.full((rows * (ch + gap) + gap, columns * (cw + gap) + gap, 3), 255, np.uint8)
    for i, t in enumerate(thumbs):
        y, x = gap + (i // columns) * (ch + gap), gap + (i % columns) * (cw + gap)
        if t is None:
            sheet[y:y + ch, x:x + cw] = 160
        else:
            sheet[y:y + t.shape[0], x:x + t.shape[1]] = t
    _hairsim._write_png(path, sheet)
    return None


class _Progress:
    """Lines on stderr: variants done (failed and skipped among them), running, waiting, ETA
    from the rate of the variants this sweep ran."""

    def __init__(self, total: int, skipped: int, stream):
        self.total, self.skipped, self.stream = total, skipped, stream
        self.done, self.failed, self.start = skipped, 0, time.monotonic()

    def line(self, running: int) -> None:
        if self.stream is None:
            return
        elapsed = time.monotonic() - self.start
        ran, left = self.done - self.skipped, self.total - self.done
        eta = f"ETA {elapsed / ran * left:.0f} s" if ran and left else "ETA --" if left else "done"
        self.stream.write(
            f"sweep: {self.done}/{self.total} done ({self.failed} failed, {self.skipped} "
            f"skipped), {running} running, {left - running} waiting, {elapsed:.1f} s, {eta}\n")
        self.stream.flush()


def _client(scheduler: Optional[str], local: Optional[int]):
    """(client, cluster): a scheduler's address, or a LocalCluster of `local` worker processes
    (default: one per core), one task at a time each, the cores shared out as OpenMP threads."""
    import logging
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise RunFailure(f"sweep: needs Dask's distributed ({e}; Debian: python3-distributed, "
                         "or pip install 'hairsim[sweep]')") from None
    if scheduler:
        try:
            return Client(scheduler), None  # distributed.comm.timeouts.connect: 30 s
        except (OSError, ValueError) as e:  # unreachable, or not an address
            raise _error("--scheduler", f"cannot connect to {scheduler} ({e})") from None
    n = local or os.cpu_count() or 1
    threads = max(1, (os.cpu_count() or 1) // n)
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR,
                           env={"OMP_NUM_THREADS": str(threads)})
    client = Client(cluster)
    try:  # workers that cannot start (a script without the __main__ guard) fail, not hang
        client.wait_for_workers(n, timeout=_WORKER_START_S)
    except Exception:
        client.close()
        cluster.close()
        raise RunFailure(f"sweep: the LocalCluster's {n} workers did not start within "
                         f"{_WORKER_START_S} s (a script calling hairsim.sweep needs "
                         "`if __name__ == \"__main__\":`: docs/python.md)") from None
    return client, cluster


def _checked_folders(spec: Spec, out: str) -> List[bool]:
    """Which variants are complete already (skipped); raises Error for an `out` that is not a
    folder or holds another sweep's variant under one of these folder names."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise _error("--out", f"{out} is not a folder")
    complete = []
    for v in spec.variants:
        folder = os.path.join(out, v.name)
        record = _read_json(os.path.join(folder, _VARIANT_FILE))
        if record is not None and (record.get("scene"), record.get("overrides")) != (
                spec.scene, v.overrides):
            held = " ".join(record.get("overrides") or [])
            raise _error("--out", f"{folder} holds another variant ({held}); give another folder")
        summary = _read_json(os.path.join(folder, _STATUS_FILE)) or {}
        complete.append(record is not None and summary.get("status") == "complete")
    return complete


PathLike = Union[str, "os.PathLike[str]"]


def sweep(spec: Union[Mapping[str, Any], PathLike], out: PathLike,
          scheduler: Optional[str] = None, local: Optional[int] = None, client: Any = None,
          progress: Any = sys.stderr, progress_every: float = 10.0):
    """Runs every variant of a spec (a dict or a JSON file) on Dask, each into its own folder of
    ``out``; see :func:`hairsim.sweep`."""
    if scheduler and local:
        raise _error("--scheduler", "give --scheduler or --local, not both")
    if local is not None and (isinstance(local, bool) or not isinstance(local, int) or local < 1):
        raise _error("--local", f"must be a number of workers >= 1 (got {local!r})")
    parsed = load_spec(spec)
    out = os.path.abspath(os.fspath(out))
    complete = _checked_folders(parsed, out)
    todo = [v for v, done in zip(parsed.variants, complete) if not done]
    owned = None  # the client and cluster this call starts, and stops
    if todo and client is None:  # workers reached before anything is written
        client, cluster = _client(scheduler, local)
        owned = (client, cluster)
    try:
        os.makedirs(out, exist_ok=True)
        _write_json(os.path.join(out, "sweep.json"), parsed.document)
        results: Dict[int, dict] = {}
        for v, done in zip(parsed.variants, complete):
            folder = os.path.join(out, v.name)
            if done:
                summary = _read_json(os.path.join(folder, _STATUS_FILE)) or {}
                results[v.index] = dict(summary, action="skipped", task_s=0.0)
            else:
                os.makedirs(folder, exist_ok=True)
                _write_json(os.path.join(folder, _VARIANT_FILE), v.record(parsed.scene))
        meter = _Progress(len(parsed.variants), len(results), progress)
        if todo:
            _run_tasks(client, parsed, out, todo, results, meter, progress_every)
        else:  # nothing to run: no workers needed
            meter.line(0)
    finally:
        if owned:
            owned[0].close()
            if owned[1] is not None:
                owned[1].close()

    rows = [_row(v, results[v.index]) for v in parsed.variants]
    columns = _write_csv(os.path.join(out, "sweep.csv"), rows, parsed.keys)
    why = contact_sheet([os.path.join(out, v.name) for v in parsed.variants], parsed.columns,
                        os.path.join(out, "contact_sheet.png"))
    if why and progress is not None:
        progress.write(f"sweep: no contact sheet: {why}\n")
    try:
        import pandas
    except ImportError:  # the rows as dicts without pandas
        return rows
    return pandas.DataFrame(rows, columns=columns)


def _run_tasks(client, spec: Spec, out: str, todo: List[Variant], results: Dict[int, dict],
               meter: _Progress, progress_every: float) -> None:
    from distributed import wait
    token = uuid.uuid4().hex[:8]
    futures = {}
    for v in todo:
        f = client.submit(run_variant, spec.scene, v.overrides, os.path.join(out, v.name),
                          key=f"hairsim-{v.name}-{token}", pure=False)
        futures[f] = v
    pending = set(futures)
    while pending:
        try:
            done = wait(pending, timeout=progress_every, return_when="FIRST_COMPLETED").done
        except (TimeoutError, asyncio.TimeoutError):  # nothing finished: a line anyway
            done = set()
        for f in done:
            v = futures[f]
            pending.discard(f)
            if f.status == "finished":
                results[v.index] = f.result()
            else:  # the worker died too often (KilledWorker) or the task raised
                e = f.exception()
                results[v.index] = {"status": "failed", "action": "ran",
                                    "reason": f"{type(e).__name__}: {e}"}
            meter.done += 1
            meter.failed += results[v.index].get("status") != "complete"
        keys = {f.key for f in pending}  # a dead worker's tasks may be listed twice
        # Processing: sent to a worker, queued there or running; at most a task a thread runs.
        processing = {k for ks in client.processing().values() for k in ks}
        slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        meter.line(min(len(keys & processing), slots))
