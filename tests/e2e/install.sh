# `cmake --install BUILD --prefix P` gives a working tool at any prefix: the
# README tour runs from P with no environment variable (tests/pkg/tour.sh:
# the collector is found relative to the command, the man pages under
# P/share/man, `pmcfuse help VERB`), and a program builds against the
# installed library through pmcfuse.pc and through find_package(pmcfuse).
BUILD=$(dirname "$PMCFUSE")
if nm -D "$PMCFUSE" 2>/dev/null | grep -q __asan_init; then
	echo "SKIP: a sanitizer build (the installed tour runs with no environment, which ASan needs; make check runs it)"
	return 0
fi
expect_ok cmake --install "$BUILD" --prefix "$TESTDIR/prefix"
P="$TESTDIR/prefix"
[ -x "$P/bin/pmcfuse" ] || fail "no bin/pmcfuse"; ok
libdir=$(cd "$P" && ls -d lib* | head -1)
[ -f "$P/$libdir/pmcfuse/libpmcfuse-ompt.so" ] || fail "no collector under $libdir/pmcfuse"; ok
[ -f "$P/share/man/man1/pmcfuse.1" ] && [ -f "$P/share/man/man1/pmcfuse-record.1" ] || fail "no man pages"; ok
mkdir tour && (cd tour && bash "$SRCDIR/tests/pkg/tour.sh" "$P" "$BUILD/examples" "$SRCDIR") >tour.log 2>&1 ||
	fail "tour from the installed tree: $(tail -5 tour.log)"
ok
cat tour.log
# help: unknown verb, no verb
expect_fail 1 env -i PATH=/usr/bin:/bin "$P/bin/pmcfuse" help frobnicate
expect_ok env -i PATH=/usr/bin:/bin "$P/bin/pmcfuse" help
expect_match 'pmcfuse' "$OUT"

# a program linked with the installed library: pkg-config, then CMake
cat >use.c <<'C'
#include <stdio.h>
#include <pmcfuse/pmcfuse.h>
int main(void) { printf("%s\n", pmcf_version()); return 0; }
C
want=$("$PMCFUSE" --version | awk '{print $2}')
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
	export PKG_CONFIG_PATH="$P/$libdir/pkgconfig"
	expect_ok pkg-config --modversion pmcfuse
	expect_eq "$want" "$OUT" "(pkg-config version)"
	# shellcheck disable=SC2046
	expect_ok cc -o use use.c $(pkg-config --cflags --libs pmcfuse) "-Wl,-rpath,$P/$libdir"
	expect_ok ./use
	expect_eq "$want" "$OUT" "(pkg-config program)"
	# the library example (the whole pipeline) built against the installed
	# headers and library, run on a small simulated workload
	# shellcheck disable=SC2046
	expect_ok cc -Wall -Wextra -Werror -o pipeline "$SRCDIR/examples/pipeline.c" \
		$(pkg-config --cflags --libs pmcfuse) "-Wl,-rpath,$P/$libdir"
	expect_ok ./pipeline pl PAPI_TOT_INS,PAPI_L1_DCM,PAPI_L2_TCM 2 --sim cholesky,blocks=4
	expect_match 'EPD [0-9.]+ over' "$OUT"
	unset PKG_CONFIG_PATH
fi
mkdir cm && cp use.c cm/ && cat >cm/CMakeLists.txt <<'C'
cmake_minimum_required(VERSION 3.16)
project(use C)
find_package(pmcfuse 0.2 REQUIRED)
add_executable(use use.c)
target_link_libraries(use PRIVATE pmcfuse::pmcfuse)
C
expect_ok cmake -S cm -B cm/build "-DCMAKE_PREFIX_PATH=$P"
expect_ok cmake --build cm/build
expect_ok cm/build/use
expect_eq "$want" "$OUT" "(find_package program)"
