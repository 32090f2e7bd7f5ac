# MPI programs on 2 ranks (docs/collector.md "MPI programs"): every rank
# records its own XUs, mpirun records none, the profile has a rank per XU
# (show, export), and fusion pairs XUs of the same rank only, with every
# strategy. Open MPI from Debian (openmpi-bin); skipped without mpirun.
# a program that is not MPI, in a Slurm job (SLURM_PROCID=0 in its
# environment), gets the profile it gets anywhere: no rank layer
expect_ok env SLURM_PROCID=0 "$PMCFUSE" record -e page-faults -o slurm0.pmcf -- "$(dirname "$PMCFUSE")/examples/plain"
expect_nomatch ',rank,' "$("$PMCFUSE" export --format csv slurm0.pmcf | head -1)"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (install openmpi-bin libopenmpi-dev)"; exit 0; }
EX="$(dirname "$PMCFUSE")/examples"
# as root, Open MPI's mpirun refuses to start without these (or --allow-run-as-root)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# the tool preloaded into a sanitizer build's taskapi (ASan must come first otherwise)
export ASAN_OPTIONS=${ASAN_OPTIONS:-verify_asan_link_order=0}
MPIRUN=(mpirun -np 2 --oversubscribe)

# ranks PROFILE: "XUS_OF_RANK0 XUS_OF_RANK1" from show --json
ranks() { "$PMCFUSE" show --json "$1" | jq -r '[.ranks[].xus] | map(tostring) | join(" ")'; }
# crossed FUSED: how many values of FUSED come from an XU of another rank
# (export --provenance names each value's source profile and XU)
crossed() {
	"$PMCFUSE" export --format json --provenance "$1" >fused.json
	local s path
	echo '{}' >srcranks.json
	for s in $(jq -r '.sources[].index' fused.json); do
		path=$(jq -r ".sources[$s].path" fused.json)
		"$PMCFUSE" export --format json "$path" | jq -c '[.xus[].rank]' >src.json
		jq --argjson r "$(cat src.json)" ". + {\"$s\": \$r}" srcranks.json >t.json && mv t.json srcranks.json
	done
	jq --slurpfile r srcranks.json '[.xus[] | .rank as $k | .provenance[]
		| select(.source >= 0) | select($r[0][.source | tostring][.xu] != $k)] | length' fused.json
}
# fuse_all DIR N: every strategy on DIR's executions: N XUs per rank, none crossed
fuse_all() {
	local s
	for s in ctc lgl bc bc-unlabeled random; do
		expect_ok "$PMCFUSE" combine --strategy "$s" --seed 3 -o "f-$s.pmcf" "$1"/exec-*.pmcf
		expect_eq "$2 $2" "$(ranks "f-$s.pmcf")" "($s: XUs per rank)"
		expect_eq 0 "$(crossed "f-$s.pmcf")" "($s: values paired across ranks)"
	done
}

# 1. The task API (no OpenMP needed): 12 XUs alone, 12 per rank under mpirun
#    and nothing from mpirun itself; threads numbered within each rank (4
#    workers for 3 splits: a split waiting for its leaves never holds the
#    last worker)
expect_ok "$PMCFUSE" record -e page-faults -o one.pmcf -- "$EX/taskapi" 4 3 2
expect_eq "12 null" "$("$PMCFUSE" show --json one.pmcf | jq -r '"\(.xus) \(.ranks)"')"
expect_nomatch ',rank,' "$("$PMCFUSE" export --format csv one.pmcf | head -1)"
expect_ok "$PMCFUSE" record -e page-faults,task-clock -o api.pmcf -- "${MPIRUN[@]}" "$EX/taskapi" 4 3 2
expect_eq "12 12" "$(ranks api.pmcf)"
expect_match 'ranks +2 \(MPI\) rank 0: 12 XUs, rank 1: 12 XUs' "$("$PMCFUSE" show api.pmcf)"
expect_match '^xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,rank,duration,' \
	"$("$PMCFUSE" export --format csv api.pmcf | head -1)"
expect_eq "0 12
1 12" "$("$PMCFUSE" export --format csv api.pmcf | tail -n +2 | cut -d, -f10 | sort | uniq -c | awk '{print $2, $1}')"
# the same labels in both ranks, and the threads of each rank numbered from
# 0 (the main thread, which runs no task): rank 1's workers are 1..4 too
expect_eq "$("$PMCFUSE" export --format json api.pmcf | jq -c '[.xus[] | select(.rank == 0) | .label] | sort')" \
	"$("$PMCFUSE" export --format json api.pmcf | jq -c '[.xus[] | select(.rank == 1) | .label] | sort')"
