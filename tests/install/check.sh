#!/usr/bin/env bash
# Installs the build into a scratch prefix (cmake --install --prefix, which differs from the
# configured one), then builds and runs a program against the installed header and library
# found through the installed pkg-config file only.
#   check.sh BUILD_DIR CC
set -euo pipefail
build=$1
cc=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
pc=$(find "$work/prefix" -name bhemu.pc | head -1)
[ -n "$pc" ] || { echo "no bhemu.pc installed" >&2; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
cat >"$work/use.c" <<'C'
#include <stdio.h>
#include <bhemu/bhemu.h>
int main(void)
{
	struct bh_device *dev;
	if (bh_device_open(NULL, &dev) != BH_OK)
		return 1;
	unsigned cols, rows;
	bh_device_grid_size(dev, &cols, &rows);
	printf("grid %ux%u\n", cols, rows);
	bh_device_close(dev);
	return 0;
}
C
# shellcheck disable=SC2046
"$cc" -std=gnu17 -o "$work/use" "$work/use.c" $(pkg-config --cflags bhemu) $(pkg-config --static --libs bhemu)
out=$("$work/use")
[ "$out" = "grid 1x1" ] || { echo "unexpected output: $out" >&2; exit 1; }
"$work/prefix/bin/bhemu" --version >/dev/null
# The simulator library for tt-metal, when built: found through its own pkg-config file, loadable,
# exporting the libttsim ABI, its header installed.
if [ -e "$build/libbhemu_ttsim.so" ]; then
  sim=$(pkg-config --variable=simulator bhemu-ttsim)
  [ -f "$sim" ] || { echo "bhemu-ttsim.pc names $sim, which is not installed" >&2; exit 1; }
  [ -f "$(pkg-config --variable=includedir bhemu-ttsim)/bhemu/ttsim.h" ] || { echo "bhemu/ttsim.h not installed" >&2; exit 1; }
  cat >"$work/load.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h || !dlsym(h, "libttsim_init") || !dlsym(h, "libttsim_clock") || dlsym(h, "bh_device_open")) {
		fprintf(stderr, "%s: %s\n", argv[1], h ? "wrong exports" : dlerror());
		return 1;
	}
	return 0;
}
C
  "$cc" -o "$work/load" "$work/load.c" -ldl
  "$work/load" "$sim"
fi
echo "installed to $work/prefix; pkg-config flags: $(pkg-config --cflags --libs bhemu)"
