# What bench/repro/beyond-bc.sh and link_auto.sh rely on (docs/results/
# beyond-bc-v3.md, link-auto-v3.md): one campaign of the default model kept
# with `run --keep`, fused by several strategies with `combine` (the same
# executions, only the pairing differs), scored by `truth --json` (its
# headline .mean_rel_error, missing = 1) and by one `epd --json` call for
# several targets (the results in the order of the targets); the oracle is
# the ceiling and random the floor on both machines; `,model=v2` still
# selects model v2 and the default is v3.
for m in xeon32 xeon192; do
	SIM=cholesky,blocks=8,machine=$m
	expect_ok "$PMCFUSE" run -e all --strategy bc --seed 1017 --keep ex-$m -o run-$m.pmcf --sim $SIM
	expect_ok "$PMCFUSE" show --json run-$m.pmcf
	expect_match 'model=v3' "$(echo "$OUT" | jq -r .meta.sim_spec)"
	n=$(ls ex-$m/exec-*.pmcf | wc -l)
	[ "$n" -ge 2 ] || fail "run --keep left $n executions"
	declare -A mean
	for s in bc lgl random oracle; do
		expect_ok "$PMCFUSE" combine -q --strategy $s --seed 1017 --threads 1 -o $s-$m.pmcf ex-$m/exec-*.pmcf
		expect_ok "$PMCFUSE" truth --json $s-$m.pmcf
		expect_eq 0 "$(echo "$OUT" | jq .share_missing)" "($s on $m)"
		mean[$s]=$(echo "$OUT" | jq .mean_rel_error)
	done
	# imputation on top of bc (the candidates bc+i9 / bc+r5)
	expect_ok "$PMCFUSE" combine -q --strategy bc --impute 5 --impute-mode rank -o r5-$m.pmcf ex-$m/exec-*.pmcf
	echo "$m truth mean: bc ${mean[bc]} lgl ${mean[lgl]} random ${mean[random]} oracle ${mean[oracle]}"
	expect_eq 1 "$(jq -n --argjson o "${mean[oracle]}" --argjson b "${mean[bc]}" --argjson l "${mean[lgl]}" --argjson r "${mean[random]}" \
		'if $o < $b and $o < $l and $b < $r and $l < $r then 1 else 0 end')" "(oracle < bc, lgl < random on $m)"
	# one epd call for several targets: one result per target, in order
	expect_ok "$PMCFUSE" reference -e all --repeat 2 --seed 7 -o refs-$m --sim $SIM -q
	expect_ok "$PMCFUSE" epd --json random-$m.pmcf bc-$m.pmcf oracle-$m.pmcf refs-$m
	expect_eq "random-$m.pmcf bc-$m.pmcf oracle-$m.pmcf" "$(echo "$OUT" | jq -r '[.[].target] | join(" ")')"
	expect_eq 1 "$(echo "$OUT" | jq 'if .[0].epd > .[1].epd then 1 else 0 end')" "(random's EPD above bc's on $m)"
done
# the pages' v2 reruns: MODEL=,model=v2 selects model v2
expect_ok "$PMCFUSE" run -e all --strategy bc --seed 1017 -o v2.pmcf --sim cholesky,blocks=8,machine=xeon192,model=v2
expect_ok "$PMCFUSE" show --json v2.pmcf
expect_match 'model=v2' "$(echo "$OUT" | jq -r .meta.sim_spec)"
