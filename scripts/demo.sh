#!/usr/bin/env bash
# Installs what is missing, builds Release, runs the default demo and prints what it wrote.
source "$(dirname "$0")/common.sh"
hairsim_build release
cd "$HAIRSIM_ROOT"
hairsim=build/release/src/hairsim
out=out/demo
mkdir -p "$out"

# A generated wavy hairstyle on an ellipsoid head, and the real Bangs fixture on its head mesh.
$hairsim generate --style wavy --strands 4000 --vertices 32 --length 0.22 --seed 7 \
  -o "$out/wavy.hair" --head-out "$out/head_ellipsoid.ply" >/dev/null
$hairsim render "$out/wavy.hair" --head "$out/head_ellipsoid.ply" -o "$out/wavy.png" \
  --azimuth 35 --elevation 10
$hairsim generate --style curly --strands 3000 --vertices 48 --length 0.18 --seed 3 \
  -o "$out/curly.hair" >/dev/null
$hairsim render "$out/curly.hair" --head "$out/head_ellipsoid.ply" -o "$out/curly.png" \
  --azimuth -30 --elevation 15
$hairsim render tests/data/Bangs_100.hair --units mm --head tests/data/Bangs_head.ply \
  -o "$out/bangs.png" --up x --azimuth 210 --elevation 10 --line-width 1.6
$hairsim info tests/data/Bangs_100.hair --units mm > "$out/bangs_info.txt"

echo "hairsim demo wrote:"
for f in wavy.hair wavy.png curly.hair curly.png head_ellipsoid.ply bangs.png bangs_info.txt; do
  echo "  $HAIRSIM_ROOT/$out/$f"
done
