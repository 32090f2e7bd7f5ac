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
		[[ "$s" == "$dir"/exec-*.pmcf ]] || fail "source path $s is not a kept execution"
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

expect_ok "$PMCFUSE" run -e $EV --pmcs 1 --keep ta -o ta.pmcf -- "$EX/taskapi"
n=$(ls ta/exec-*.pmcf | wc -l)
[ "$n" -ge 2 ] || fail "expected several executions, got $n"; ok
expect_ok "$PMCFUSE" export --format json --provenance -o ta.json ta.pmcf
joined ta.json ta
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
done

