#!/usr/bin/env python3
"""scripts/gpu-check.sh's report: summary.md, rows.json, svu.png and contact_sheet.png.

Usage: scripts/gpu_check_report.py WORKDIR OUTDIR [--dry-run 0|1]

Reads what the stages left in WORKDIR (stages.tsv, bench-*.json, devices.json, resources.md,
ctest.log, demo/png/) and writes into OUTDIR. The plot needs matplotlib and the contact sheet
Pillow (both on the device image); without them the summary says they were skipped.
"""
import argparse
import glob
import json
import os
import sys


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def stage_rows(work):
    rows = []
    for line in read(os.path.join(work, "stages.tsv")).splitlines():
        stage, status, seconds, note = (line.split("\t") + ["", "", "", ""])[:4]
        rows.append({"stage": stage, "status": status, "seconds": int(seconds or 0), "note": note})
    return rows


def bench_rows(work):
    rows = []
    for path in sorted(glob.glob(os.path.join(work, "bench-*.json"))):
        name = os.path.basename(path)[len("bench-"):-len(".json")]
        part = name.split("-")[0]  # core, sweep or tune
        extra = {"build": name.split("-")[-1]} if part == "tune" else {}
        try:
            for r in json.load(open(path)):
                rows.append({"part": part, **extra, **r})
        except (OSError, ValueError) as e:
            print(f"gpu_check_report: {path}: {e}", file=sys.stderr)
    return rows


def fmt_svu(r):
    return f"{r['svu_per_second']:.3g}" if r.get("ran") else ""


