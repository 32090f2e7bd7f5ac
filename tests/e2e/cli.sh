# The pmcfuse command: global options, per-verb help, and one-line errors with
# the right exit status for bad input.

expect_ok "$PMCFUSE" --version
expect_match '^pmcfuse [0-9]+\.[0-9]+\.[0-9]+$' "$OUT"
expect_ok "$PMCFUSE" --help
expect_match 'events' "$OUT"
expect_match 'export' "$OUT"
for verb in events record show export; do
	expect_ok "$PMCFUSE" "$verb" --help
	expect_match "usage: pmcfuse $verb" "$OUT"
done

expect_fail 1 "$PMCFUSE" frobnicate
expect_match "unknown verb 'frobnicate'" "$ERR"
expect_fail 1 "$PMCFUSE"  --frob
expect_fail 1 "$PMCFUSE" show --bogus x.pmcf
expect_match '^pmcfuse: show: unknown option' "$ERR"
expect_fail 1 "$PMCFUSE" show
expect_match 'missing PROFILE' "$ERR"
# no PROFILE: record's default output pmcfuse.pmcf, as perf report reads perf.data
"$PMCFUSE" record -q -e PAPI_TOT_INS --sim cholesky,blocks=4 || fail "record without -o"
expect_ok "$PMCFUSE" show
expect_match '^profile +pmcfuse.pmcf' "$OUT"
rm -f pmcfuse.pmcf

# show / export on files that are not (good) profiles
expect_fail 1 "$PMCFUSE" show does-not-exist.pmcf
expect_match '^pmcfuse: show: .*does-not-exist.pmcf' "$ERR"
printf 'just some text\n' >text.pmcf
expect_fail 1 "$PMCFUSE" show text.pmcf
expect_match 'not a pmcfuse' "$ERR"
: >empty.pmcf
expect_fail 1 "$PMCFUSE" show empty.pmcf
expect_match 'empty' "$ERR"
sqlite3 foreign.db 'CREATE TABLE t(a); INSERT INTO t VALUES (1);'
expect_fail 1 "$PMCFUSE" show foreign.db
expect_match 'not a pmcfuse' "$ERR"
expect_fail 1 "$PMCFUSE" export --format csv foreign.db
expect_fail 1 "$PMCFUSE" export --format xml foreign.db
expect_match "unknown format 'xml'" "$ERR"
expect_fail 1 "$PMCFUSE" export foreign.db
expect_match 'format' "$ERR"
