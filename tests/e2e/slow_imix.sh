# imix end to end: synthetic LBR data gives the exact block counts through the
# CLI; on a test program (tests/data/hbbp/imix_prog.c), `imix reference`
# (callgrind) and an EBS-only `imix record` + `imix report` agree on the top
# mnemonics, and `imix compare --normalize` reports the average weighted error.

# synthetic data with a known control flow: HBBP equals the truth per block
expect_ok "$PMCFUSE" imix synth -o syn
truth=$OUT
# instructions per block = executions x length: 616 x 20, 924 x 3, 924 x 2, 308 x 2, 308 x 1
expect_ok "$PMCFUSE" imix report --by block syn
for c in 12320 2772 1848 616 308; do expect_match " $c " "$OUT"; done
expect_ok "$PMCFUSE" imix report --method lbr --format json syn
[ "$(echo "$OUT" | jq -r '.rows[0].key')" == ADD ] || fail "top mnemonic of the synthetic mix: $OUT"
expect_ok "$PMCFUSE" imix report --format sde syn
expect_match '\*total +17864' "$OUT"
expect_match 'block 0x40100d len 20 count 616' "$truth"
# the exact reference written beside it: zero error for HBBP, EBS and LBR
for m in hbbp ebs lbr; do
	expect_ok "$PMCFUSE" imix compare --json --method $m syn/ref syn
	echo "$OUT" > syn.json
	awk -v e="$(json .avg_weighted_error syn.json)" 'BEGIN { exit !(e < 1e-9) }' || fail "synthetic error ($m): $OUT"
done
# EBS and LBR are both exact there: no block tells them apart
expect_fail 1 "$PMCFUSE" imix train --json syn/ref syn
expect_match 'nothing to learn' "$ERR"

# timer samples (cpu-clock) of known latencies: the header names the
# time-to-count correction; without llvm-mca it says the correction was not
# made and shows the raw estimate (the same counts as --method ebs-raw)
expect_ok "$PMCFUSE" imix synth --timer -o syt
expect_ok env -u PMCF_LLVM_MCA PATH=/nonexistent "$PMCFUSE" imix report --by block syt
expect_match '# time-to-count correction NOT made: no llvm-mca on PATH' "$OUT"
expect_match 'this is the raw estimate' "$OUT"
expect_ok env -u PMCF_LLVM_MCA PATH=/nonexistent "$PMCFUSE" imix report --format csv syt
nomca=$OUT
expect_ok "$PMCFUSE" imix report --method ebs-raw --format csv syt
expect_eq "$nomca" "$OUT" "(no llvm-mca: the raw estimate)"
expect_ok "$PMCFUSE" imix report --method ebs-raw syt
expect_match 'time-to-count correction off \(--method ebs-raw\)' "$OUT"
expect_ok env PMCF_LLVM_MCA=/nonexistent/llvm-mca "$PMCFUSE" imix report --format json syt
echo "$OUT" > syt.json
expect_eq unavailable "$(json .correction syt.json)"
expect_match 'is not an executable file' "$(json .cost_model syt.json)"
expect_fail 1 "$PMCFUSE" imix report --skid sideways syt
expect_fail 1 "$PMCFUSE" imix report --method ebs-cooked syt
mca_ok=0
if env -u PMCF_LLVM_MCA "$PMCFUSE" imix report syt | grep -q '# time-to-count correction: samples / cycles per execution by llvm-mca'; then
	mca_ok=1
else
	echo "note: no usable llvm-mca here: the corrected path is not run end to end"
fi
expect_fail 1 "$PMCFUSE" imix report --costing sideways syt
expect_fail 1 "$PMCFUSE" imix report --arms sideways syt
if [ "$mca_ok" = 1 ]; then
	# the two blocks of the inner loop and the two of the outer one are
	# control-equivalent: two regions by default, none with --costing blocks
	expect_ok "$PMCFUSE" imix report syt
	expect_match 'control-equivalent blocks pooled \(2 regions\)' "$OUT"
	expect_ok "$PMCFUSE" imix report --costing blocks syt
	expect_match 'blocks costed alone' "$OUT"
	expect_ok "$PMCFUSE" imix compare --normalize --costing regions-chase syt/ref syt
	expect_match '0 pointer-chasing loads at 300 cycles' "$OUT"