def bench_table(rows, part):
    lines = ["| model | backend | precision | collisions | strands | vertices | ms/step "
             "| SVU/s | note |", "|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        if r["part"] != part:
            continue
        ms = f"{r['ms_per_step']:.3f}" if r.get("ran") else ""
        note = "" if r.get("ran") else r.get("note", "")
        lines.append(f"| {r['model']} | {r['backend']} | {r['precision']} | "
                     f"{'on' if r['collisions'] else 'off'} | {r['strands']:,} | {r['vertices']} "
                     f"| {ms} | {fmt_svu(r)} | {note} |")
    return lines


def skipped_rows_summary(rows):
    """How many rows were skipped, grouped by the first words of their reason."""
    reasons = {}
    for r in rows:
        if r.get("ran"):
            continue
        note = r.get("note", "")
        key = note.split(" (")[0] if "predicted" not in note else "predicted past the row budget"
        if "time limit" in note:
            key = "stage time spent"
        reasons[key] = reasons.get(key, 0) + 1
    return reasons


def plot(rows, path):
    """One panel per model: SVU/s against strands, a line per backend, precision and vertex
    count, collisions on (the sweep's off rows are in the tables)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "skipped: matplotlib is not installed"
    ran = [r for r in rows if r.get("ran")]
    if not ran:
        return "skipped: no bench row ran"
    models = sorted({r["model"] for r in ran})
    fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 5), dpi=100, squeeze=False)
    for ax, model in zip(axes[0], models):
        series = {}
        for r in ran:
            if r["model"] == model and r["collisions"]:
                key = (r["backend"], r["precision"], r["vertices"])
                series.setdefault(key, {})[r["strands"]] = r["svu_per_second"]
        for (backend, precision, vertices), points in sorted(series.items()):
            xs = sorted(points)
            ax.plot(xs, [points[x] for x in xs], "-" if backend == "cuda" else "--", marker="o",
                    markersize=3, label=f"{backend} {precision} {vertices} vertices")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("strands")
        ax.set_ylabel("SVU/s (strand-vertex updates per second)")
        ax.set_title(f"{model}, collisions on (solid: cuda, dashed: cpu)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    return "svu.png"


def contact_sheet(frames, path, columns=6, width=1200):
    if not frames:
        return "skipped: the demo wrote no PNG frame"
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return "skipped: Pillow is not installed"
    step = max(1, len(frames) // 24)  # at most 24 frames, evenly spaced
    chosen = frames[::step][:24]
    tile = width // columns
    rows = -(-len(chosen) // columns)
    sheet = Image.new("RGB", (tile * columns, tile * rows), "white")
    for i, f in enumerate(chosen):
        img = Image.open(f).convert("RGB")
        img.thumbnail((tile, tile))
        x, y = (i % columns) * tile, (i // columns) * tile
        sheet.paste(img, (x, y))
        ImageDraw.Draw(sheet).text((x + 4, y + 4), os.path.basename(f), fill=(200, 0, 0))
    sheet.save(path)
    return f"contact_sheet.png ({len(chosen)} of {len(frames)} frames)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("out")
    p.add_argument("--dry-run", default="0")
    a = p.parse_args()
    stages = stage_rows(a.work)
    rows = bench_rows(a.work)
    devices = json.loads(read(os.path.join(a.work, "devices.json"), "{}") or "{}")
    resources = read(os.path.join(a.work, "resources.md"))
    frames = sorted(glob.glob(os.path.join(a.work, "demo", "png", "*.png")))
    demo_summary = json.loads(read(os.path.join(a.work, "demo", "summary.json"), "{}") or "{}")

    plot_note = plot([r for r in rows if r["part"] != "tune"], os.path.join(a.out, "svu.png"))
    sheet_note = contact_sheet(frames, os.path.join(a.out, "contact_sheet.png"))

    md = ["# scripts/gpu-check.sh" + (" (dry run)" if a.dry_run == "1" else ""), ""]
    cuda = devices.get("cuda", {})
    gpus = cuda.get("devices", [])
    md.append(f"- CPU: {devices.get('cpu', {}).get('description', 'not read')}")
    if gpus:
        for g in gpus:
            md.append(f"- GPU {g['index']}: {g['name']}, compute {g['compute_capability']}, "
                      f"{g['multiprocessors']} SMs, {g['global_bytes'] / 2**30:.1f} GiB "
                      f"({g['free_bytes'] / 2**30:.1f} free), L2 {g['l2_bytes'] / 2**20:.0f} MiB, "
                      f"driver {g['driver_version']}, runtime {g['runtime_version']}")
    else:
        md.append(f"- GPU: none ({cuda.get('note', 'hairsim devices did not run')})")
    copy = json.loads(read(os.path.join(a.work, "copy_bandwidth.json"), "{}") or "{}")
    if copy.get("gb_per_s"):
        md.append(f"- copy bandwidth ({copy['device']}, scripts/copy_bandwidth.py): "
                  f"{copy['gb_per_s']:.0f} GB/s read + written, {copy['bytes'] / 2**30:.0f} GiB "
                  f"device-to-device, median of {copy['repetitions']}")
    elif copy:
        md.append(f"- copy bandwidth: not measured ({copy.get('error', '')})")
    md += ["", "## Stages", "", "| stage | status | seconds | note |", "|---|---|---:|---|"]
    md += [f"| {s['stage']} | {s['status']} | {s['seconds']} | {s['note']} |" for s in stages]
    skipped = [s for s in stages if s["status"] in ("skipped", "not asked")]
    md += ["", "Skipped: " + (", ".join(f"{s['stage']} ({s['note'] or s['status']})"
                                          for s in skipped) or "nothing")]
    if resources:
        md += ["", "## Compiler resource report (ptxas, per thread)", "", resources.strip()]
    if rows:
        ran = sum(1 for r in rows if r.get("ran"))
        md += ["", f"## Bench: {ran} of {len(rows)} rows ran", ""]
        reasons = skipped_rows_summary(rows)
        if reasons:
            md.append("Rows not run: " + "; ".join(f"{n} {k}" for k, n in reasons.items()))
            md.append("")
        core = sorted({r["strands"] for r in rows if r["part"] == "core"})
        md += [f"### {', '.join(f'{n:,}' for n in core)} strands x 32 vertices, collisions on",
               ""] + bench_table(rows, "core")
        md += ["", "### Sweep (rows that ran)", ""]
        md += bench_table([r for r in rows if r.get("ran")], "sweep")
        tune = [r for r in rows if r["part"] == "tune"]
        if tune:
            md += ["", "### Tuning: registers capped against the default build", "",
                   "| model | build | strands | ms/step | SVU/s | note |", "|---|---|---:|---:|---:|---|"]
            md += [f"| {r['model']} | {r['build']} | {r['strands']:,} | "
                   f"{r['ms_per_step']:.3f} | {fmt_svu(r)} | {'' if r.get('ran') else r.get('note', '')} |"
                   if r.get("ran") else
                   f"| {r['model']} | {r['build']} | {r['strands']:,} | | | {r.get('note', '')} |"
                   for r in tune]
    if demo_summary:
        md += ["", "## Demo", "", f"status {demo_summary.get('status')}, "
               f"{demo_summary.get('strands')} strands, backend {demo_summary.get('backend')}, "
               f"device {demo_summary.get('device')}"]
    md += ["", "## Files", "", f"- plot: {plot_note}", f"- contact sheet: {sheet_note}",
           "- rows.json: every stage and bench row; rest.tar.gz: logs, devices.json, "
           "nvidia-smi.txt, resources.md, the demo's summary"]
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(a.out, "rows.json"), "w") as f:
        json.dump({"stages": stages, "devices": devices, "copy_bandwidth": copy,
                   "bench": rows, "demo": demo_summary}, f, indent=1)


if __name__ == "__main__":
    main()
