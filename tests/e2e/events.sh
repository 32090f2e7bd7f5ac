# `pmcfuse events` on this machine: software events and tracepoints listed and
# probed, hardware events marked unavailable when there is no PMU, and the
# compatibility check with a counter budget.

has_pmu=0
if perf stat -e instructions true 2>&1 | grep -q 'not supported'; then has_pmu=0; else has_pmu=1; fi
command -v perf >/dev/null || has_pmu=0

# tracepoints are listed when tracefs can be read (root mounts it on first use)
tp=0
tracepoints_usable && tp=1
expect_ok "$PMCFUSE" events --json
printf '%s\n' "$OUT" >events.json
expect_eq true "$(json 'map(select(.name=="task-clock"))[0].available' events.json)"
expect_eq software "$(json 'map(select(.name=="task-clock"))[0].source' events.json)"
expect_eq pseudo "$(json 'map(select(.name=="duration"))[0].source' events.json)"
# --json --check answers on stdout whether the events fit or not
expect_fail 1 "$PMCFUSE" events --json --check task-clock,page-faults,minor-faults --pmcs 2
printf '%s\n' "$OUT" >nofit.json
expect_eq false "$(json .fits nofit.json)"
expect_eq 3 "$(json .events nofit.json)"
expect_match 'budget is 2' "$(json .why nofit.json)"
expect_eq true "$(json 'all(.[]; has("name") and has("source") and has("available") and has("description"))' events.json)"
if [ "$has_pmu" -eq 0 ]; then
	expect_eq false "$(json 'map(select(.name=="instructions"))[0].available' events.json)"
fi
if [ "$tp" -eq 1 ]; then
	n=$(json 'map(select(.source=="tracepoint")) | length' events.json)
	[ "$n" -ge 100 ] || fail "only $n tracepoints listed"
	ok
	expect_eq true "$(json 'map(select(.name=="sched:sched_switch"))[0].available' events.json)"
	# software events and tracepoints fit together whenever each opens (no PMU counters)
	expect_ok "$PMCFUSE" events --check task-clock,page-faults,sched:sched_switch,irq:softirq_entry
	# the collector counts at most 64 events per execution: the check knows it
	json '[.[] | select(.source=="tracepoint" and .available and (.name | startswith("ftrace:") | not)) | .name][:65][]' events.json >tp65.txt
	expect_fail 1 "$PMCFUSE" events --check @tp65.txt
	expect_match 'at most 64 per execution' "$ERR"
	sed -n 1,64p tp65.txt >tp64.txt
	expect_ok "$PMCFUSE" events --check @tp64.txt
	if [ "$(json 'map(select(.name=="ftrace:function"))[0].available' events.json)" = false ]; then
		expect_fail 2 "$PMCFUSE" events --check task-clock,ftrace:function
		expect_match "'ftrace:function' cannot be counted on this machine" "$ERR"
	fi
fi

expect_ok "$PMCFUSE" events --source software
expect_match 'page-faults' "$OUT"
expect_nomatch 'sched:sched_switch' "$OUT"

# compatibility check with a budget
expect_ok "$PMCFUSE" events --check task-clock,page-faults --pmcs 2
expect_match '^fits' "$OUT"
expect_fail 1 "$PMCFUSE" events --check task-clock,page-faults,context-switches --pmcs 2
expect_match 'do not fit' "$ERR"
expect_fail 1 "$PMCFUSE" events --check task-clok
expect_match "did you mean task-clock" "$ERR"
expect_fail 1 "$PMCFUSE" events --check task-clock --pmcs 0
expect_fail 1 "$PMCFUSE" events --pmcs 3
if [ "$has_pmu" -eq 0 ]; then
	# an event this machine cannot count: it says so and why, not "does not fit"
	for e in instructions cycles,task-clock; do
		expect_fail 2 "$PMCFUSE" events --check "$e"
		expect_match "'(instructions|cycles)' cannot be counted on this machine: .*no hardware PMU" "$ERR"
		expect_nomatch 'do not fit' "$ERR"
	done
fi
# the header, like papi_avail's: CPU, VM, PMUs and counters, paranoid, tracefs, rdpmc
expect_ok "$PMCFUSE" events --source pseudo
for k in CPU Virtual 'Core PMU' Hardware 'Kernel PMUs' Paranoid tracefs rdpmc; do
	expect_match "(^|
)$k +[^ ]" "$OUT"
done
expect_match "perf_event_paranoid = $(cat /proc/sys/kernel/perf_event_paranoid)" "$OUT"
if [ "$has_pmu" -eq 0 ]; then expect_match 'Hardware +not countable: no hardware PMU' "$OUT"; fi
expect_ok "$PMCFUSE" events --source pseudo --no-header
expect_match '^NAME' "$OUT"
# no word about tracefs on verbs and lists that do not name a tracepoint
for args in "events --check task-clock,page-faults" "events --source software" \
	"record -e PAPI_TOT_INS,PAPI_TOT_CYC -o s.pmcf --sim cholesky,blocks=4"; do
	expect_ok "$PMCFUSE" $args
	expect_nomatch 'tracefs|warning' "$ERR"
done
expect_ok "$PMCFUSE" events --check task-clock
expect_match '^fits: 1 event can be counted in one execution' "$OUT"
printf '# my events\ntask-clock\npage-faults, context-switches\n' >ev.txt
expect_ok "$PMCFUSE" events --check @ev.txt --pmcs 3
expect_fail 1 "$PMCFUSE" events --check @missing.txt
