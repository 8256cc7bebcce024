#!/usr/bin/env bash
# Installs Tessera's build and test dependencies on Debian 12 (as root, or
# with sudo), only what is missing. See ARCHITECTURE.md for why each is there.
set -euo pipefail
pkgs=(build-essential meson ninja-build pkg-config
      libhdf5-dev hdf5-tools libsuitesparse-dev libyaml-dev libode-dev libopenblas-dev liblapack-dev libmetis-dev
      python3 python3-numpy python3-h5py python3-jsonschema python3-yaml python3-vtk9 python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
