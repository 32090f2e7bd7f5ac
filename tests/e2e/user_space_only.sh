# Without kernel-mode counting (kernel.perf_event_paranoid >= 2, no
# CAP_PERFMON) perf counts software events in user space only: `events
# --check` says which, record and run warn once about the events that count
# only kernel activity (they read 0), and the profile lists the events so
# counted (metadata user_space_only, shown by show and the report; combine
# keeps it). Run as user nobody when root.
EX="$(dirname "$PMCFUSE")/examples"
as=()
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)
if [ "$par" -lt 2 ]; then
	echo "SKIP: kernel.perf_event_paranoid is $par: kernel-mode counting is allowed to everyone"
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP: root, and no setpriv to run as nobody"; exit 0; }
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod 777 .
	# nobody must reach the build
	"${as[@]}" test -x "$PMCFUSE" || { echo "SKIP: user nobody cannot run $PMCFUSE"; exit 0; }
elif grep -q '^CapEff:.*[1-9a-f]' /proc/self/status; then
	echo "SKIP: this process has capabilities (CAP_PERFMON would allow kernel mode)"
	exit 0
fi
warn="kernel.perf_event_paranoid=$par: counting in user space only: context-switches, cpu-migrations count only kernel activity and will read 0; lower it with sysctl -w kernel.perf_event_paranoid=1 or run with CAP_PERFMON"

expect_ok "${as[@]}" "$PMCFUSE" events --check page-faults,cs,cpu-migrations,task-clock,task-clock:u
expect_eq "fits: 5 events can be counted in one execution; in user space only (kernel mode not allowed): page-faults, context-switches, cpu-migrations, task-clock" "$OUT"
expect_eq "pmcfuse: events: $warn" "$ERR"
expect_ok "${as[@]}" "$PMCFUSE" events --check page-faults,cs,task-clock:u --json
expect_eq '{"fits": true, "events": 3, "user_space_only": ["page-faults", "context-switches"]}' "$OUT"

expect_ok "${as[@]}" "$PMCFUSE" record -q -e page-faults,context-switches,cpu-migrations,task-clock:u -o rec.pmcf -- "$EX/plain" 2 3
expect_eq "pmcfuse: record: $warn" "$ERR"
expect_ok "$PMCFUSE" show --json rec.pmcf
expect_eq '["page-faults","context-switches","cpu-migrations"]' "$(jq -r '.meta.user_space_only' out.txt)"
expect_ok "$PMCFUSE" show rec.pmcf
expect_match 'user_space_only +\["page-faults","context-switches","cpu-migrations"\]' "$OUT"
expect_ok "$PMCFUSE" report -o rec.html rec.pmcf
expect_match 'user_space_only' "$(cat rec.html)"
# nothing to warn about: no event that counts only kernel activity
expect_ok "${as[@]}" "$PMCFUSE" record -e page-faults -o pf.pmcf -- "$EX/plain" 2 3
expect_nomatch 'user space only' "$ERR"

# a campaign: one warning; every execution and the fused profile say so
expect_ok "${as[@]}" "$PMCFUSE" run -e page-faults,cs,cpu-migrations,task-clock --pmcs 2 --keep execs -o run.pmcf -- "$EX/plain" 2 3
expect_eq 1 "$(grep -c 'user space only' err.txt)" "(one warning line)"
expect_match "^pmcfuse: run: $warn" "$ERR"
for f in execs/exec-*.pmcf; do
	expect_ok "$PMCFUSE" show --json "$f"
	expect_match '^\[("[a-z-]+",?)+\]$' "$(jq -r '.meta.user_space_only' out.txt)"
done
# the fused profile: every execution's, in its event order
expect_ok "$PMCFUSE" show --json run.pmcf
expect_eq '["page-faults","context-switches","cpu-migrations","task-clock"]' "$(jq -r '.meta.user_space_only' out.txt)"

# root (kernel mode allowed) records no such list
if [ ${#as[@]} -gt 0 ]; then
	expect_ok "$PMCFUSE" record -q -e page-faults,context-switches -o root.pmcf -- "$EX/plain" 2 3
	expect_eq "" "$ERR"
	expect_ok "$PMCFUSE" show --json root.pmcf
	expect_eq null "$(jq -r '.meta.user_space_only' out.txt)"
fi
