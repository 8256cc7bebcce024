#!/usr/bin/env bash
# Configures (once) and builds Tessera in ./build (release, warnings on).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build --buildtype=release
meson compile -C build