expect_eq "true" "$("$PMCFUSE" export --format json api.pmcf | jq -c '[.xus[] | select(.rank == 1) | .thread] | min >= 1 and max <= 4')"
# run: 2 executions of one event each (--pmcs 1), fused per rank
expect_ok "$PMCFUSE" run -e page-faults,task-clock --pmcs 1 --keep ka -o ka.pmcf -- "${MPIRUN[@]}" "$EX/taskapi" 4 3 2
expect_eq "2" "$(ls ka/exec-*.pmcf | wc -l)"
expect_eq "12 12" "$(ranks ka.pmcf)"
expect_eq 0 "$(crossed ka.pmcf)"
expect_ok "$PMCFUSE" report -o ka.html ka.pmcf
expect_match '<th>MPI ranks</th><td>2: rank 0 12 XUs, rank 1 12 XUs' "$(cat ka.html)"
# the timeline: a row per (rank, thread), both ranks' rows labelled; and
# coloured by an event on request
expect_match 'XUs on [0-9]+ threads of 2 MPI ranks, one row per \(rank, thread\)' "$(cat ka.html)"
expect_match '>rank 0 thread 1<' "$(cat ka.html)"
expect_match '>rank 1 thread 1<' "$(cat ka.html)"
expect_ok "$PMCFUSE" report -o kc.html --colour-by task-clock ka.pmcf
expect_match 'colour = task-clock per XU' "$(cat kc.html)"
expect_fail 1 "$PMCFUSE" report -o kx.html --colour-by no-such-event ka.pmcf
[ ! -e kx.html ] || fail "kx.html written"; ok
fuse_all ka 12
# OTF2 of the fused MPI profile: node -> a location group per rank -> threads
otf2_ranks() { # otf2_ranks PROFILE "XUS_OF_RANK0 XUS_OF_RANK1"
	[ "${PMCF_HAVE_OTF2:-0}" = 1 ] && command -v otf2-print >/dev/null ||
		{ echo "SKIP (OTF2 of $1): no libotf2 in this build or no otf2-print"; return 0; }
	rm -rf "$1.otf2"
	expect_ok "$PMCFUSE" export --format otf2 -o "$1.otf2" "$1"
	otf2-print -G "$1.otf2/traces.otf2" >defs.txt || fail "otf2-print -G $1.otf2"
	otf2-print "$1.otf2/traces.otf2" >events.txt || fail "otf2-print $1.otf2"
	expect_eq 1 "$(grep -c '^SYSTEM_TREE_NODE ' defs.txt)"
	expect_eq '"MPI rank 0" "MPI rank 1"' "$(awk '$1 == "LOCATION_GROUP" {match($0, /"[^"]*"/); printf "%s%s", s, substr($0, RSTART, RLENGTH); s = " "}' defs.txt)"
	grep -q '^LOCATION_GROUP .*Type: PROCESS, Parent: "node::' defs.txt || fail "rank groups not under the node"; ok
	# per rank: the XUs entered on its group's locations
	got=$(awk 'FNR == NR { if ($1 == "LOCATION") { match($0, /Group: "MPI rank [0-9]+"/); g[$2] = substr($0, RSTART + 17, RLENGTH - 18) + 0 } next }
		$1 == "ENTER" { n[g[$2]]++ } END { printf "%d %d", n[0], n[1] }' defs.txt events.txt)
	expect_eq "$2" "$got" "(XUs per rank in the OTF2 archive of $1)"
	expect_eq "" "$(grep '^STRING' defs.txt | sed 's/^STRING *[0-9]*//' | sort | uniq -d)" "(duplicated strings)"
	expect_eq "$(sqlite3 "$1" 'SELECT count(*) FROM event')" "$(grep -c '^METRIC_MEMBER' defs.txt)"
}
otf2_ranks ka.pmcf "12 12"
# an execution (one event each of page-faults and task-clock measured, the
# other missing) keeps every event, written where present
otf2_ranks ka/exec-0.pmcf "12 12"

# 2. MPI + OpenMP tasks (examples/mpi_tiles): 2 iterations of 8 relax and
#    2 residual tasks per rank
omp_examples || exit 0
[ -x "$EX/mpi_tiles" ] || fail "mpirun is here but examples/mpi_tiles was not built (CMake found no MPI)"
export OMP_NUM_THREADS=2
expect_ok "$PMCFUSE" run -e task-clock,page-faults,context-switches --pmcs 2 --keep kt -o tiles.pmcf \
	-- "${MPIRUN[@]}" "$EX/mpi_tiles" 128 32 2
expect_match "mpi_tiles: 2 ranks, 128x128 grid, 8 tiles per rank, 2 iterations" "$OUT$ERR"
expect_eq "20 20" "$(ranks tiles.pmcf)"
expect_eq "relax 32
residual 8" "$("$PMCFUSE" export --format csv tiles.pmcf | tail -n +2 | cut -d, -f3 | sort | uniq -c | awk '{print $2, $1}')"
expect_eq "20 20" "$(ranks kt/exec-0.pmcf)"
expect_eq "ompt" "$("$PMCFUSE" show --json kt/exec-0.pmcf | jq -r .meta.collector)"
fuse_all kt 20
otf2_ranks tiles.pmcf "20 20"
