# `run` on a program without OMPT (plain pthreads here; a libgomp program
# alike) says why there is one XU per thread, as `record` does.
EX="$(dirname "$PMCFUSE")/examples"
expect_ok "$PMCFUSE" record -e page-faults -o one.pmcf -- "$EX/plain" 2 3
expect_match 'no OMPT runtime: one XU per thread' "$ERR"
expect_ok "$PMCFUSE" run -e page-faults,context-switches --pmcs 1 -o plain.pmcf -- "$EX/plain" 2 3
expect_match 'executions agree: 3 XUs each \(no OMPT runtime: one XU per thread\)' "$OUT"
# the task API is named as such; a simulation says nothing of the kind
expect_ok "$PMCFUSE" run -e page-faults,context-switches --pmcs 1 -o api.pmcf -- "$EX/taskapi"
expect_match 'executions agree: [0-9]+ XUs each \(task API\)' "$OUT"
expect_ok "$PMCFUSE" run -e duration,PAPI_L1_DCM,PAPI_L2_TCM --pmcs 2 --sim cholesky,blocks=4 -o sim.pmcf
expect_match 'executions agree: [0-9]+ XUs each, same types' "$OUT"
