# export --format sqlite|otf2|tsv and typed JSON metadata: a profile without the
# SQL layer (as an older pmcfuse wrote it) gets a copy with the views and is
# itself left alone; OTF2 archives pass otf2-print; bad uses fail cleanly.

expect_ok "$PMCFUSE" record --sim cholesky,blocks=5,seed=4 -e PAPI_TOT_INS,PAPI_L1_DCM -o a.pmcf
n=$(sqlite3 a.pmcf 'SELECT count(*) FROM xu_values')
expect_eq "$n" "$(sqlite3 a.pmcf "SELECT value FROM format WHERE key = 'xus'")"

# an "old" profile: the layer removed; pmcfuse still reads it, and never changes it
cp a.pmcf old.pmcf
sqlite3 old.pmcf 'DROP VIEW xu_values; DROP VIEW xu_values_long; DROP TABLE xu_row; VACUUM;'
chmod a-w old.pmcf
sum=$(sha256sum <old.pmcf)
expect_ok "$PMCFUSE" show old.pmcf
expect_ok "$PMCFUSE" export --format sqlite -o new.pmcf old.pmcf
expect_eq "$sum" "$(sha256sum <old.pmcf)"
expect_eq "" "$(sqlite3 old.pmcf "SELECT name FROM sqlite_master WHERE name = 'xu_values'")"
expect_eq "$n" "$(sqlite3 new.pmcf 'SELECT count(*) FROM xu_values')"
# the copy holds the same values: the CSV exports agree
expect_ok "$PMCFUSE" export --format csv -o old.csv old.pmcf
expect_ok "$PMCFUSE" export --format csv -o new.csv new.pmcf
cmp -s old.csv new.csv || fail "export --format sqlite changed the profile's values"; ok
# the view's numbers are the CSV's numbers
got=$(sqlite3 -csv new.pmcf 'SELECT xu, type_name, thread, start_ns, "PAPI_L1_DCM" FROM xu_values ORDER BY xu' | md5sum)
expect_eq "$(tail -n +2 new.csv | cut -d, -f1,3,6,8,12 | md5sum)" "$got"
expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"

# tsv: CSV's table with tabs (these names hold no comma, quote, tab or
# newline, so nothing is quoted or escaped), with --truth too; cut splits it
expect_ok "$PMCFUSE" export --format tsv --truth -o a.tsv a.pmcf
expect_ok "$PMCFUSE" export --format csv --truth -o a.csv a.pmcf
expect_eq "$(tr ',' '\t' <a.csv | md5sum)" "$(md5sum <a.tsv)"
expect_eq "$(cut -d, -f3,12 a.csv | tr ',' '\t' | md5sum)" "$(cut -f3,12 a.tsv | md5sum)"

# sqlite and otf2 write files, not standard output; no --truth/--provenance
expect_fail 1 "$PMCFUSE" export --format sqlite a.pmcf
expect_match 'needs -o FILE' "$ERR"
expect_fail 1 "$PMCFUSE" export --format otf2 -o - a.pmcf
expect_fail 1 "$PMCFUSE" export --format sqlite --truth -o x.pmcf a.pmcf
expect_fail 1 "$PMCFUSE" export --format sqlite -o a.pmcf a.pmcf
expect_fail 1 "$PMCFUSE" export --format xml a.pmcf
expect_match 'csv, tsv, json, sqlite or otf2' "$ERR"

# JSON metadata with real types
expect_ok "$PMCFUSE" export --format json -o a.json a.pmcf
expect_eq boolean "$(json '.meta.complete | type' a.json)"
expect_eq number "$(json '.meta.pmcs | type' a.json)"
expect_eq number "$(json '.meta.exit_status | type' a.json)"
expect_eq string "$(json '.meta.seed | type' a.json)"
EX="$(dirname "$PMCFUSE")/examples"
expect_ok "$PMCFUSE" record -e page-faults -o p.pmcf -- "$EX/plain" 2 3
expect_ok "$PMCFUSE" export --format json -o p.json p.pmcf
expect_eq '["2","3"]' "$(jq -c '.meta.args' p.json)"

# OTF2
if [ "${PMCF_HAVE_OTF2:-0}" != 1 ]; then
	expect_fail 2 "$PMCFUSE" export --format otf2 -o tr a.pmcf
	expect_match 'not built with OTF2' "$ERR"
	[ ! -e tr ] || fail "tr left behind"; ok
	echo "SKIP (OTF2 archive): this pmcfuse was built without libotf2"
	return 0
