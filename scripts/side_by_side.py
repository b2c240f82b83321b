#!/usr/bin/env python3
"""Frames of several runs side by side: one row per run, one column per frame.

  scripts/side_by_side.py OUT.png --frames 16,30,46,76 [--crop 0.6] LABEL=RUN_DIR [...]

Each RUN_DIR is a `hairsim run` output folder (its png/frame_NNNNN.png previews); the image is
scaled to `--width` per frame and each row is labelled with LABEL and each column with the
frame's time (`--fps`, the scenes' default 30).
"""
import argparse
import os
import sys

from PIL import Image, ImageDraw


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("runs", nargs="+", help="LABEL=RUN_DIR")
    ap.add_argument("--frames", required=True, help="comma-separated frame numbers")
    ap.add_argument("--width", type=int, default=320, help="pixels per frame")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--crop", type=float, default=1.0,
                    help="the centred part of each frame kept, as a fraction of its size")
    args = ap.parse_args()
    frames = [int(f) for f in args.frames.split(",")]
    rows = []
    for run in args.runs:
        label, _, folder = run.partition("=")
        if not folder:
            sys.exit(f"side_by_side.py: {run}: expected LABEL=RUN_DIR")
        images = []
        for f in frames:
            path = os.path.join(folder, "png", f"frame_{f:05d}.png")
            if not os.path.exists(path):
                sys.exit(f"side_by_side.py: {path}: no such preview")
            im = Image.open(path).convert("RGB")
            if args.crop < 1:
                w, h = im.size
                cw, ch = int(w * args.crop), int(h * args.crop)
                im = im.crop(((w - cw) // 2, (h - ch) // 2, (w + cw) // 2, (h + ch) // 2))
            images.append(im.resize((args.width, args.width * im.height // im.width)))
        rows.append((label, images))
    header = 18
    height = max(im.height for _, ims in rows for im in ims)
    sheet = Image.new("RGB", (args.width * len(frames), header + height * len(rows)), "white")
    draw = ImageDraw.Draw(sheet)
    for c, f in enumerate(frames):
        draw.text((c * args.width + 4, 3), f"t = {f / args.fps:.2f} s", fill="black")
    for r, (label, images) in enumerate(rows):
        for c, im in enumerate(images):
            sheet.paste(im, (c * args.width, header + r * height))
        draw.text((4, header + r * height + 4), label, fill="black")
    sheet.save(args.out)


if __name__ == "__main__":
    main()
