# JSON outputs validate against the schemas in docs/schema/ (Debian's
# python3-jsonschema, docs/schema/validate.py): show --json and
# export --format json of a recorded, a fused (truth, provenance) and a real
# program's profile, with a non-UTF-8 argument; show's metadata is typed
# (args an array, complete a boolean, numbers numbers).
EX="$(dirname "$PMCFUSE")/examples"
expect_ok "$PMCFUSE" record --sim cholesky,blocks=4 -e PAPI_TOT_INS,PAPI_L1_DCM -o rec.pmcf
expect_ok "$PMCFUSE" run --sim cholesky,blocks=4 -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP --pmcs 2 -o fused.pmcf
expect_ok "$PMCFUSE" record -e page-faults -o plain.pmcf -- "$EX/plain" 2 $'\xff'
for p in rec fused plain; do
	"$PMCFUSE" show --json "$p.pmcf" >"show-$p.json" || fail "show --json $p.pmcf"
	"$PMCFUSE" export --format json "$p.pmcf" >"export-$p.json" || fail "export --format json $p.pmcf"
done
"$PMCFUSE" export --format json --truth --provenance fused.pmcf >export-fused-tp.json || fail "export --truth --provenance"
# typed metadata in show, as in export
expect_eq "array boolean number boolean" "$(jq -r '[.meta.args, .meta.complete, .meta.exit_status, .complete] | map(type) | join(" ")' show-plain.json)"
expect_eq '{"base64":"/w=="}' "$(jq -c '.meta.args[1]' show-plain.json)"
expect_eq number "$(jq -r '.meta.pmcs | type' show-rec.json)"
expect_eq "$(jq -c .meta show-fused.json)" "$(jq -c .meta export-fused.json)" "(show and export metadata)"
# the binary's identity: SHA-256 (Nettle) and the GNU build-id (libelf), as
# sha256sum and readelf -n give them
expect_eq "$(sha256sum <"$EX/plain" | cut -d' ' -f1)" "$(jq -r .meta.binary_sha256 show-plain.json)"
if command -v readelf >/dev/null; then
	expect_eq "$(readelf -n "$EX/plain" | awk '/Build ID:/ {print $3}')" "$(jq -r .meta.binary_build_id show-plain.json)"
fi
PY=/usr/bin/python3
if ! "$PY" -c 'import jsonschema' 2>/dev/null; then
	echo "SKIP (schema validation): python3-jsonschema not installed (scripts/install-deps.sh)"
	return 0