fi

# usage and input errors: one line, exit 1
expect_fail 1 "$PMCFUSE" imix
expect_fail 1 "$PMCFUSE" imix frobnicate
expect_fail 1 "$PMCFUSE" imix report --by opcode syn
expect_fail 1 "$PMCFUSE" imix report nosuchdir
printf 'not a perf file' > junk.data
expect_fail 1 "$PMCFUSE" imix report junk.data
expect_fail 1 "$PMCFUSE" imix record -o x
expect_fail 1 "$PMCFUSE" imix train syn
expect_ok "$PMCFUSE" imix --help
expect_match 'imix record' "$OUT"

# hybrid recording needs LBR: a clear environment error elsewhere
if ! grep -q GenuineIntel /proc/cpuinfo; then
	expect_fail 2 "$PMCFUSE" imix record -o hyb -- /bin/true
	expect_match 'ebs-only' "$ERR"
fi

command -v perf >/dev/null || { echo "skip: no perf"; exit 0; }
command -v valgrind >/dev/null || { echo "skip: no valgrind"; exit 0; }
perf record -q -e cpu-clock -o probe.data -- /bin/true >/dev/null 2>&1 || { echo "skip: perf cannot record"; exit 0; }

cc -O2 -g -o prog "$SRCDIR/tests/data/hbbp/imix_prog.c"
N=100000000
expect_ok "$PMCFUSE" imix record --ebs-only -o rec -- ./prog $N
[ -f rec/perf.data ] && [ -f rec/imix.json ] || fail "record folder incomplete"
expect_ok "$PMCFUSE" imix reference -o ref -- ./prog $N
[ -f ref/callgrind.out ] || fail "reference folder incomplete"

# top-N mnemonic sets (ties broken by name, so compare sets, not ranks)
topset() { "$PMCFUSE" imix report --format csv --top "$2" "$1" | tail -n +2 | cut -d, -f1 | sort | tr '\n' ' '; }
refm=$(topset ref 3); meas=$(topset rec 3)
echo "top-3 mnemonics: reference [$refm] measured [$meas]"
expect_eq "$refm" "$meas" "(top-3 mnemonics)"
top_ref=$("$PMCFUSE" imix report --format csv --top 1 ref | sed -n 2p | cut -d, -f1)
top_meas=$("$PMCFUSE" imix report --format csv --top 1 rec | sed -n 2p | cut -d, -f1)
expect_eq "$top_ref" "$top_meas" "(top mnemonic)"
# every mnemonic above 1% in the reference is in the measured top 12
big=$("$PMCFUSE" imix report --format csv ref | awk -F, 'NR > 1 && $3 > 0.01 { print $1 }')
meas12=" $(topset rec 12)"
for m in $big; do [[ "$meas12" == *" $m "* ]] || fail "$m (>1% in the reference) not in the measured top 12: $meas12"; done

expect_ok "$PMCFUSE" imix compare --normalize --json ref rec
echo "$OUT" > cmp.json
err=$(json '.avg_weighted_error' cmp.json)
echo "average weighted error (EBS on cpu-clock vs callgrind): $err"
awk -v e="$err" 'BEGIN { exit !(e >= 0 && e < 0.25) }' || fail "average weighted error $err"
expect_ok "$PMCFUSE" imix compare --normalize ref rec
expect_match 'average weighted error: [0-9.]+%' "$OUT"
# the header says what the normalisation scales by and what the average weighs by
expect_match 'measured counts x [0-9.e+]+ \(reference total / measured total' "$OUT"
expect_match 'average weighted by the reference count' "$OUT"
# loop speeds are measured by default where the samples carry the user
# registers (else the cost model alone, and the header says so); --rate none
# keeps the cost model alone
if [ "$mca_ok" = 1 ]; then
	expect_match 'loops at their measured speed|no loop speed measured \(the samples carry no user registers\)' "$OUT"
	expect_ok "$PMCFUSE" imix compare --normalize --rate none ref rec
	expect_match 'average weighted error: [0-9.]+%' "$OUT"
	expect_nomatch 'measured speed|no loop speed' "$OUT"
	# two-way branches: held to the branch's count by default; never
	# with --arms samples
	expect_ok "$PMCFUSE" imix report --arms samples --format json rec
	echo "$OUT" > arms.json
	expect_eq 0 "$(json .arms_flow arms.json)"
	expect_ok "$PMCFUSE" imix compare --normalize --arms samples ref rec
	expect_match 'average weighted error: [0-9.]+%' "$OUT"
	expect_nomatch 'two-way branches' "$OUT"
