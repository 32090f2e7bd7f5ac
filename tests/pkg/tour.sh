#!/usr/bin/env bash
# tour.sh PREFIX EXAMPLES SRCDIR: the README's five-minute tour run with
# PREFIX/bin/pmcfuse, an installed (or unpacked) tree, and nothing else of
# the build: no environment variable beyond PATH, HOME and TMPDIR (env -i),
# so the command must find its library, its collector and its man pages by
# itself. EXAMPLES holds the OpenMP programs the tour profiles (the build's
# examples/, programs under test, not part of the installation). Runs in the
# current folder; prints "ok: ..." or "FAIL: ..." and exits non-zero.
set -euo pipefail
PREFIX=$(realpath "$1") EX=$(realpath "$2") SRCDIR=$(realpath "$3")
P="$PREFIX/bin/pmcfuse"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); }
[ -x "$P" ] || fail "no $P"
# a clean environment: what an installed tool gets from a new user's shell
clean() { env -i PATH=/usr/bin:/bin HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" LC_ALL=C.UTF-8 "$@"; }

# the README's tour block, with P pointing at the installed command and the
# examples at the build's
awk '/^## A five-minute tour/ {on = 1} on && /^```sh/ {inblock = 1; next} inblock && /^```/ {exit} inblock {print}' \
	"$SRCDIR/README.md" >tour-cmds.sh
[ "$(grep -c '\$P ' tour-cmds.sh)" -ge 10 ] || fail "the tour block was not found in README.md"; ok
grep -q '^P=build/pmcfuse$' tour-cmds.sh || fail "the tour does not start with P=build/pmcfuse"; ok
sed -i "s|^P=build/pmcfuse\$|P='$P'; set -e|; s|build/examples/|'$EX'/|g" tour-cmds.sh
real=1
if [ ! -x "$EX/cholesky" ]; then
	echo "SKIP (real program): $EX/cholesky not built (no clang-16/libomp)"
	real=0
	sed -i "/^\\\$P run -e page-faults/,/cholesky/d; /chol\\./d" tour-cmds.sh
fi
# where tracepoints cannot be counted here, cpu-clock in their place
if ! why=$(clean "$P" events --check sched:sched_switch 2>&1 >/dev/null); then
	echo "SKIP (tracepoints): ${why#pmcfuse: events: }"
	sed -i 's/sched:sched_switch/cpu-clock/g' tour-cmds.sh
fi
clean bash tour-cmds.sh >tour.out 2>tour.err || fail "the tour failed: $(tail -5 tour.err)"; ok
[ -s fused.pmcf ] && [ -s hem.pmcf ] && [ -s sim.pmcf ] || fail "the tour did not write its profiles"; ok
if [ "$real" = 1 ]; then
	# the real program was recorded with the installed collector and fused
	[ -s chol.csv ] || fail "no chol.csv"; ok
	clean "$P" show --json chol.pmcf >chol.json
	[ "$(jq '.xus' chol.json)" -gt 0 ] || fail "chol.pmcf has no XU"; ok
	clean "$P" record -e page-faults -o one.pmcf -- "$EX/cholesky" 4 32 >/dev/null 2>rec.err ||
		fail "record with the installed collector: $(cat rec.err)"
	ok
fi
# show and every export format from the installed files
clean "$P" show sim.pmcf >show.txt || fail "show"; ok
for f in csv json sqlite; do
	clean "$P" export --format "$f" -o "sim.$f" sim.pmcf || fail "export --format $f"
	[ -s "sim.$f" ] || fail "export --format $f wrote nothing"; ok
done
if clean "$P" export --help | grep -q otf2; then
	clean "$P" export --format otf2 -o sim-otf2 sim.pmcf 2>otf2.err || fail "export otf2: $(cat otf2.err)"
	[ -f sim-otf2/traces.otf2 ] || fail "no OTF2 anchor file"; ok
fi
# help and man pages from the installed tree
clean "$P" --help | grep -q 'export .*OTF2' || fail "--help does not list OTF2 for export"; ok
clean "$P" help run >help-run.txt 2>&1 || fail "pmcfuse help run: $(cat help-run.txt)"
grep -q -- '--launcher' help-run.txt || fail "pmcfuse help run does not show the run page"; ok
if command -v man >/dev/null; then
	clean env MANPATH="$PREFIX/share/man" man pmcfuse-run 2>&1 | grep -q -- 'launcher' ||
		fail "man pmcfuse-run with MANPATH=$PREFIX/share/man"
	clean env MANPATH="$PREFIX/share/man" man pmcfuse >/dev/null 2>&1 || fail "man pmcfuse"
	ok
fi
echo "ok: tour from $PREFIX ($n checks)"