fi
V="$SRCDIR/docs/schema/validate.py"
expect_ok "$PY" "$V" "$SRCDIR/docs/schema/show.schema.json" show-rec.json show-fused.json show-plain.json
expect_ok "$PY" "$V" "$SRCDIR/docs/schema/export.schema.json" export-rec.json export-fused.json export-plain.json export-fused-tp.json
"$PMCFUSE" truth --json fused.pmcf >truth-fused.json || fail "truth --json"
"$PMCFUSE" truth --json rec.pmcf >truth-rec.json || fail "truth --json (recorded)"
expect_ok "$PY" "$V" "$SRCDIR/docs/schema/truth.schema.json" truth-fused.json truth-rec.json
# the other verbs' --json summaries (and plan.json): simulated and real
# sources, the optional members (lgl labels, bc grid, multiplexing, --link auto)
S="$SRCDIR/docs/schema"
EVS=PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP,PAPI_L2_DCA
# a real program: the OpenMP example where it is built, else the plain
# pthread one (a build without clang-16/libomp, scripts/test-envs.sh noopenmp)
if omp_examples; then PROG=("$EX/cholesky" 4 32); else PROG=("$EX/plain" 3 16); fi
"$PMCFUSE" run --json --sim cholesky,blocks=4 -e PAPI_TOT_INS,PAPI_L1_DCM,PAPI_BR_MSP --pmcs 2 -o run.pmcf >run.json 2>/dev/null || fail "run --json"
expect_ok "$PY" "$V" "$S/run.schema.json" run.json
"$PMCFUSE" record --json --sim cholesky,blocks=4 -e PAPI_TOT_INS,PAPI_BR_MSP -o rec2.pmcf >record-sim.json || fail "record --json"
"$PMCFUSE" record --json -e page-faults,task-clock -o chol.pmcf -- "${PROG[@]}" >record-prog.json 2>/dev/null || fail "record --json PROG"
"$PMCFUSE" record --json --multiplex kernel -e page-faults,task-clock -o cholk.pmcf -- "${PROG[@]}" >record-mux.json 2>/dev/null || fail "record --json --multiplex kernel"
expect_eq "boolean string object" "$(jq -r '[.complete, .observed, .multiplex] | map(type) | join(" ")' record-mux.json)"
expect_ok "$PY" "$V" "$S/record.schema.json" record-sim.json record-prog.json record-mux.json
"$PMCFUSE" combine --json -o comb.pmcf rec.pmcf rec2.pmcf >combine-bc.json || fail "combine --json"
"$PMCFUSE" combine --json --strategy lgl -o comb-lgl.pmcf rec.pmcf rec2.pmcf >combine-lgl.json || fail "combine --json lgl"
"$PMCFUSE" combine --json --impute 2 -o comb-imp.pmcf rec.pmcf rec2.pmcf >combine-imputed.json || fail "combine --json --impute"
expect_eq object "$(jq -r '.imputed | type' combine-imputed.json)"
expect_eq "object object" "$(jq -r '[.grid, .match] | map(type) | join(" ")' combine-bc.json)"
expect_ok "$PY" "$V" "$S/combine.schema.json" combine-bc.json combine-lgl.json combine-imputed.json
"$PMCFUSE" plan --json --sim cholesky,blocks=4 -e "$EVS" --pmcs 2 -o plan-sim.json >plan-sum-sim.json 2>/dev/null || fail "plan --json"
"$PMCFUSE" plan --json --sim cholesky,blocks=4 -e "$EVS" --pmcs 2 --link auto -o plan-auto.json >plan-sum-auto.json 2>/dev/null || fail "plan --json --link auto"
"$PMCFUSE" plan --json --strategy lgl --pmcs 1 -e page-faults,task-clock,context-switches -o plan-prog.json -- "${PROG[@]}" >plan-sum-prog.json 2>/dev/null || fail "plan --json PROG"
expect_ok "$PY" "$V" "$S/plan.schema.json" plan-sum-sim.json plan-sum-auto.json plan-sum-prog.json
expect_ok "$PY" "$V" "$S/plan-file.schema.json" plan-sim.json plan-auto.json plan-prog.json
"$PMCFUSE" reference --json --sim cholesky,blocks=4 -e "$EVS" --pmcs 2 -o refs >reference.json 2>/dev/null || fail "reference --json"
"$PMCFUSE" reference -q -e page-faults,task-clock --pmcs 2 --repeat 2 -o refp -- "${PROG[@]}" >/dev/null 2>&1 || fail "reference PROG"
expect_ok "$PY" "$V" "$S/reference.schema.json" reference.json
expect_ok "$PY" "$V" "$S/reference-index.schema.json" refs/reference.json refp/reference.json
"$PMCFUSE" events --json --sim cholesky >events-sim.json || fail "events --json --sim"
"$PMCFUSE" events --json >events-here.json 2>/dev/null || fail "events --json"
"$PMCFUSE" events --json --no-probe >events-noprobe.json 2>/dev/null || fail "events --json --no-probe"
expect_ok "$PY" "$V" "$S/events.schema.json" events-sim.json events-here.json events-noprobe.json
"$PMCFUSE" events --json --check page-faults,task-clock >check-fits.json || fail "events --check --json"
! "$PMCFUSE" events --json --sim cholesky --pmcs 2 --check PAPI_L1_DCM,PAPI_L2_DCA,PAPI_BR_MSP,PAPI_L1_ICM,PAPI_L2_DCR >check-nofit.json 2>/dev/null || fail "events --check --json: fits"
expect_eq "true false" "$(jq -r .fits check-fits.json check-nofit.json | tr '\n' ' ' | sed 's/ $//')"
expect_ok "$PY" "$V" "$S/events-check.schema.json" check-fits.json check-nofit.json
# accuracy against the reference folder: one TARGET (an object), two (a list)
"$PMCFUSE" run -q --sim cholesky,blocks=4 -e "$EVS" --pmcs 2 -o run4.pmcf 2>/dev/null || fail "run (4 events)"
"$PMCFUSE" epd --json run4.pmcf refs >epd-one.json || fail "epd --json"
"$PMCFUSE" epd --json --pairs 3 --per-type --force run4.pmcf run.pmcf refs >epd-two.json || fail "epd --json (two targets, --pairs)"
expect_eq "object array" "$(jq -r type epd-one.json epd-two.json | tr '\n' ' ' | sed 's/ $//')"
expect_ok "$PY" "$V" "$S/epd.schema.json" epd-one.json epd-two.json
"$PMCFUSE" correrr --json run4.pmcf refs >correrr-one.json || fail "correrr --json"
"$PMCFUSE" correrr --json --force run4.pmcf run.pmcf refs >correrr-two.json || fail "correrr --json (two targets)"
expect_ok "$PY" "$V" "$S/correrr.schema.json" correrr-one.json correrr-two.json
printf 'weight,x,y\n1,0,0\n2,1,1\n' >a.csv
printf '1,0,1\n1,2,2\n' >b.csv
"$PMCFUSE" emd --json a.csv b.csv >emd.json || fail "emd --json"
expect_ok "$PY" "$V" "$S/emd.schema.json" emd.json
# categorize -o OUT.json (valgrind's cachegrind: a short branch and cache sweep)
if command -v valgrind >/dev/null; then
	"$PMCFUSE" categorize --backend cachegrind -e D1mr,Bc --points 2 --iterations 1000 --accesses 2000 \
		--max-bytes 16384 -o categorize.json >/dev/null 2>&1 || fail "categorize -o .json"
	expect_eq "number number" "$(jq -r '[.events[0].confidence, .sizes[0]] | map(type) | join(" ")' categorize.json)"
	expect_ok "$PY" "$V" "$S/categorize.schema.json" categorize.json
