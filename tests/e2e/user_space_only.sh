# Without kernel-mode counting (kernel.perf_event_paranoid >= 2, no
# CAP_PERFMON) perf counts software events in user space only: the events are
# recorded as perf stat names them then ("context-switches:u"), `events
# --check` says so, and record and run warn once about the events that count
# only kernel activity (they read 0). Run as user nobody when root.
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
warn='kernel.perf_event_paranoid=[0-9]+: counting in user space only: context-switches:u, cpu-migrations:u count only kernel activity and will read 0; lower it with sysctl -w kernel.perf_event_paranoid=1 or run with CAP_PERFMON'

expect_ok "${as[@]}" "$PMCFUSE" events --check page-faults,cs,cpu-migrations,task-clock,task-clock:u
expect_match '^fits: 4 events can be counted in one execution; in user space only \(kernel mode not allowed\): page-faults:u, context-switches:u, cpu-migrations:u, task-clock:u$' "$OUT"
expect_match "^pmcfuse: events: $warn\$" "$ERR"

expect_ok "${as[@]}" "$PMCFUSE" record -q -e page-faults,context-switches,cpu-migrations,task-clock -o rec.pmcf -- "$EX/plain" 2 3
expect_match "^pmcfuse: record: $warn" "$ERR"
expect_eq 1 "$(grep -c 'user space only' err.txt)" "(one warning line)"
expect_ok "$PMCFUSE" export --format csv -o rec.csv rec.pmcf
expect_match 'page-faults:u,context-switches:u,cpu-migrations:u,task-clock:u' "$(head -n 1 rec.csv)"
# nothing to warn about: no event that counts only kernel activity
expect_ok "${as[@]}" "$PMCFUSE" record -e page-faults -o pf.pmcf -- "$EX/plain" 2 3
expect_nomatch 'user space only' "$ERR"

# a campaign: every execution and the fused profile under the same names
expect_ok "${as[@]}" "$PMCFUSE" run -e page-faults,cs,cpu-migrations,task-clock --pmcs 2 --keep execs -o run.pmcf -- "$EX/plain" 2 3
expect_match "^pmcfuse: run: $warn" "$ERR"
expect_eq 1 "$(grep -c 'user space only' err.txt)" "(one warning line)"
expect_ok "$PMCFUSE" show --json run.pmcf
expect_eq '["duration","page-faults:u","context-switches:u","cpu-migrations:u","task-clock:u"]' \
	"$(jq -c '.events | map(.name)' out.txt)"
for f in execs/exec-*.pmcf; do
	expect_ok "$PMCFUSE" show --json "$f"
	expect_match '"context-switches:u"|"cpu-migrations:u"|"page-faults:u"' "$OUT"
	expect_nomatch '"(context-switches|cpu-migrations|page-faults|task-clock)"' "$OUT"
done
