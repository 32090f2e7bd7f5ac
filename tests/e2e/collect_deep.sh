# Labels of deep task trees in bounded size (issue 33): a recorded deep
# task tree (bench/tasks/deeptree: 200 root tasks, 20,308 tasks, paths of
# up to 230 levels, labels of up to 1,621 characters) keeps its labels as a
# tree: the file holds at most 120 bytes of labels per XU (counted: the id
# blobs and the label nodes, 19 here; before: every label and parent label
# as text, 1,179 bytes per XU), and every way of reading them gives the
# same texts: export, the SQL view, a copy through combine.
DT="$(dirname "$PMCFUSE")/bench/tasks/deeptree"
if ! omp_examples || [ ! -x "$DT" ]; then
	echo "SKIP: needs the OpenMP bench programs (bench/tasks/deeptree, clang-16)"
	exit 0
fi
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e task-clock -o deep.pmcf -- "$DT" 200 1
xus=$(sqlite3 deep.pmcf 'SELECT count(*) FROM xu_row')
[ "$xus" -gt 5000 ] || fail "only $xus XUs"; ok
bytes=$(sqlite3 deep.pmcf 'SELECT (SELECT sum(length(label) + length(parent_label)) FROM xu_chunk) +
	(SELECT sum(length(parent) + length(suffix)) FROM label_node)') || fail "no label tree in the profile"
per=$((bytes / xus))
echo "deeptree 200: $xus XUs, $per bytes of labels per XU in the file"
[ "$per" -le 120 ] || fail "$per bytes of labels per XU"; ok
expect_eq 2 "$(sqlite3 deep.pmcf 'PRAGMA user_version')"
# the labels are deep (else this proves nothing) and distinct
long=$(sqlite3 deep.pmcf 'SELECT max(length(label)) FROM xu_values')
[ "$long" -gt 400 ] || fail "the longest label has $long characters"; ok
expect_eq "$xus" "$(sqlite3 deep.pmcf 'SELECT count(DISTINCT label) FROM xu_values')"
# export and the SQL view give the same labels and parents
"$PMCFUSE" export --format csv deep.pmcf | tail -n +2 | cut -d, -f1,4,5 | sort >exp.txt
sqlite3 -csv deep.pmcf 'SELECT xu, label, parent_label FROM xu_values' | sort >sql.txt
cmp -s exp.txt sql.txt || fail "export and xu_values differ on labels"; ok
# every label is its parent's plus its own components
bad=$(awk -F, '$2 !~ /^0/ || index($2, $3 ".") != 1 {n++} END {print n + 0}' exp.txt)
expect_eq 0 "$bad" "(labels not under their parent label)"
# a second recording fuses (lgl: equal labels pair) and keeps the labels
expect_ok env OMP_NUM_THREADS=2 "$PMCFUSE" record -q -e page-faults -o deep2.pmcf -- "$DT" 200 1
expect_ok "$PMCFUSE" combine -q --strategy lgl -o fused.pmcf deep.pmcf deep2.pmcf
expect_eq "$xus" "$(sqlite3 fused.pmcf 'SELECT count(*) FROM xu_values WHERE "task-clock" IS NOT NULL AND "page-faults" IS NOT NULL')"
"$PMCFUSE" export --format csv fused.pmcf | tail -n +2 | cut -d, -f4 | sort >fl.txt
cut -d, -f2 exp.txt | sort >el.txt
cmp -s fl.txt el.txt || fail "the fused profile's labels differ from the recording's"; ok
# the fused profile keeps a label tree (combine works on nodes, version 2)
expect_eq 2 "$(sqlite3 fused.pmcf 'PRAGMA user_version')"
# bc pairs by the shifted durations (the runs repeat the same tasks): one
# warning line suggesting lgl; bc-lgl pairs equal labels first, no warning
expect_ok "$PMCFUSE" combine --strategy bc -o fbc.pmcf deep.pmcf deep2.pmcf
expect_match '^pmcfuse: combine: warning: bc paired XUs of different labels in [0-9]+ of [0-9]+ pairs \([0-9]+ %\), although 100 % of the labels are in every input: if the runs repeat the same tasks, lgl \(--strategy lgl\) pairs them by label$' "$ERR"
expect_ok "$PMCFUSE" combine --strategy bc-lgl -o fbl.pmcf deep.pmcf deep2.pmcf
[ -z "$ERR" ] || fail "bc-lgl warned: $ERR"; ok
