#!/usr/bin/env bash
# Installs the Debian 12 packages hairsim builds against. Idempotent: prints nothing and
# installs nothing when every package is already present. The CUDA toolkit is optional and
# not a Debian package here; when nvcc is on PATH (or in /usr/local/cuda/bin) the CUDA backend
# is built too.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libpng-dev
  jq python3 ffmpeg
  python3-dev pybind11-dev python3-numpy python3-pytest
  python3-distributed python3-pandas  # hairsim sweep (docs/cluster.md)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
