# Event names as perf users write them: every name `perf list` prints here
# parses (it fits, or is refused with the reason this machine cannot count
# it, never "unknown event"); aliases, modifiers, raw and PMU events, globs and
# {…} groups are planned and recorded; a name with commas survives CSV.

# accepted: fits (0), or cannot be counted here / not permitted (2); an
# unknown event or a syntax error is exit 1
check_name() {
	local rc=0
	"$PMCFUSE" events --check "$1" >out.txt 2>err.txt || rc=$?
	case $rc in
	0) ok ;;
	2) [[ "$(cat err.txt)" =~ "cannot be counted on this machine"|"perf_event_open refused"|"needs tracefs"|"cannot read tracefs" ]] ||
		fail "'$1': exit 2 without a reason: $(cat err.txt)"; ok ;;
	*) fail "'$1' does not parse (exit $rc): $(cat err.txt)" ;;
	esac
}

if command -v perf >/dev/null && perf list --no-desc >perf-list.txt 2>/dev/null && [ -s perf-list.txt ]; then
	# software, hardware, cache and kernel PMU events with their "X OR Y" aliases
	grep -E '\[(Software|Hardware|Hardware cache|Kernel PMU) event\]' perf-list.txt |
		sed -E 's/\[.*//; s/ OR /\n/g' | awk 'NF { print $1 }' | sort -u >names.txt
	n=$(wc -l <names.txt)
	[ "$n" -ge 10 ] || fail "perf list gave only $n software/hardware names: $(head -c 600 perf-list.txt)"
	ok
	grep -qx cs names.txt || fail "perf list has no 'cs' alias here"
	while read -r name; do
		case $name in dummy | bpf-output) continue ;; esac # count nothing; left out on purpose
		check_name "$name"
	done <names.txt
	# the raw descriptors perf lists as templates, filled in
	if grep -q 'rNNN' perf-list.txt; then check_name r01c2; fi
	if grep -q 'cpu/t1=v1' perf-list.txt; then check_name 'cpu/event=0x3c,umask=0x0/'; fi
	# a sample of tracepoints, when this machine can count them
	if tracepoints_usable; then
		grep '\[Tracepoint event\]' perf-list.txt | awk '{ print $1 }' | awk 'NR % 97 == 1' | head -n 25 >tps.txt
		while read -r name; do check_name "$name"; done <tps.txt
	fi
else
	echo "SKIP (perf list cases): perf is not installed or lists nothing here"
fi

# tracepoint globs, as perf stat -e 'sched:*' takes them
if tracepoints_usable; then
	want=$("$PMCFUSE" events --source tracepoint --json |
		jq '[.[] | select(.name | test("^sched:sched_wak")) | select(.available != false)] | length')
	[ "$want" -ge 1 ] || fail "no sched:sched_wak* tracepoint listed"
	ok
	expect_ok "$PMCFUSE" events --check 'sched:sched_wak*' --pmcs 64
	expect_match "fits: $want events" "$OUT"
	expect_ok "$PMCFUSE" events --check '{sched:sched_switch,task-clock}:u'
	expect_match "fits: 2 events" "$OUT"
fi

# perf's spellings, whatever perf says
for name in cs faults migrations cpu-cycles branches task-clock:u task-clock:k cs:uk \
	'page-faults:u' cycles:pp instructions:P r01c2 r1a:u 'cpu/event=0x3c,umask=0x0/' \
	'cpu/event=0xc0/k'; do
	check_name "$name"
done
if [ -r /sys/bus/event_source/devices/msr/events/tsc ]; then
	check_name msr/tsc/
	check_name msr/tsc/u
fi

# aliases are stored under the name they stand for; modifiers are events of their own
expect_ok "$PMCFUSE" events --check 'cs,faults,migrations,task-clock:u,task-clock'
expect_match "fits: 5 events" "$OUT"
# refusals: one line each, exit 1
expect_fail 1 "$PMCFUSE" events --check task-clock:S
expect_match "sampling" "$ERR"
expect_fail 1 "$PMCFUSE" events --check 'no-such-event:u'
expect_match "unknown event 'no-such-event:u'" "$ERR"
expect_fail 1 "$PMCFUSE" events --check 'nopmu/event=1/'
expect_match "no PMU 'nopmu'" "$ERR"
expect_fail 1 "$PMCFUSE" events --check '{task-clock,cs'
expect_match "without its '}'" "$ERR"
expect_fail 1 "$PMCFUSE" events --check '*-nothing-*'
expect_match "no event matches" "$ERR"

