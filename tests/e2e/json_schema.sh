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
# the schema can fail: metadata as untyped strings (what show wrote before)
jq '.meta.complete = "1" | .meta.args = "[\"2\"]"' show-plain.json >untyped.json
expect_fail_plain() { ! "$@" >out.txt 2>&1 || fail "expected failure: $*"; ok; }
expect_fail_plain "$PY" "$V" "$SRCDIR/docs/schema/show.schema.json" untyped.json
expect_match 'meta/args|meta/complete' "$(cat out.txt)"
