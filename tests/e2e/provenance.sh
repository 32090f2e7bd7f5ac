# `export --provenance` on a real `pmcfuse run`: every fused XU's base label
# is the label of its XU in the execution that provided it, and every value
# is the one of its source execution and XU (a join with the kept
# executions' own exports). The task-API example always; the OpenMP
# cholesky when the examples are built.
EX="$(dirname "$PMCFUSE")/examples"
EV=page-faults,context-switches,task-clock

# joined FUSED.json DIR: checks the fused export against the executions'
# exports (DIR/exec-K.json for the source paths DIR/exec-K.pmcf)
joined() {
	local f=$1 dir=$2 s
	for s in $(jq -r '.sources[].path' "$f"); do
		# stored absolute (combine resolves the paths it is given)
		[[ "$s" == "$(realpath "$dir")"/exec-*.pmcf ]] || fail "source path $s is not a kept execution"
		"$PMCFUSE" export --format json -o "${s%.pmcf}.json" "$s" || fail "export $s"
	done
	# one array of the executions' exports, in source order
	jq -n '[inputs]' $(jq -r '.sources[].path | sub("\\.pmcf$"; ".json")' "$f") >"$dir/all.json"
	local bad
	bad=$(jq --slurpfile ex "$dir/all.json" '
		$ex[0] as $in | .events as $ev |
		[.xus[] | . as $x |
		 (if .base == null then "XU \(.xu): no base"
		  elif $in[.base.source].xus[.base.xu].label != .base.label
		  then "XU \(.xu): base label \(.base.label) is not \($in[.base.source].xus[.base.xu].label)"
		  else empty end),
		 (range(0; $ev | length) as $e | $x.provenance[$e] as $p |
		  if $p == null then "XU \($x.xu): \($ev[$e]) has no source"
		  else ($in[$p.source] | .xus[$p.xu].values[.events | index($ev[$e])]) as $v |
		       if $v != $x.values[$e] then "XU \($x.xu): \($ev[$e]) \($x.values[$e]) is not \($v)"
		       else empty end end)] | .[:3] | join("; ")' "$f")
	expect_eq '""' "$bad" "($f does not join with its executions)"
	# the base labels are distinct: a key for the join
	expect_eq "$(jq '.xus | length' "$f")" "$(jq '[.xus[] | [.base.source, .base.label]] | unique | length' "$f")"
}

# sql_joined FUSED.pmcf: the SQL layer joins the fused profile with its
# executions (issue 33: only export --provenance had the base label):
# xu_values' base_source/base_xu/base_label name one XU of the source's own
# xu_values, with its label, parent label and duration; xu_provenance names
# the source of every value, which equals the source XU's value
sql_joined() {
	local f=$1 src n k path q
	n=$(sqlite3 "$f" 'SELECT count(*) FROM xu_values')
	[ "$n" -gt 0 ] || fail "$f: no XUs in xu_values"
	expect_eq "$n" "$(sqlite3 "$f" 'SELECT count(DISTINCT base_source || ":" || base_label) FROM xu_values')"
	expect_eq 0 "$(sqlite3 "$f" 'SELECT count(*) FROM xu_values WHERE base_label IS NULL')"
	k=0
	while IFS='|' read -r src path; do
		q="ATTACH '$path' AS s;
		   SELECT count(*), sum(b.label = f.base_label), sum(b.parent_label = f.parent_label),
		          sum(b.duration = f.duration)
		   FROM xu_values f JOIN s.xu_values b ON b.xu = f.base_xu WHERE f.base_source = $src;"
		local got want
		got=$(sqlite3 "$f" "$q")
		want=$(sqlite3 "$f" "SELECT count(*) FROM xu_values WHERE base_source = $src")
		want="$want|$want|$want|$want"
		[ "$want" = "0|0|0|0" ] && want="0|||"
		expect_eq "$want" "$got" "($f: base XUs of source $src joined by index: count, label, parent, duration)"
		# the same join by label
		expect_eq "${want%%|*}" "$(sqlite3 "$f" "ATTACH '$path' AS s; SELECT count(*) FROM xu_values f
			JOIN s.xu_values b ON b.label = f.base_label WHERE f.base_source = $src")"
		# every value from this source is its source XU's value
		expect_eq 0 "$(sqlite3 "$f" "ATTACH '$path' AS s; SELECT count(*) FROM xu_provenance p
			JOIN xu_values_long fv ON fv.xu = p.xu AND fv.event = p.event
			JOIN s.xu_values_long sv ON sv.xu = p.source_xu AND sv.event = p.event
			WHERE p.source = $src AND p.source_path = '$path' AND fv.value IS NOT sv.value")"
		k=$((k + 1))
	done < <(sqlite3 "$f" 'SELECT id, path FROM source ORDER BY id')
	[ "$k" -ge 2 ] || fail "$f: $k sources"; ok
	expect_eq 0 "$(sqlite3 "$f" 'SELECT count(*) FROM xu_provenance WHERE source IS NULL AND source_xu IS NOT NULL')"
}

expect_ok "$PMCFUSE" run -e $EV --pmcs 1 --keep ta -o ta.pmcf -- "$EX/taskapi"
n=$(ls ta/exec-*.pmcf | wc -l)
[ "$n" -ge 2 ] || fail "expected several executions, got $n"; ok
expect_ok "$PMCFUSE" export --format json --provenance -o ta.json ta.pmcf
joined ta.json ta
sql_joined ta.pmcf
expect_ok "$PMCFUSE" show ta.pmcf
expect_match 'base labels' "$OUT"
# CSV: the same columns for the same XUs
expect_ok "$PMCFUSE" export --format csv --provenance -o ta.csv ta.pmcf
expect_match ',base_source,base_path,base_xu,base_label,match_distance,source:duration,source_path:duration,source_xu:duration' "$(head -1 ta.csv)"
expect_eq "$(jq -r '.xus[] | .base.label' ta.json)" \
	"$(jq -rR 'split(",") | .[-14]' <(tail -n +2 ta.csv))"
# an execution profile has no provenance to export
expect_fail 1 "$PMCFUSE" export --format csv --provenance ta/exec-0.pmcf
expect_match 'has no provenance' "$ERR"

# the consistency check: task-clock <= duration checked on every XU of the
# fused taskapi profile (show --json), and in the report
expect_ok "$PMCFUSE" show --json ta.pmcf
printf '%s\n' "$OUT" >ta-show.json
expect_eq task-clock/duration "$(jq -r '.consistency[0] | .lhs + "/" + .rhs' ta-show.json)"
expect_eq "$(jq '.xus' ta-show.json)" "$(jq '.consistency[0].checked' ta-show.json)"
expect_eq true "$(jq '.layers.base_labels' ta-show.json)"
expect_ok "$PMCFUSE" report -o ta.html ta.pmcf
grep -q 'task-clock &le; duration' ta.html || fail "no consistency section in the report"; ok

omp_examples || exit 0
# bc labels are first common ancestors; ctc keeps the execution's own
for s in bc ctc; do
	expect_ok "$PMCFUSE" run -e $EV --pmcs 1 --strategy $s --keep ch-$s -o ch-$s.pmcf -- "$EX/cholesky" 6 32
	expect_ok "$PMCFUSE" export --format json --provenance -o ch-$s.json ch-$s.pmcf
	joined ch-$s.json ch-$s
	sql_joined ch-$s.pmcf
done
# bc: labels are ancestors (shared), base labels join; the parent label is
# the base XU's (a label of that execution), not the ancestor's parent
expect_ok "$PMCFUSE" export --format csv -o ch-bc.csv ch-bc.pmcf
[ "$(sqlite3 ch-bc.pmcf 'SELECT count(DISTINCT label) FROM xu_values')" -lt \
  "$(sqlite3 ch-bc.pmcf 'SELECT count(DISTINCT base_label) FROM xu_values')" ] ||
	fail "bc labels are not shared ancestors here (the join test would prove nothing)"
ok