# globs: every matching event
expect_ok "$PMCFUSE" events --check '*-faults' --pmcs 8
expect_match "fits: 5 events" "$OUT"

# groups: kept in one set by the planner, or refused with the reason
expect_ok "$PMCFUSE" plan --strategy ctc -e 'page-faults,{minor-faults,cpu-migrations},{major-faults,context-switches}' \
	--pmcs 2 -o plan.json
expect_eq '["duration","minor-faults","cpu-migrations"]' "$(jq -c '.sets[0]' plan.json)"
expect_eq '["duration","major-faults","context-switches"]' "$(jq -c '.sets[1]' plan.json)"
expect_fail 1 "$PMCFUSE" plan -e '{page-faults,minor-faults,major-faults}' --pmcs 2 -o plan2.json
expect_match "the group \\{page-faults,minor-faults,major-faults\\} cannot be counted in one execution" "$ERR"
[ ! -e plan2.json ] || fail "a refused plan left plan2.json"
ok

# recorded and fused on a real program
if omp_examples; then
	EX=$(dirname "$PMCFUSE")/examples
	expect_ok "$PMCFUSE" run -e 'cs,faults:u,{task-clock:u,cpu-clock},minor-faults' --pmcs 2 \
		--keep kept -o mix.pmcf -- "$EX/cholesky" 8 64
	expect_ok "$PMCFUSE" export --format csv -o mix.csv mix.pmcf
	for name in context-switches page-faults:u task-clock:u cpu-clock minor-faults; do
		head -n 1 mix.csv | tr , '\n' | grep -qx -- "$name" || fail "no column $name in mix.csv"
	done
	ok
	# the group was counted in one execution
	both=0
	for f in kept/exec-*.pmcf; do
		expect_ok "$PMCFUSE" export --format csv "$f"
		h=$(head -n 1 <<<"$OUT")
		if [[ ",$h," == *,task-clock:u,* || ",$h," == *,cpu-clock,* ]]; then
			[[ ",$h," == *,task-clock:u,* && ",$h," == *,cpu-clock,* ]] ||
				fail "the group {task-clock:u,cpu-clock} was split: $f has $h"
			both=$((both + 1))
		fi
	done
	expect_eq 1 "$both" "(executions counting the group)"
	expect_ok "$PMCFUSE" show --json mix.pmcf
	expect_eq 0 "$(jq -r '.events[] | select(.name == "task-clock:u") | .missing' <<<"$OUT")"
	if [ -r /sys/bus/event_source/devices/msr/events/tsc ] &&
		"$PMCFUSE" events --check msr/tsc/ >/dev/null 2>&1; then
		# a PMU event with a comma in its name: the collector and the CSV keep it whole
		expect_ok "$PMCFUSE" record -e 'msr/tsc/,task-clock,software/config=0x2,config1=0/' -o tsc.pmcf \
			-- "$EX/cholesky" 4 64
		expect_ok "$PMCFUSE" export --format csv -o tsc.csv tsc.pmcf
		expect_match ',msr/tsc/,task-clock,"software/config=0x2,config1=0/"$' "$(head -n 1 tsc.csv)"
		# the TSC ticks at least as fast as the task's ns clock runs on this VM
		expect_eq 0 "$(awk -F, 'NR > 1 && ($11 == "" || $11 <= 0)' tsc.csv | wc -l)"
	else
		echo "SKIP (msr/tsc/ recording): no msr PMU here, or not permitted"
	fi
fi
# perf's bare sysfs names (perf stat -e inst_retired): a file of some PMU's
# events/ folder here resolves as that PMU's event (test_perf_syntax checks
# the encoding on a fake sysfs)
sysev=$(cd /sys/bus/event_source/devices 2>/dev/null && ls -d */events/* 2>/dev/null | grep -v -E '[.:]' | head -n 1 || true)
if [ -n "$sysev" ] && "$PMCFUSE" events --check "${sysev%%/*}/${sysev##*/}/" >/dev/null 2>&1; then
	expect_ok "$PMCFUSE" events --check "${sysev##*/}"
	expect_match 'fits: 1 event' "$OUT"
	expect_ok "$PMCFUSE" events --check "${sysev##*/},${sysev%%/*}/${sysev##*/}/"
else
	echo "SKIP (bare sysfs event names on this machine): no PMU event here opens${sysev:+ ($sysev)}"
fi
