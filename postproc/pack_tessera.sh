#!/bin/sh
# SPDX-License-Identifier: MIT
# Packs a built tessera with the shared libraries it links (as ldd resolves
# them here) and this machine's dynamic loader into DIR, with a wrapper
# DIR/tessera that runs it through that loader: a machine of the same
# architecture without Debian's packages (a borrowed benchmark machine) runs
# it as built here. The wrapper sets GOMP_SPINCOUNT=1000, tessera's own
# default, so that tessera does not re-execute itself (src/cli/main.c) past
# the loader.
#
#   postproc/pack_tessera.sh DIR [BINARY]      (BINARY: build/tessera)
#
# DIR is about 75 MB (OpenBLAS is half of it); `tar -cJf` makes it ~17 MB.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 DIR [BINARY]" >&2; exit 2; }
dir=$1
bin=${2:-build/tessera}
[ -x "$bin" ] || { echo "$0: $bin: no such executable (build first: scripts/build.sh)" >&2; exit 2; }
mkdir -p "$dir/lib"
cp "$bin" "$dir/tessera.bin"
ldd "$bin" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do cp -L "$lib" "$dir/lib/"; done
loader=$(ldd "$bin" | awk '/ld-linux/ {print $1}')
cp -L "$loader" "$dir/ld.so"
cat >"$dir/tessera" <<'WRAP'
#!/bin/sh
D=$(cd "$(dirname "$0")" && pwd)
export GOMP_SPINCOUNT=1000
exec "$D/ld.so" --library-path "$D/lib" "$D/tessera.bin" "$@"
WRAP
chmod +x "$dir/tessera"
"$dir/tessera" --version | head -1
