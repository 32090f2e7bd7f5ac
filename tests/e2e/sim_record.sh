# record --sim: the "Done when" of the simulator issue, end to end.
EV=PAPI_TOT_INS,PAPI_L1_DCM

expect_ok $PMCFUSE record --sim cholesky,blocks=12 -e $EV -o a.pmcf
expect_ok $PMCFUSE export --format csv a.pmcf
echo "$OUT" >a.csv
expect_eq "xu,type,type_name,label,parent_label,thread,cpu,start_ns,end_ns,duration,PAPI_TOT_INS,PAPI_L1_DCM" "$(head -1 a.csv)"
expect_eq 364 "$(tail -n +2 a.csv | wc -l)"
expect_eq 12 "$(awk -F, '$3=="potrf"' a.csv | wc -l)"
expect_eq 66 "$(awk -F, '$3=="trsm"' a.csv | wc -l)"
expect_eq 66 "$(awk -F, '$3=="syrk"' a.csv | wc -l)"
expect_eq 220 "$(awk -F, '$3=="gemm"' a.csv | wc -l)"
# every value present and positive
expect_eq 0 "$(tail -n +2 a.csv | awk -F, '$10=="" || $11=="" || $12=="" || $11<=0' | wc -l)"

# repeatable by seed, varying across seeds
expect_ok $PMCFUSE record --sim cholesky,blocks=12 -e $EV -o b.pmcf
cmp -s a.pmcf b.pmcf || fail "same spec and seed gave different files"
ok
expect_ok $PMCFUSE record --sim cholesky,blocks=12,seed=2 -e $EV -o c.pmcf
expect_ok $PMCFUSE export --format csv c.pmcf
[ "$OUT" != "$(cat a.csv)" ] || fail "seed=2 gave the same profile as seed=1"
ok

# metadata and ground truth of every catalogue event
expect_ok $PMCFUSE show --json a.pmcf
echo "$OUT" >show.json
expect_match '"source": *"sim"' "$OUT"
expect_match 'cholesky,blocks=12,bsize=64,machine=xeon32,seed=1' "$OUT"
expect_ok $PMCFUSE export --format csv --truth a.pmcf
header=${OUT%%$'\n'*}
expect_match 'truth:PAPI_FDV_INS' "$header"
expect_match 'truth:PAPI_L2_DCA' "$header"
expect_eq 34 "$(echo "$header" | tr , '\n' | grep -c '^truth:')"

# a set that does not fit is refused cleanly, unless multiplexed
expect_fail 1 $PMCFUSE record --sim cholesky,blocks=12 -e all -o all.pmcf
expect_match 'cannot be counted together|general-purpose counters' "$ERR"
[ ! -e all.pmcf ] || fail "a refused record left a file"
ok
expect_fail 1 $PMCFUSE record --sim cholesky,blocks=12 -e PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS -o x.pmcf
expect_match 'need 5 general-purpose counters but xeon32 has 4' "$ERR"
expect_ok $PMCFUSE record --sim cholesky,blocks=12 -e PAPI_L1_DCM,PAPI_L1_ICM,PAPI_BR_INS,PAPI_LD_INS,PAPI_SR_INS --pmcs 5 -o x.pmcf

expect_ok $PMCFUSE record --sim cholesky,blocks=12,model=v1 -e all --multiplex rr --period-ms 4 -o m.pmcf
expect_ok $PMCFUSE export --format csv m.pmcf
expect_eq 364 "$(echo "$OUT" | tail -n +2 | wc -l)"
# with the first value model the run (1.5 ms) is shorter than the 4 ms period: the events that never got
# a counter are missing (empty fields), not 0, even with the cumulative estimate
expect_eq 364 "$(echo "$OUT" | tail -n +2 | grep -c ',,')"
expect_ok $PMCFUSE record --sim cholesky,blocks=12,model=v1 -e all --multiplex rr --period-ms 4 --estimate local -o l.pmcf
expect_ok $PMCFUSE export --format csv l.pmcf
missing=$(echo "$OUT" | tail -n +2 | grep -c ',,\|,$' || true)
[ "$missing" -gt 0 ] || fail "--estimate local left no value missing"
ok
expect_ok $PMCFUSE record --sim cholesky,blocks=12 -e all --multiplex roc --period-ms 0.05 -o r.pmcf
expect_ok $PMCFUSE record --sim cholesky,blocks=12 -e all --multiplex kernel --period-ms 1 -o k.pmcf

# bad specs and options: one clear line each
expect_fail 1 $PMCFUSE record --sim cholsky -e $EV -o z.pmcf
expect_match 'unknown workload .cholsky.*cholesky, seidel, kmeans, loops, knapsack' "$ERR"
expect_fail 1 $PMCFUSE record --sim cholesky,blokcs=3 -e $EV -o z.pmcf
expect_match 'valid keys' "$ERR"
expect_fail 1 $PMCFUSE record --sim cholesky,machine=xeon7 -e $EV -o z.pmcf
expect_match 'xeon32, xeon192|xeon192, xeon32' "$ERR"
expect_fail 1 $PMCFUSE record --sim cholesky -e PAPI_TOT_INZ -o z.pmcf
expect_match 'PAPI_TOT_INS' "$ERR"
expect_fail 1 $PMCFUSE record --sim cholesky -e $EV --multiplex sometimes -o z.pmcf
# a real program's PAPI presets come from libpapi, not from the simulator:
# without a PMU they cannot be counted, and record says why (tests/e2e/papi.sh)
if [ "$($PMCFUSE events --source papi --no-probe --json |
	jq '[.[] | select(.name == "PAPI_TOT_INS" and .available == false)] | length')" = 1 ]; then
	expect_fail 2 $PMCFUSE record -e $EV -o z.pmcf -- /bin/true
	expect_match "PAPI preset 'PAPI_TOT_INS' cannot be counted on this machine: " "$ERR"
