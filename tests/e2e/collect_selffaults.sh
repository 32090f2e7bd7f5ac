# The recorder's own page faults stay out of the XUs' counts (issue 17): its
# record chunks are mapped and faulted writable before any XU writes them.
# On a file system that tracks dirty pages (ext4, xfs: a disk-backed TMPDIR),
# MAP_POPULATE alone left the first store to each 4 KiB page faulting inside
# whichever XU wrote it: knapsack's 8178 XUs showed 623 page-faults where the
# program faults twice inside its tasks. TMPDIR is set under the build tree
# (usually on disk; on tmpfs this test cannot tell the difference).
EX="$(dirname "$PMCFUSE")/examples"
mkdir -p "$PWD/tmp"

# faults_in_xus NAME PROGRAM ARGS...: records page-faults, prints "XUs faults"
faults_in_xus() {
	local name=$1; shift
	expect_ok env TMPDIR="$PWD/tmp" "$PMCFUSE" record -e page-faults,context-switches \
		-o "$name.pmcf" -- "$@"
	expect_ok "$PMCFUSE" export --format csv -o "$name.csv" "$name.pmcf"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "page-faults") c = i; next }
		 { n++; s += $c } END { print n, s + 0 }' "$name.csv"
}

# check NAME PROGRAM ARGS...: fewer than one fault per 100 XUs inside XUs
check() {
	local name=$1 r xus f
	r=$(faults_in_xus "$@")
	read -r xus f <<<"$r"
	echo "$name: $f page-faults inside $xus XUs"
	[ "$xus" -ge 1000 ] || fail "$name: only $xus XUs"
	[ "$f" -lt $((xus / 100)) ] || fail "$name: $f page-faults inside $xus XUs (the recorder's own?)"
	ok
}

omp_examples || exit 0
OMP_NUM_THREADS=1 check knapsack1 "$EX/knapsack" 20 12
OMP_NUM_THREADS=2 check knapsack2 "$EX/knapsack" 20 12
