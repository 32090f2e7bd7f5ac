#!/usr/bin/env bash
# The tests and the demo once more in the environments users have, where the
# README's commands must pass too:
#   notracefs  root in a mount namespace without tracefs or debugfs, and
#              without CAP_SYS_ADMIN, so tracefs cannot be mounted either
#              (containers; minimal images)
#   unpriv     an unprivileged user (nobody), kernel.perf_event_paranoid as
#              this machine has it (2 on Debian)
#   noopenmp   a build without clang-16/libomp (-DPMCF_OPENMP=OFF): the
#              simulated half and the task API still run
# Usage: scripts/test-envs.sh [notracefs|unpriv|noopenmp|all]   (needs root
# for notracefs and unpriv; a case this machine cannot arrange is skipped and
# says why). BUILD names the normal build folder (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
which=${1:-all}
failed=()

say() { printf '\n== test-envs: %s\n' "$*"; }
skip() { printf 'test-envs: skip %s: %s\n' "$1" "$2"; }

# The e2e tests (fast ones) of build folder $1, then the demo into a scratch folder.
e2e_and_demo() {
	local b=$1
	(cd "$b" && ctest --output-on-failure -j"$JOBS" -L e2e -LE slow) &&
		OUT=$(mktemp -d) && OUT=$OUT scripts/demo.sh "$b/pmcfuse" >"$b/demo-env.log" 2>&1 &&
		echo "demo: ok ($(grep -c . "$b/demo-env.log") lines, log in $b/demo-env.log)" ||
		{ tail -n 20 "$b/demo-env.log" 2>/dev/null; return 1; }
}

notracefs() {
	say "notracefs: root, no tracefs, no CAP_SYS_ADMIN to mount it"
	[ "$(id -u)" -eq 0 ] || { skip notracefs "needs root to make a mount namespace"; return 0; }
	command -v unshare >/dev/null && command -v setpriv >/dev/null ||
		{ skip notracefs "unshare/setpriv (util-linux) missing"; return 0; }
	unshare -m true 2>/dev/null || { skip notracefs "unshare -m is not permitted here"; return 0; }
	[ -x "$BUILD/pmcfuse" ] || { echo "test-envs: build $BUILD first (make build)" >&2; return 1; }
	export -f e2e_and_demo
	export JOBS
	unshare -m --propagation private bash -c '
		set -e
		for m in $(awk "\$3 == \"tracefs\" || \$3 == \"debugfs\" { print \$2 }" /proc/self/mounts | sort -r); do
			umount -l "$m"
		done
		if awk "\$3 == \"tracefs\"" /proc/self/mounts | grep -q .; then
			echo "test-envs: tracefs still mounted" >&2; exit 1
		fi
		exec setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin bash -c "e2e_and_demo \"$1\""
	' notracefs "$BUILD" || failed+=(notracefs)
}

unpriv() {
	say "unpriv: user nobody, kernel.perf_event_paranoid = $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
	[ "$(id -u)" -eq 0 ] || { skip unpriv "needs root to switch to user nobody (already unprivileged: run make check)"; return 0; }
	command -v setpriv >/dev/null || { skip unpriv "setpriv (util-linux) missing"; return 0; }
	local dir
	dir=$(mktemp -d /tmp/pmcfuse-unpriv.XXXXXX)
	chmod 755 "$dir"
	# a copy of the sources that user nobody can reach and write
	tar --exclude='./build*' --exclude=./out --exclude=./.git -cf - . | tar -xf - -C "$dir"
	chown -R 65534:65534 "$dir"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$dir" JOBS="$JOBS" bash -c '
		set -e
		cd "$1"
		cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
		cmake --build build -j"$JOBS" >build.log 2>&1 || { tail -n 30 build.log; exit 1; }
		cd build && ctest --output-on-failure -j"$JOBS" -LE slow && cd .. &&
		OUT=$(mktemp -d) scripts/demo.sh build/pmcfuse >build/demo-env.log 2>&1 &&
		echo "demo: ok" || { tail -n 20 build/demo-env.log; exit 1; }
	' unpriv "$dir" || failed+=(unpriv)
	rm -rf "$dir"
}

noopenmp() {
	say "noopenmp: a build without clang-16/libomp (-DPMCF_OPENMP=OFF)"
	cmake -S . -B "$BUILD-noomp" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPMCF_OPENMP=OFF >/dev/null
	cmake --build "$BUILD-noomp" -j"$JOBS" >/dev/null
	[ ! -e "$BUILD-noomp/examples/cholesky" ] || { echo "test-envs: noopenmp built cholesky" >&2; failed+=(noopenmp); return 0; }
	e2e_and_demo "$BUILD-noomp" || failed+=(noopenmp)
}

case $which in
notracefs | unpriv | noopenmp) $which ;;
all) notracefs; unpriv; noopenmp ;;
*) echo "usage: scripts/test-envs.sh [notracefs|unpriv|noopenmp|all]" >&2; exit 2 ;;
esac
if [ ${#failed[@]} -gt 0 ]; then
	echo "test-envs: FAILED in: ${failed[*]}" >&2
	exit 1
fi
echo "test-envs: ok ($which)"