fi
expect_fail 1 $PMCFUSE record -e PAPI_TOT_INZ -o z.pmcf -- /bin/true
expect_match "unknown event 'PAPI_TOT_INZ'" "$ERR"
expect_fail 1 $PMCFUSE record -o z.pmcf --plan plan.json --set 1
expect_match 'plan.json' "$ERR"
expect_fail 1 $PMCFUSE record -e $EV -o z.pmcf --sim cholesky -- /bin/true
expect_match 'not both' "$ERR"
[ ! -e z.pmcf ] || fail "a failed record left a file"
ok

# the other workloads and the second machine
for w in seidel,blocks=6,iters=2 kmeans,parts=8,iters=3 loops,schedule=dynamic,chunk=5000 \
	 loops,n=5000,loops=2,reps=2 knapsack,cutoff=8 cholesky,blocks=6,machine=xeon192; do
	expect_ok $PMCFUSE record --sim $w -e $EV -o w.pmcf
	expect_ok $PMCFUSE export --format csv w.pmcf
	[ "$(echo "$OUT" | wc -l)" -gt 2 ] || fail "$w recorded no XU"
	ok
done
expect_ok $PMCFUSE events --sim cholesky,machine=xeon192 --json
expect_eq 34 "$(echo "$OUT" | jq length)"
expect_eq PAPI_L1_DCM "$(echo "$OUT" | jq -r '.[] | select(.name=="PAPI_L2_DCA") | .constraints.alias_of')"

# ---- value model: v1 reproduces the first model bit for bit -------------------
# digests of `export --csv --truth` recorded with the first model (before
# model 2 existed, commit 5f596b7): plain and round-robin multiplexed runs
EV6=PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM,PAPI_L2_DCR,PAPI_BR_MSP,PAPI_L3_TCM
while read -r spec mode want; do
	rm -f g.pmcf
	if [ "$mode" = plain ]; then
		expect_ok $PMCFUSE record -e $EV6 -o g.pmcf --sim "$spec,model=v1"
	else
		expect_ok $PMCFUSE record -e all --multiplex rr --period-ms 1 -o g.pmcf --sim "$spec,model=v1"
	fi
	expect_ok $PMCFUSE export --format csv --truth g.pmcf
	expect_eq "$want" "$(printf '%s\n' "$OUT" | sha256sum | cut -c1-16)" "($spec $mode)"
done <<'DIGESTS'
cholesky,blocks=8,seed=3 plain 2cfd6020387fe06a
cholesky,blocks=8,seed=3 rr ae0bca39c57d5569
seidel,blocks=6,iters=3,machine=xeon192,seed=5 plain b5fc288345d9825d
seidel,blocks=6,iters=3,machine=xeon192,seed=5 rr 3d6a30ebfe86d31a
loops,schedule=dynamic,n=20000,seed=2 plain 77eb386985b47490
loops,schedule=dynamic,n=20000,seed=2 rr 6ea7154ccf9505ea
DIGESTS
# model 2 reproduces bit for bit too: digests recorded with model 2 before
# model 3 existed (commit b9ddc98)
while read -r spec mode want; do
	rm -f g.pmcf
	if [ "$mode" = plain ]; then
		expect_ok $PMCFUSE record -e $EV6 -o g.pmcf --sim "$spec,model=v2"
	else
		expect_ok $PMCFUSE record -e all --multiplex rr --period-ms 1 -o g.pmcf --sim "$spec,model=v2"
	fi
	expect_ok $PMCFUSE export --format csv --truth g.pmcf
	expect_eq "$want" "$(printf '%s\n' "$OUT" | sha256sum | cut -c1-16)" "($spec $mode v2)"
done <<'DIGESTS'
cholesky,blocks=8,seed=3 plain 961bb6a659b4e127
cholesky,blocks=8,seed=3 rr 2e3cbaebcca3e58a
seidel,blocks=6,iters=3,machine=xeon192,seed=5 plain 1e88e310b7cfe7d7
seidel,blocks=6,iters=3,machine=xeon192,seed=5 rr 3c4991ffb393f4e6
loops,schedule=dynamic,n=20000,seed=2 plain a0c0d336a4ae7ed0
loops,schedule=dynamic,n=20000,seed=2 rr 809a394397fac72a
DIGESTS
# model 3 is the default and differs from both; bad model names are refused
expect_ok $PMCFUSE record -e $EV6 -o v3.pmcf --sim cholesky,blocks=8,seed=3
expect_ok $PMCFUSE export --format csv --truth v3.pmcf
V3SUM="$(printf '%s\n' "$OUT" | sha256sum | cut -c1-16)"
[ "$V3SUM" != 2cfd6020387fe06a ] || fail "model 3 equals model 1"; ok
[ "$V3SUM" != 961bb6a659b4e127 ] || fail "model 3 equals model 2"; ok
expect_ok $PMCFUSE show --json v3.pmcf
expect_match 'seed=3,model=v3' "$OUT"
# runs on the papers' time scale (tenths of seconds; v2 ran longer because it
# repeated the compulsory misses of every pass)
expect_ok $PMCFUSE record -e PAPI_TOT_INS -o big.pmcf --sim cholesky
[ "$($PMCFUSE show --json big.pmcf | jq -r .meta.makespan_ns)" -gt 250000000 ] || fail "model 3 run shorter than 0.25 s"; ok
expect_fail 1 $PMCFUSE record -e PAPI_TOT_INS -o x.pmcf --sim cholesky,model=v4
expect_match "model='v4' is not valid" "$ERR"
