# docs/guide.md, "which task type misses L1 most, per thread, over time": runs
# every snippet marked <!-- guide_data: NAME --> on a real recorded profile
# (examples/taskapi, no OpenMP needed) with page-faults for PAPI_L1_DCM and
# task-clock for PAPI_TOT_INS, and checks the answers against each other.

GUIDE="$SRCDIR/docs/guide.md"
# snippet NAME: the fenced block after the marker, events replaced
snippet() {
	awk -v m="<!-- guide_data: $1 -->" '$0 == m {on = 1; next}
		on && /^```/ {if (in_block) exit; in_block = 1; next}
		in_block {print}' "$GUIDE" | sed 's/PAPI_L1_DCM/page-faults/g; s/PAPI_TOT_INS/task-clock/g'
}
for s in sqlite csv pandas otf2; do
	[ -n "$(snippet $s)" ] || fail "no snippet '$s' in docs/guide.md"
done
ok
PATH="$(dirname "$PMCFUSE"):$PATH"
EX="$(dirname "$PMCFUSE")/examples"
expect_ok "$PMCFUSE" run -e page-faults,task-clock --pmcs 1 -o prof.pmcf -- "$EX/taskapi" 4 4 8

# the answer, independently: per type and thread sums from JSON
expect_ok "$PMCFUSE" export --format json -o prof.json prof.pmcf
pf=$(jq '.events | index("page-faults")' prof.json)
per_type=$(jq -r --argjson e "$pf" '.types as $t | [.xus[] | {n: $t[.type].name, v: .values[$e]}]
	| group_by(.n) | map("\(.[0].n) \(map(.v) | add)") | sort | .[]' prof.json)
per_thread=$(jq -r --argjson e "$pf" '.types as $t | [.xus[] | {k: "\(.thread) \($t[.type].name)", v: .values[$e]}]
	| group_by(.k) | map("\(.[0].k) \(map(.v) | add)") | sort | .[]' prof.json)
[ -n "$per_type" ] && [ "$(wc -l <<<"$per_type")" -eq 2 ] || fail "expected split and leaf types: $per_type"
ok

# sqlite3
expect_ok bash -c "$(snippet sqlite)"
printf '%s\n' "$OUT" >sqlite.out
got=$(awk '$1 == "type_name" {b = 1; next} $1 == "thread" {b = 0} b && $1 !~ /^-/ && NF == 4 {print $1, $4}' sqlite.out | sort)
expect_eq "$per_type" "$got" "(sqlite per type)"
got=$(awk '$1 == "thread" {b = 2; next} $1 == "bin_10ms" {b = 3} b == 2 && $1 ~ /^[0-9]+$/ {print $1, $2, $3}' sqlite.out | sort)
expect_eq "$per_thread" "$got" "(sqlite per thread)"
# the time bins add up to the per-type totals
got=$(awk '$1 == "bin_10ms" {b = 1; next} b && $1 ~ /^[0-9]+$/ {s[$2] += $3} END {for (k in s) print k, s[k]}' sqlite.out | sort)
expect_eq "$per_type" "$got" "(sqlite time bins)"
# the profile itself is unchanged by reading it
sum=$(sha256sum <prof.pmcf)
expect_ok sqlite3 -readonly prof.pmcf 'SELECT count(*) FROM xu_values_long'
expect_eq "$(( $(jq '.xus | length' prof.json) * $(jq '.events | length' prof.json) ))" "$OUT"
expect_ok "$PMCFUSE" show prof.pmcf
expect_eq "$sum" "$(sha256sum <prof.pmcf)"

# CSV: the snippet writes it; its shape is what pandas needs (pandas itself is
# run when installed)
expect_ok bash -c "$(snippet csv)"
cat >shape.py <<'PY'
import csv, sys
rows = list(csv.reader(open("prof.csv", newline="")))
head = rows[0]
assert len(set(head)) == len(head), "duplicate column names"
for need in ("type_name", "thread", "start_ns", "page-faults"):
    assert need in head, need
assert all(len(r) == len(head) for r in rows[1:]), "ragged rows"
i, t, e = head.index("type_name"), head.index("thread"), head.index("page-faults")
sums = {}
for r in rows[1:]:
    float(r[head.index("start_ns")])
    sums[r[i]] = sums.get(r[i], 0) + float(r[e])
for k in sorted(sums):
    print(k, "%g" % sums[k])
PY
expect_ok python3 shape.py
expect_eq "$per_type" "$OUT" "(CSV per type)"
snippet pandas >guide.py
if python3 -c 'import pandas' 2>/dev/null; then
	expect_ok python3 guide.py
	expect_match 'leaf' "$OUT"
else
	echo "SKIP (pandas snippet): python3 has no pandas here; the CSV shape was checked instead"
	expect_ok python3 -c 'import ast, sys; ast.parse(open("guide.py").read())'
fi

# the HTML report
expect_ok "$PMCFUSE" report -o report.html prof.pmcf
expect_match 'leaf' "$(cat report.html)"

# OTF2
if [ "${PMCF_HAVE_OTF2:-0}" != 1 ]; then
	expect_fail 2 "$PMCFUSE" export --format otf2 -o prof-otf2 prof.pmcf
	expect_match 'not built with OTF2' "$ERR"
	echo "SKIP (OTF2 snippet): this pmcfuse was built without libotf2"
elif ! command -v otf2-print >/dev/null; then
	expect_ok "$PMCFUSE" export --format otf2 -o prof-otf2 prof.pmcf
	echo "SKIP (OTF2 snippet): otf2-print not installed (Debian otf2-tools)"
else
	expect_ok bash -c "$(snippet otf2)"
	expect_match 'ENTER|METRIC' "$OUT"
	otf2-print -G prof-otf2/traces.otf2 >defs.txt
	otf2-print prof-otf2/traces.otf2 >events.txt
	# per thread and type: the metric's increase from enter to leave, summed
	got=$(awk '
		FNR == NR { if ($1 == "LOCATION") { match($0, /"thread [0-9]+"/); loc[$2] = substr($0, RSTART + 8, RLENGTH - 9) }
		            next }
		$1 == "METRIC" && /"page-faults"/ { v = $0; sub(/.*DOUBLE; /, "", v); sub(/\).*/, "", v); last[$2] = v }
		$1 == "ENTER" { st[$2] = last[$2] }
		$1 == "LEAVE" { match($0, /"[^"]*"/); r = substr($0, RSTART + 1, RLENGTH - 2); s[loc[$2] " " r] += last[$2] - st[$2] }
		END { for (k in s) print k, s[k] }' defs.txt events.txt | sort)
	expect_eq "$per_thread" "$got" "(OTF2 per thread and region)"
fi
