#!/usr/bin/env bash
# Builds, on this machine (no GPU needed: nvcc compiles for sm_90 without one), what a GPU lease
# would otherwise spend its first minutes building (the first lease: ~5 of its 15 minutes), and
# packs it for the device run (docs/gpu.md "A lease, planned"):
#   build/gpu-release  Release, -lineinfo, sm_90: hairsim and gpu_tests, as gpu-check --one-build
#   build/gpu-tune     Release, -maxrregcount=N, sm_90: hairsim (gpu-check's tune stage)
# into .gpu-prebuilt/builds.tar.gz (ignored by git): the two binaries, the test binary and the
# CTest files that list its tests, not the object files. Name `.gpu-prebuilt` in the device
# run's `carry` and give gpu-check `--prebuilt .gpu-prebuilt/builds.tar.gz`; it unpacks them,
# checks that they load there (ldd, `hairsim devices`) and builds on the device only if not.
# CTest's files name absolute paths: the device's copy of the repository must sit at the same
# path as this one (it does: the device tool copies the checkout to the same place); gpu-check
# compares and falls back to building when it does not.
#
# Usage: scripts/gpu-prebuild.sh [--max-registers N] [--jobs J]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAX_REGISTERS=168 JOBS=$(nproc)
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
while [ $# -gt 0 ]; do
  case "$1" in
    --max-registers) MAX_REGISTERS=${2:?}; shift 2 ;;
    --jobs) JOBS=${2:?}; shift 2 ;;
    *) echo "gpu-prebuild: unknown argument $1 (--max-registers N, --jobs J)" >&2; exit 2 ;;
  esac
done
configure_and_build() {  # DIR CUDA_FLAGS TARGETS...
  local dir=$1 flags=$2; shift 2
  cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DHAIRSIM_BUILD_BENCH=OFF -DHAIRSIM_PYTHON=OFF "-DCMAKE_CUDA_FLAGS=$flags" >/dev/null
  grep -q '^CMAKE_CUDA_COMPILER:' "$dir/CMakeCache.txt" ||
    { echo "gpu-prebuild: $dir was configured without CUDA (is nvcc on the PATH?)" >&2; exit 1; }
  cmake --build "$dir" -j "$JOBS" --target "$@"
}
configure_and_build "$ROOT/build/gpu-release" "-lineinfo" hairsim gpu_tests
configure_and_build "$ROOT/build/gpu-tune" "-maxrregcount=$MAX_REGISTERS" hairsim

dest=$ROOT/.gpu-prebuilt
mkdir -p "$dest"
exclude=$(git -C "$ROOT" rev-parse --git-path info/exclude)
grep -qx '/.gpu-prebuilt/' "$exclude" 2>/dev/null || echo '/.gpu-prebuilt/' >>"$exclude"
cd "$ROOT"
{
  echo build/gpu-release/src/hairsim
  echo build/gpu-release/tests/gpu_tests
  echo build/gpu-tune/src/hairsim
  find build/gpu-release -name CTestTestfile.cmake
  find build/gpu-release/tests -maxdepth 1 -name '*_include.cmake' -o -maxdepth 1 -name '*_tests.cmake'
} >"$dest/files.txt"
printf '%s\n%s\n%s\n' "$ROOT" "$(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (+ uncommitted changes)')" \
  "$MAX_REGISTERS" >build/gpu-prebuilt.info
echo build/gpu-prebuilt.info >>"$dest/files.txt"
tar -czf "$dest/builds.tar.gz" -T "$dest/files.txt"
rm -f "$dest/files.txt"
echo "gpu-prebuild: $(du -h "$dest/builds.tar.gz" | cut -f1) in $dest/builds.tar.gz (root $ROOT)"