fi
expect_ok "$PMCFUSE" export --format otf2 -o tr a.pmcf
[ -f tr/traces.otf2 ] && [ -f tr/traces.def ] || fail "no archive in tr: $(ls -R tr)"; ok
expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"
# an existing non-empty folder is refused and left alone; an empty one is used
expect_fail 1 "$PMCFUSE" export --format otf2 -o tr a.pmcf
expect_match 'not empty' "$ERR"
mkdir empty
# a device or a pipe: said so, not "remove it"
expect_fail 1 "$PMCFUSE" export --format otf2 -o /dev/null a.pmcf
expect_match 'is a character device; an OTF2 archive is a folder' "$ERR"
mkfifo fifo
expect_fail 1 "$PMCFUSE" export --format otf2 -o fifo a.pmcf
expect_match 'is a FIFO \(a pipe\); an OTF2 archive is a folder' "$ERR"
[ -p fifo ] || fail "the FIFO was replaced"; ok
expect_ok "$PMCFUSE" export --format otf2 -o empty a.pmcf
[ -f empty/traces.otf2 ] || fail "nothing written into the empty folder"; ok
# coarse multiplexing leaves values missing: every event is still exported,
# its metric written only at the XUs that have a value
expect_ok "$PMCFUSE" record --sim cholesky,blocks=5 -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_TCM,PAPI_L3_TCM,PAPI_LD_INS --pmcs 2 --multiplex rr --period-ms 20 -o m.pmcf
expect_ok "$PMCFUSE" export --format otf2 -o mt m.pmcf
expect_eq "" "$ERR"
# a file size limit (ulimit -f) or a full disk: exit 2 naming it, nothing left
# behind (libotf2 reported success for some truncated archives; the export
# reads the archive back before renaming it into place)
expect_ok "$PMCFUSE" record --sim cholesky,blocks=12,threads=2 -e PAPI_TOT_INS,PAPI_L1_DCM -o big.pmcf
for lim in 4 8 16; do
	expect_fail 2 bash -c "ulimit -f $lim; exec \"\$0\" export --format otf2 -o lim$lim big.pmcf" "$PMCFUSE"
	expect_match "cannot write the OTF2 archive 'lim$lim': .*ulimit -f" "$ERR"
	[ ! -e "lim$lim" ] || fail "lim$lim left behind under ulimit -f $lim"; ok
	expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"
done
expect_ok "$PMCFUSE" export --format otf2 -o big-otf2 big.pmcf
[ "$(du -sk big-otf2 | cut -f1)" -gt 16 ] || fail "big.pmcf's archive is too small to test the size limit"; ok
if command -v otf2-print >/dev/null; then
	otf2-print -G tr/traces.otf2 >defs.txt || fail "otf2-print -G failed"
	otf2-print tr/traces.otf2 >events.txt || fail "otf2-print failed"
	nm=$(grep -c '^METRIC_MEMBER' defs.txt)
	expect_eq 3 "$nm"
	expect_eq "$n" "$(grep -c '^ENTER' events.txt)"
	expect_eq "$n" "$(grep -c '^LEAVE' events.txt)"
	# one metric per event, at every enter and leave when every XU has it
	expect_eq "$((2 * n * nm))" "$(grep -c '^METRIC ' events.txt)"
	expect_eq "$nm" "$(grep -c '^METRIC_CLASS .*SYNCHRONOUS_STRICT, Kind: CPU, 1 Member' defs.txt)"
	expect_eq "potrf trsm syrk gemm" "$(awk '$1 == "REGION" {match($0, /Name: "[^"]*"/); printf "%s%s", s, substr($0, RSTART + 7, RLENGTH - 8); s = " "}' defs.txt)"
	expect_eq "$(sqlite3 a.pmcf 'SELECT count(DISTINCT thread) FROM xu_values')" "$(grep -c '^LOCATION ' defs.txt)"
	# every string is defined once
	expect_eq "" "$(grep '^STRING' defs.txt | sed 's/^STRING *[0-9]*//' | sort | uniq -d)"
	# one location group (the program, no ranks) on one system tree node
	expect_eq 1 "$(grep -c '^LOCATION_GROUP ' defs.txt)"
	expect_eq 1 "$(grep -c '^SYSTEM_TREE_NODE ' defs.txt)"
	# the last metric of each location is the sum over its XUs (otf2-print
	# prints 6 significant digits)
	want=$(sqlite3 a.pmcf 'SELECT sum("PAPI_L1_DCM") FROM xu_values')
	got=$(awk -v want="$want" '$1 == "METRIC" && /"PAPI_L1_DCM"/ {v = $0; sub(/.*DOUBLE; /, "", v); sub(/\).*/, "", v); last[$2] = v}
		END {for (l in last) s += last[l]; d = s - want; print (d < 0 ? -d : d) <= 1e-5 * want ? "close" : s}' events.txt)
	expect_eq close "$got" "(sum of the last PAPI_L1_DCM metrics against $want)"
	# the multiplexed profile: every event is a metric, written where present
	otf2-print -G mt/traces.otf2 >mdefs.txt || fail "otf2-print -G (missing values)"
	otf2-print mt/traces.otf2 >mevents.txt || fail "otf2-print (missing values)"
	expect_eq "$(sqlite3 m.pmcf 'SELECT count(*) FROM event')" "$(grep -c '^METRIC_MEMBER' mdefs.txt)"
	for e in PAPI_TOT_INS PAPI_L2_TCM PAPI_LD_INS; do
		have=$(sqlite3 m.pmcf "SELECT count(\"$e\") FROM xu_values")
		[ "$have" -gt 0 ] || fail "m.pmcf has no value of $e"
		expect_eq "$((2 * have))" "$(grep -c "^METRIC .*(\"$e\" " mevents.txt)" "(metric records of $e)"
	done
	grep -q '^METRIC_CLASS .*Occurrence: SYNCHRONOUS,' mdefs.txt || fail "no metric marked SYNCHRONOUS (not strict)"; ok
	# the size-limit profile read back whole when there is no limit
	otf2-print big-otf2/traces.otf2 >/dev/null || fail "otf2-print big-otf2"; ok
else
	echo "SKIP (otf2-print checks): otf2-print not installed (Debian otf2-tools)"
fi