fi
# the same recording without llvm-mca: said so, raw estimate
expect_ok env -u PMCF_LLVM_MCA PATH=/nonexistent "$PMCFUSE" imix report --top 3 rec
expect_match 'time-to-count correction NOT made' "$OUT"
if [ "$mca_ok" = 1 ]; then
	expect_ok "$PMCFUSE" imix report --top 3 rec
	expect_match '# time-to-count correction: samples / cycles per execution by llvm-mca' "$OUT"
fi

# other views of the same data
for by in isa isa-set category packing module function block line; do
	expect_ok "$PMCFUSE" imix report --by $by --top 3 ref
done
expect_ok "$PMCFUSE" imix report --by packing --format csv ref
expect_match 'SSE2/SCALAR' "$OUT"
expect_ok "$PMCFUSE" imix report --by function --top 3 --format csv rec
expect_match 'prog!work_int' "$OUT"
expect_ok "$PMCFUSE" imix report --by line --top 3 --format csv ref
expect_match 'imix_prog.c:[0-9]+' "$OUT"
# compare against a CSV mix
"$PMCFUSE" imix report --format csv rec > rec.csv
expect_ok "$PMCFUSE" imix compare --normalize ref rec.csv

# calls through the PLT (issue 36, item 5): callgrind's default
# --skip-plt=yes charges each stub to its call site, so 100 000 calls of
# strlen counted 200 000 CALLs and no stub JMP; the reference now counts one
# CALL and one stub JMP per call (the JMP charged from the call site)
cat > plt.c <<'PLT'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	size_t s = 0;
	char b[32] = "hello world";
	for (long i = 0; i < n; i++) { b[i & 7] = (char)('a' + (i & 15)); s += strlen(b); }
	printf("%zu\n", s);
	return 0;
}
PLT
cc -O1 -g -fno-builtin -fplt -o plt plt.c
expect_ok "$PMCFUSE" imix reference -o pltref -- ./plt 100000
expect_ok "$PMCFUSE" imix report --format csv pltref
calls=$(echo "$OUT" | awk -F, '$1 == "CALL" { print $2 }')
rets=$(echo "$OUT" | awk -F, '$1 == "RET" { print $2 }')
jmps=$(echo "$OUT" | awk -F, '$1 == "JMP" { print $2 }')
awk -v c="$calls" -v r="$rets" 'BEGIN { exit !(c < 1.05 * r) }' || fail "PLT calls counted twice: CALL $calls RET $rets"
awk -v j="$jmps" 'BEGIN { exit !(j >= 100000) }' || fail "PLT stub JMPs not counted: JMP $jmps"
expect_match '"tool": "callgrind --dump-instr=yes --skip-plt=no"' "$(cat pltref/imix.json)"

# a missing program is named (issue 36, item 9: perf said "the program
# exited with status 255")
expect_fail 1 "$PMCFUSE" imix record --ebs-only -o nope -- ./no-such-program
expect_match 'no-such-program: no such program' "$ERR"
expect_fail 1 "$PMCFUSE" imix reference -o nope -- no-such-program-on-path
expect_match 'no such program on PATH' "$ERR"
[ ! -e nope ] || fail "a failed record left a folder"

# the man page's examples run as printed (./a.out: the PLT program above),
# and compare of a timer recording compares shares without --normalize
mkdir man && cp plt man/a.out
sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$SRCDIR/docs/man/pmcfuse-imix.1" | grep '^pmcfuse imix' |
	sed 's/\\-/-/g; s|\./a\.out|./a.out 100000|' > examples.txt
[ "$(wc -l < examples.txt)" -ge 4 ] || fail "no examples in the man page"
cd man
while read -r line; do
	# shellcheck disable=SC2086
	expect_ok "$PMCFUSE" ${line#pmcfuse }
done < ../examples.txt
expect_match 'normalize implied' "$OUT"
expect_match 'average weighted error' "$OUT"
expect_match 'GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F' "$("$PMCFUSE" imix report run1)"
cd ..
