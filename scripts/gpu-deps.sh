#!/usr/bin/env bash
# Downloads, on this Debian 12 machine, the .deb files of the libraries hairsim builds against
# into .gpu-deps/ (ignored by git through .git/info/exclude), so that a device machine whose
# image lacks them and reaches no package registry can build there: name `.gpu-deps` in the
# device run's `carry`, and scripts/gpu-check.sh unpacks them into build/gpu-deps (never into /).
# Header-only libraries and static test libraries, plus libpng with its runtime library; the
# compiler, OpenMP, CMake and CUDA come with the device image. Google Benchmark is not needed
# there (gpu-check builds without bench/).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
packages=(libeigen3-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev
          libpng-dev libpng16-16 zlib1g-dev)
dest=$ROOT/.gpu-deps
mkdir -p "$dest"
exclude=$(git -C "$ROOT" rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu-deps/' "$exclude" 2>/dev/null ||
  echo '/.gpu-deps/' >>"$exclude"
cd "$dest"
rm -f ./*.deb
apt-get download -qq "${packages[@]}"
echo "gpu-deps: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $dest"
