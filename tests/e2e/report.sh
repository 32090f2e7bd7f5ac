# pmcfuse report: a self-contained HTML page (every image a data: URI) for a
# fused profile with references, a multiplexed one and a real-looking one;
# errors; and, when chromium is installed, every image decodes in the browser.

export TMPDIR=$PWD/tmp
mkdir -p "$TMPDIR"
E=PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L1_DCM,PAPI_L2_DCA,PAPI_BR_MSP,PAPI_BR_CN,PAPI_LD_INS,PAPI_SR_INS
expect_ok "$PMCFUSE" run -e "$E" --pmcs 2 --strategy bc --sim cholesky,blocks=8 -o f.pmcf
expect_ok "$PMCFUSE" reference -e "$E" --repeat 2 -o refs --sim cholesky,blocks=8
expect_ok "$PMCFUSE" record -e all --multiplex rr --period-ms 1 --sim cholesky,blocks=8 -o m.pmcf

# fused + REFDIR: every section, plots embedded, nothing else referenced
expect_ok "$PMCFUSE" report -o f.html --plots 3 --pair PAPI_L1_DCM,PAPI_L2_DCA f.pmcf refs
html=$(cat f.html)
expect_match '<h2 id="meta">' "$html"
expect_match '<h2 id="types">' "$html"
expect_match 'IPC' "$html"
expect_match 'branch misprediction rate' "$html"
expect_match '<h2 id="scatter">' "$html"
expect_match '<h2 id="accuracy">' "$html"
expect_match '<b>EPD [0-9.]+</b>' "$html"
expect_match '<h2 id="match">' "$html"
expect_match 'PAPI_L2_DCA against PAPI_L1_DCM.*requested with --pair' "$html"
nimg=$(grep -o '<img ' f.html | wc -l)
ndata=$(grep -o '<img src="data:image/png;base64,' f.html | wc -l)
# 4 pairs side by side with a reference (8) + heat map + match histogram
expect_eq 10 "$nimg" "(images in f.html)"
expect_eq "$nimg" "$ndata" "(images that are data: URIs)"
expect_eq 0 "$(grep -c -E '(src|href)="(https?:|file:|/)' f.html)" "(external references)"
expect_eq "" "$(ls -A "$TMPDIR")" "(temporary files left)"

# multiplexed: coverage section; plain profile without REFDIR: no accuracy section
expect_ok "$PMCFUSE" report -o m.html m.pmcf
expect_match '<h2 id="coverage">' "$(cat m.html)"
expect_nomatch '<h2 id="accuracy">' "$(cat m.html)"
expect_nomatch '<h2 id="match">' "$(cat m.html)"
expect_match 'lowest \|Spearman' "$(cat m.html)"
# standard output
expect_ok "$PMCFUSE" report -o - --plots 1 m.pmcf
expect_match '</html>' "$OUT"

# errors: one line, right status, nothing left behind
expect_fail 1 "$PMCFUSE" report f.pmcf
expect_match 'needs -o' "$ERR"
expect_fail 1 "$PMCFUSE" report -o x.html no-such.pmcf
expect_fail 1 "$PMCFUSE" report -o x.html --pair PAPI_L1_DCM,NOPE f.pmcf
expect_match "NOPE" "$ERR"
expect_fail 1 "$PMCFUSE" report -o x.html f.pmcf no-such-dir
expect_fail 1 "$PMCFUSE" report -o x.html --plots 99 f.pmcf
PMCF_GNUPLOT=/nonexistent/gnuplot expect_fail 2 "$PMCFUSE" report -o x.html f.pmcf
expect_match 'cannot run /nonexistent/gnuplot' "$ERR"
[ ! -e x.html ] || fail "x.html left behind"; ok
expect_eq "" "$(ls -A "$TMPDIR" | grep -v '^chromium' || true)" "(temporary files left after errors)"
expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"

# Chromium renders the pages; the page's own script counts decoded images
if ! command -v chromium >/dev/null 2>&1; then
	echo "skip: chromium is not installed (scripts/install-deps.sh installs it); render check not run"
	return 0
fi
render() { # render FILE -> prints "loaded/total"
	local prof
	prof=$(mktemp -d "$TMPDIR/chromium.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --virtual-time-budget=10000 --dump-dom "file://$PWD/$1" 2>/dev/null |
		sed -n 's/.*data-images="\([0-9]*\)" data-images-ok="\([0-9]*\)".*/\2\/\1/p' | head -n1
	rm -rf "$prof"
}
expect_eq "$nimg/$nimg" "$(render f.html)" "(images decoded by chromium in f.html)"
nm=$(grep -o '<img ' m.html | wc -l)
[ "$nm" -ge 2 ] || fail "m.html has only $nm images"; ok
expect_eq "$nm/$nm" "$(render m.html)" "(images decoded by chromium in m.html)"
# the check can fail: a damaged image is not counted
sed '0,/base64,iVBOR/s//base64,AAAAA/' f.html >broken.html
expect_eq "$((nimg - 1))/$nimg" "$(render broken.html)" "(a damaged image must not decode)"

# A signal while the report is made (here during a slow gnuplot): the
# temporary folder is removed, no page is written, exit 128+N, one line.
mkdir -p rtmp
printf '#!/bin/sh\nsleep 2\nexec gnuplot "$@"\n' >slowplot
chmod +x slowplot
rc=0
TMPDIR=$PWD/rtmp PMCF_GNUPLOT=$PWD/slowplot "$PMCFUSE" report -o sig.html f.pmcf 2>err.txt &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid || rc=$?
expect_eq 143 "$rc"
expect_eq 'pmcfuse: report: interrupted by SIGTERM: no report written' "$(cat err.txt)"
[ ! -e sig.html ] || fail "an interrupted report wrote its page"; ok
expect_eq "" "$(ls -A rtmp)" "(temporary files left)"
