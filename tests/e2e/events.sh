# `pmcfuse events` on this machine: software events and tracepoints listed and
# probed, hardware events marked unavailable when there is no PMU, and the
# compatibility check with a counter budget.

has_pmu=0
if perf stat -e instructions true 2>&1 | grep -q 'not supported'; then has_pmu=0; else has_pmu=1; fi
command -v perf >/dev/null || has_pmu=0

expect_ok "$PMCFUSE" events --json
printf '%s\n' "$OUT" >events.json
expect_eq true "$(json 'map(select(.name=="task-clock"))[0].available' events.json)"
expect_eq software "$(json 'map(select(.name=="task-clock"))[0].source' events.json)"
expect_eq pseudo "$(json 'map(select(.name=="duration"))[0].source' events.json)"
expect_eq true "$(json 'all(.[]; has("name") and has("source") and has("available") and has("description"))' events.json)"
if [ "$has_pmu" -eq 0 ]; then
	expect_eq false "$(json 'map(select(.name=="instructions"))[0].available' events.json)"
fi
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ]; then
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
		expect_fail 1 "$PMCFUSE" events --check task-clock,ftrace:function
		expect_match "ftrace:function" "$ERR"
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
	expect_fail 1 "$PMCFUSE" events --check instructions
	expect_match 'instructions' "$ERR"
fi
printf '# my events\ntask-clock\npage-faults, context-switches\n' >ev.txt
expect_ok "$PMCFUSE" events --check @ev.txt --pmcs 3
expect_fail 1 "$PMCFUSE" events --check @missing.txt
