#!/usr/bin/env bash
# ctest GpuCheck.DryRun: scripts/gpu-check.sh --dry-run --stage all must finish in seconds, write
# at most the 8 files a device lease brings back, a summary listing every stage, and bench rows
# that ran on the cpu (the plumbing of the real device run, without a build or a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: gpu_check_dry_run.sh OUTDIR}
rm -rf "$out"
fail() { echo "GpuCheck.DryRun: $*" >&2; exit 1; }

# Two models (--models): the plumbing is every model's; the reduced models' fits took a minute.
"$root/scripts/gpu-check.sh" "$out" --stage all --dry-run --models der,cosserat >"$out.log" 2>&1 ||
  { cat "$out.log" >&2; fail "gpu-check.sh --dry-run exited non-zero"; }
files=$(find "$out" -type f | wc -l)
[ "$files" -le 8 ] || fail "$files files in $out, more than 8"
for f in summary.md rows.json rest.tar.gz; do [ -s "$out/$f" ] || fail "$f missing or empty"; done
for stage in build test sanitize bench demo; do
  grep -q "^| $stage | " "$out/summary.md" || fail "summary.md has no row for stage $stage"
done
grep -q "^Skipped: " "$out/summary.md" || fail "summary.md does not list what was skipped"
python3 - "$out/rows.json" <<'PY' || fail "rows.json: no cpu bench row ran with SVU/s > 0"
import json, sys
rows = json.load(open(sys.argv[1]))["bench"]
ok = [r for r in rows if r["ran"] and r["backend"] == "cpu" and r["svu_per_second"] > 0]
models = {r["model"] for r in ok}
sys.exit(0 if ok and len(models) >= 2 else 1)
PY
# Usage errors: exit 2 and one line naming the option.
if "$root/scripts/gpu-check.sh" "$out-bad" --stage nonsense 2>"$out.err"; then
  fail "--stage nonsense was accepted"
fi
grep -q "unknown stage 'nonsense'" "$out.err" || fail "--stage nonsense: no error naming the stage"
echo "GpuCheck.DryRun: ok ($files files)"
