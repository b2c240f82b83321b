#!/usr/bin/env bash
# Installs what is missing, builds the CLI (Release; only the hairsim target, not the tests),
# runs scenes/demo.json (wavy hair grown on the Bangs head mesh's scalp, shaken; 10,000 guides
# on a GPU, 2,000 on the cpu backend, 50,000 render strands interpolated from them every frame)
# and prints where the previews, the contact sheet, the MP4 and the summary are.
source "$(dirname "$0")/common.sh"
hairsim_build release hairsim
cd "$HAIRSIM_ROOT"
hairsim=build/release/src/hairsim
out=out/demo
rm -rf "$out"

$hairsim run scenes/demo.json --out "$out"
# The real Bangs fixture on its head mesh, as a still preview.
$hairsim render tests/data/Bangs_100.hair --units mm --head tests/data/Bangs_head.ply \
  -o "$out/bangs.png" --up x --azimuth 210 --elevation 10 --line-width 1.6 >/dev/null

echo
echo "hairsim demo wrote:"
echo "  previews: $HAIRSIM_ROOT/$out/png/ ($(ls "$out/png" | wc -l) PNG frames)"
if [ -f "$out/hair.mp4" ]; then
  echo "  video:    $HAIRSIM_ROOT/$out/hair.mp4"
else
  echo "  video:    none (install ffmpeg for an MP4: apt-get install ffmpeg)"
fi
echo "  sheet:    $HAIRSIM_ROOT/$out/contact_sheet.png (6 of the previews)"
echo "  summary:  $HAIRSIM_ROOT/$out/summary.json"
echo "  Bangs:    $HAIRSIM_ROOT/$out/bangs.png"