else
	echo "SKIP (categorize schema): valgrind not installed"
fi
# imix on its synthetic data (LBR and EBS; timer samples, with the time-to-count correction)
"$PMCFUSE" imix synth -o syn >/dev/null || fail "imix synth"
"$PMCFUSE" imix synth --timer -o syt >/dev/null || fail "imix synth --timer"
"$PMCFUSE" imix report --format json syn >imix-hbbp.json || fail "imix report json"
"$PMCFUSE" imix report --format json --method lbr --by function,mnemonic syn >imix-lbr.json || fail "imix report json lbr"
"$PMCFUSE" imix report --format json syn/ref >imix-ref.json || fail "imix report json (callgrind)"
"$PMCFUSE" imix report --format json syt >imix-timer.json 2>/dev/null || fail "imix report json (timer)"
"$PMCFUSE" imix compare --json syn/ref syn >imix-compare.json || fail "imix compare --json"
"$PMCFUSE" imix compare --json --normalize syt/ref syt >imix-compare-timer.json 2>/dev/null || fail "imix compare --json --normalize"
expect_eq "boolean number" "$(jq -r '[.relative, .total] | map(type) | join(" ")' imix-hbbp.json)"
expect_ok "$PY" "$V" "$S/imix.schema.json" imix-hbbp.json imix-lbr.json imix-ref.json imix-timer.json \
	imix-compare.json imix-compare-timer.json
# one task of a kept campaign (what a Slurm array task runs): JSON with --json, not the text line
"$PMCFUSE" run -q --sim cholesky,blocks=4 -e "$EVS,PAPI_L1_ICM,PAPI_L2_DCR" --pmcs 2 --keep kept -o kept.pmcf 2>/dev/null || fail "run --keep"
"$PMCFUSE" run --json --resume kept --only 1 >task-run.json 2>/dev/null || fail "run --resume --only --json"
"$PMCFUSE" reference --json --resume refs --only 2 >task-ref.json 2>/dev/null || fail "reference --resume --only --json"
expect_eq "1 true ref-002.pmcf" "$(jq -r .execution task-run.json) $(jq -r .already_done task-run.json) $(jq -r .file task-ref.json)"
expect_ok "$PY" "$V" "$S/task.schema.json" task-run.json task-ref.json
# the schema can fail: metadata as untyped strings (what show wrote before)
jq '.meta.complete = "1" | .meta.args = "[\"2\"]"' show-plain.json >untyped.json
expect_fail_plain() { ! "$@" >out.txt 2>&1 || fail "expected failure: $*"; ok; }
expect_fail_plain "$PY" "$V" "$SRCDIR/docs/schema/show.schema.json" untyped.json
expect_match 'meta/args|meta/complete' "$(cat out.txt)"
# a closed summary: a member the schema does not know, a boolean as 0/1
jq '.agree = 1 | .extra = 0' run.json >untyped-run.json
expect_fail_plain "$PY" "$V" "$S/run.schema.json" untyped-run.json
expect_match "agree.*boolean" "$(cat out.txt)"
expect_match "extra" "$(cat out.txt)"
