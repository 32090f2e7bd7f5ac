#!/usr/bin/env bash
# install_tour.sh BUILD: the Debian packages of `make package` (BUILD/packages/)
# unpacked into a scratch root with dpkg-deb -x, checked for the split
# (libpmcfuse1: library + collector; pmcfuse: command + man pages;
# libpmcfuse-dev: headers, .so, pkg-config, CMake), then the README tour run
# from the unpacked files only (tests/pkg/tour.sh: no environment variable).
# `make package-check` builds the packages and runs this.
set -euo pipefail
BUILD=$(realpath "${1:-build}")
SRCDIR=$(realpath "$(dirname "$0")/../..")
fail() { echo "FAIL: $*" >&2; exit 1; }
shopt -s nullglob
debs=("$BUILD"/packages/*.deb)
[ ${#debs[@]} -eq 3 ] || fail "expected 3 packages in $BUILD/packages, found ${#debs[@]} (run make package)"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pmcfuse-pkg.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
root="$scratch/root"
mkdir -p "$root"
declare -A files
for d in "${debs[@]}"; do
	name=$(dpkg-deb -f "$d" Package)
	files[$name]=$(dpkg-deb -c "$d" | awk '{print $6}')
	dpkg-deb -x "$d" "$root"
done
has() { # has PACKAGE REGEX: one of PACKAGE's paths matches
	printf '%s\n' "${files[$1]:-}" | grep -Eq "$2" || fail "package $1 has no path matching $2"
}
has libpmcfuse1 '^\./usr/lib/libpmcfuse\.so\.1$'
has libpmcfuse1 '^\./usr/lib/pmcfuse/libpmcfuse-ompt\.so$'
has pmcfuse '^\./usr/bin/pmcfuse$'
has pmcfuse '^\./usr/share/man/man1/pmcfuse-run\.1'
has libpmcfuse-dev '^\./usr/include/pmcfuse/pmcfuse\.h$'
has libpmcfuse-dev '^\./usr/lib/libpmcfuse\.so$'
has libpmcfuse-dev '^\./usr/lib/pkgconfig/pmcfuse\.pc$'
has libpmcfuse-dev '^\./usr/lib/cmake/pmcfuse/pmcfuseConfig\.cmake$'
! printf '%s\n' "${files[pmcfuse]}" | grep -q '^\./usr/include/' || fail "headers in the pmcfuse package"
for p in pmcfuse libpmcfuse-dev; do
	deps=$(dpkg-deb -f "$BUILD"/packages/"$p"_*.deb Depends)
	[[ "$deps" == *libpmcfuse1* ]] || fail "$p does not depend on libpmcfuse1: $deps"
done
deps=$(dpkg-deb -f "$BUILD"/packages/libpmcfuse1_*.deb Depends)
[[ "$deps" == *libjansson4* ]] || fail "libpmcfuse1's Depends lack its shared libraries: $deps"
echo "ok: packages ${!files[*]}"
mkdir -p "$scratch/work"
cd "$scratch/work"
"$SRCDIR/tests/pkg/tour.sh" "$root/usr" "$BUILD/examples" "$SRCDIR"
# the -dev package: a program built with its pmcfuse.pc (relocatable, so it
# works from the scratch root) runs against libpmcfuse1's library
printf '#include <stdio.h>\n#include <pmcfuse/pmcfuse.h>\nint main(void) { puts(pmcf_version()); return 0; }\n' >use.c
flags=$(PKG_CONFIG_PATH="$root/usr/lib/pkgconfig" pkg-config --cflags --libs pmcfuse) || fail "pkg-config pmcfuse"
# shellcheck disable=SC2086
cc -o use use.c $flags -Wl,-rpath,"$root/usr/lib" || fail "cannot build against the -dev package"
want=$(dpkg-deb -f "$BUILD"/packages/libpmcfuse1_*.deb Version)
[ "$(./use)" = "$want" ] || fail "program linked with the -dev package printed '$(./use)', not $want"
echo "ok: a program builds with libpmcfuse-dev and runs"
