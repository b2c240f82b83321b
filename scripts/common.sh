# Shared by demo.sh and test.sh: dependencies, then configure and build one preset.
# Usage: source scripts/common.sh; hairsim_build PRESET [TARGET ...] (no target: everything)
set -euo pipefail
HAIRSIM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# nvcc from the CUDA toolkit is often outside PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi

hairsim_build() {
  local preset=$1
  shift
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  "$HAIRSIM_ROOT/scripts/install-deps.sh"
  cd "$HAIRSIM_ROOT"
  local log="build/$preset-build.log"
  mkdir -p build
  if ! { cmake --preset "$preset" && cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"; } >"$log" 2>&1; then
    tail -n 80 "$log" >&2
    echo "build failed (preset $preset); full log: $HAIRSIM_ROOT/$log" >&2
    exit 1
  fi
}
