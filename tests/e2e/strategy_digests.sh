# Every combination strategy gives the same profile as when its digest was
# recorded (issue 37: "digests of every strategy unchanged" while bc.c and the
# other files are split): one simulated campaign kept with `run --keep`, fused
# by each strategy (and bc/match with imputation) with one thread and with
# two, `export --format csv --provenance` (values and which XU each came
# from; the executions' paths made relative) hashed. Recorded after the split
# of bc.c's step (issue 37); bc, bc-unlabeled, bc-label, bc-lgl and match
# gave the same profiles before it (de5e553) and after it on these
# executions. A change that alters a pairing on purpose records the new
# digest here and says why in its commit message.
expect_ok "$PMCFUSE" run -e all --strategy bc --seed 5 --keep ex -o run.pmcf -q \
	--sim cholesky,blocks=24,machine=xeon192
[ "$(ls ex/exec-*.pmcf | wc -l)" -ge 4 ] || fail "run --keep left fewer than 4 executions"
ok
DIGESTS='8dea8700d2ee0412 ctc
810f1ee60716358b lgl
1e8440650d314d94 bc
36cc8800f445600a bc-unlabeled
8f1294dd2f854373 random
5d6dbe13094ced51 match
2a687419eed118a8 bc-label
810f1ee60716358b bc-lgl
d53bc39c9a5e99a7 oracle
040ae875a0e58b1c naive
7ee735968eb3b5c3 bc --impute 5
7c8d1701073b89d0 bc --impute 5 --impute-mode rank
61fea8031eb16b2a match --impute 3'
n=0
while read -r want strategy; do
	n=$((n + 1))
	for t in 1 2; do
		# shellcheck disable=SC2086 # $strategy holds the strategy and its options
		expect_ok "$PMCFUSE" combine -q --strategy $strategy --seed 3 --threads $t -o out.pmcf ex/exec-*.pmcf </dev/null
		expect_ok "$PMCFUSE" export --format csv --provenance -o out.csv out.pmcf </dev/null
		expect_eq "$want" "$(sed "s#$PWD/##g" out.csv | sha256sum | cut -c1-16)" "($strategy, $t threads)"
	done
done <<<"$DIGESTS"
expect_eq 13 "$n" "(strategies checked)"
# every strategy of the library's table (the list its error text names) has
# a digest above: a new strategy fails here until its digest is recorded
expect_fail 1 "$PMCFUSE" combine --strategy no-such-strategy out.pmcf </dev/null
all=$(printf '%s\n' "$ERR" | sed -n 's/.*unknown strategy .no-such-strategy. (\([^)]*\)).*/\1/p' | tr -d ' ' | tr ',' ' ')
[ -n "$all" ] || fail "no strategy list in: $ERR"
for s in $all; do
	grep -q "^[0-9a-f]\{16\} $s\( \|$\)" <<<"$DIGESTS" || fail "strategy $s has no recorded digest"
	ok
done
