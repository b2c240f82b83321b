#!/usr/bin/env bash
# The hair-hair interaction stage's cost per step against the strands' step (issue 22), on the
# cpu backend: scenes/interaction_volume.json (DER, implicit, float, a still head with its
# ellipsoid) at 1,000 and 10,000 generated strands of 32 vertices, 3 frames (100 steps), with
# 1 thread and with all; ms per step from each run's summary.json (`interaction`).
# Usage: scripts/interaction_bench.sh [path/to/hairsim] [threads...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$ROOT/build/release/src/hairsim}
shift || true
threads=("$@")
[ ${#threads[@]} -eq 0 ] && threads=(1 "$(nproc)")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-8s %-8s %-8s %12s %12s %8s %10s\n' strands vertices threads strand_ms stage_ms ratio cells
for strands in 1000 10000; do
  for t in "${threads[@]}"; do
    OMP_NUM_THREADS=$t "$bin" run "$ROOT/scenes/interaction_volume.json" --out "$work/run" \
      --set hair.generate.strands=$strands --set hair.vertices=32 --frames 3 \
      --set output.png_every=0 >/dev/null
    python3 - "$work/run/summary.json" "$strands" "$t" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["interaction"]
a, b = s["strand_ms_per_step"], s["stage_ms_per_step"]
print(f"{sys.argv[2]:<8} {32:<8} {sys.argv[3]:<8} {a:12.2f} {b:12.2f} {b / a:8.3f} {s['mean_occupied_cells']:10.0f}")
PY
  done
done
