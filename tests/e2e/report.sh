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
for id in meta types timeline distributions scatter truth accuracy provenance match; do
	expect_match "<h2 id=\"$id\">" "$html"
done
expect_match 'IPC' "$html"
expect_nomatch 'Incomplete profile' "$html"
# a profile whose program failed says so at the top
expect_fail 2 "$PMCFUSE" record -e page-faults -o inc.pmcf -- sh -c 'exit 3'
expect_ok "$PMCFUSE" report -o inc.html inc.pmcf
expect_match '<p class="warn"><strong>Incomplete profile:</strong> the run did not finish' "$(cat inc.html)"
expect_match 'branch misprediction rate' "$html"
expect_match '<b>EPD [0-9.]+</b>' "$html"
expect_match 'PAPI_L2_DCA against PAPI_L1_DCM.*requested with --pair' "$html"
nimg=$(grep -o '<img ' f.html | wc -l)
ndata=$(grep -o '<img src="data:image/png;base64,' f.html | wc -l)
# the TMD heat map is the one PNG; the rest is SVG
expect_eq 1 "$nimg" "(images in f.html)"
expect_eq "$nimg" "$ndata" "(images that are data: URIs)"
expect_eq 0 "$(grep -c -E '(src|href)="(https?:|file:|/)' f.html)" "(external references)"
expect_eq "" "$(ls -A "$TMPDIR")" "(temporary files left)"
# SVG plots: a timeline per base execution (each says it shows base times),
# a box plot per event (9), 4 pairs beside a reference (8), truth,
# provenance, match histogram
nbase=$(grep -o ">XUs per thread over time in execution" f.html | wc -l)
[ "$nbase" -ge 1 ] || fail "no timeline of a base execution"; ok
expect_match 'times of its <i>base</i> XU' "$html"
# a bar's hover text has the XU's values: what each thread did when
expect_match '<title>[^<]* XU [0-9]+, thread [0-9]+: from [^<]*; PAPI_TOT_INS [0-9.]+( [kMG])?, PAPI_TOT_CYC [0-9.]+' "$html"
nsvg=$(grep -o '<svg class="plot"' f.html | wc -l)
expect_eq $((nbase + 9 + 8 + 3)) "$nsvg" "(SVG plots in f.html)"
expect_eq 9 "$(grep -c '<svg class="plot"[^>]*data-zoom="y"' f.html)" "(box plots)"
# units on the axes; hover text on the points and bars
expect_match 'PAPI_L1_DCM \(count\)' "$html"
expect_match 'duration \(ns\)' "$html"
expect_match 'data-xunit="ns"' "$html"
expect_match '<path d="M[0-9.]+ [0-9.]+h0"><title>[a-z]+ XU [0-9]+: ' "$html"
# truth: the same median as `pmcfuse truth`
expect_ok "$PMCFUSE" truth f.pmcf
med=$(printf '%s\n' "$OUT" | sed -n '2s/.*median relative error \([0-9.e-]*\),.*/\1/p')
mean=$(printf '%s\n' "$OUT" | sed -n '1s/.*(missing = 1) \([0-9.e-]*\)$/\1/p')
expect_match "mean relative error $mean</b>" "$html"
expect_match "median relative error $med</b>" "$html"
# provenance: every event's values from one of the 3 executions, bars sum to the XUs
expect_match 'PAPI_L1_DCM: 120 XUs \(100.0%\) from execution [0-2]' "$html"
# the match histogram: bins at their real widths ([.2,.5) is 30 times [0,.01))
w1=$(sed -n 's/.*<rect x="0.00" y="[0-9.]*" width="\([0-9.]*\)"[^>]*><title>0 to 0.01: .*/\1/p' f.html)
w6=$(sed -n 's/.*<rect x="[0-9.]*" y="[0-9.]*" width="\([0-9.]*\)"[^>]*><title>0.2 to 0.5: .*/\1/p' f.html)
expect_eq 30 "$(awk -v a="$w1" -v b="$w6" 'BEGIN{printf "%.0f", b / a}')" "(width of [.2,.5) over [0,.01))"

# a thinned scatter plot says so
expect_ok "$PMCFUSE" report -o thin.html --plots 1 --points 100 f.pmcf
expect_match 'plotted 60 of 120 XUs, every 2nd' "$(cat thin.html)"
expect_fail 1 "$PMCFUSE" report -o x.html --points 5 f.pmcf

# multiplexed: coverage section; plain profile without REFDIR: no accuracy section
expect_ok "$PMCFUSE" report -o m.html m.pmcf
expect_match '<h2 id="coverage">' "$(cat m.html)"
expect_nomatch '<h2 id="accuracy">' "$(cat m.html)"
expect_nomatch '<h2 id="match">' "$(cat m.html)"
expect_match 'distinct points' "$(cat m.html)"
expect_nomatch '<h2 id="provenance">' "$(cat m.html)"
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
PMCF_GNUPLOT=/nonexistent/gnuplot expect_fail 2 "$PMCFUSE" report -o x.html f.pmcf refs
expect_match 'cannot run /nonexistent/gnuplot' "$ERR"
[ ! -e x.html ] || fail "x.html left behind"; ok
expect_eq "" "$(ls -A "$TMPDIR" | grep -v '^chromium' || true)" "(temporary files left after errors)"
expect_eq "" "$(ls -A | grep '\.tmp\.' || true)"

# A real program's software events are small discrete counts: those axes
# are jittered, and the caption says so
if omp_examples; then
	expect_ok "$PMCFUSE" record -e page-faults,context-switches,task-clock -o real.pmcf -- \
		"$(dirname "$PMCFUSE")/examples/cholesky"
	expect_ok "$PMCFUSE" report -o real.html --plots 3 real.pmcf
	expect_match 'jittered \(discrete counts' "$(cat real.html)"
	expect_match 'page-faults \(count\)' "$(cat real.html)"
	expect_match 'task-clock \(ns\)' "$(cat real.html)"
fi

# Chromium renders the pages; the page's own script counts decoded images
if ! command -v chromium >/dev/null 2>&1; then
	echo "skip: chromium is not installed (scripts/install-deps.sh installs it); render check not run"
	return 0
fi
chromium_run() { # chromium_run FILE ARGS... (headless, a fresh profile folder)
	local prof f=$1
	shift
	prof=$(mktemp -d "$TMPDIR/chromium.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
		--user-data-dir="$prof" --virtual-time-budget=10000 "$@" "file://$PWD/$f" 2>/dev/null
	rm -rf "$prof"
}
render() { # render FILE -> prints "loaded/total" images
	chromium_run "$1" --dump-dom |
		sed -n 's/.*data-images="\([0-9]*\)" data-images-ok="\([0-9]*\)".*/\2\/\1/p' | head -n1
}
render_svg() { # render_svg FILE -> "drawn/total" SVG plots (data drawn, script's ticks on numeric axes)
	chromium_run "$1" --dump-dom | sed -n 's/.*data-svgs="\([0-9]*\)" data-svgs-ok="\([0-9]*\)".*/\2\/\1/p' |
		head -n1
}
expect_eq "$nsvg/$nsvg" "$(render_svg f.html)" "(SVG plots drawn by chromium in f.html)"
# the check can fail: a script error leaves the axes without ticks
sed 's/function pmAxes(s){/function pmAxes(s){throw 1;/' f.html >noticks.html
expect_eq "0/$nsvg" "$(render_svg noticks.html)" "(plots without ticks must not count)"
expect_eq "$nimg/$nimg" "$(render f.html)" "(images decoded by chromium in f.html)"
nm=$(grep -o '<img ' m.html | wc -l)
[ "$nm" -ge 1 ] || fail "m.html has only $nm images"; ok
expect_eq "$nm/$nm" "$(render m.html)" "(images decoded by chromium in m.html)"
# the check can fail: a damaged image is not counted
sed '0,/base64,iVBOR/s//base64,AAAAA/' f.html >broken.html
expect_eq "$((nimg - 1))/$nimg" "$(render broken.html)" "(a damaged image must not decode)"

# Screenshots: the timeline and the box plots are drawn in the type colours
# (pixels of the first type's colour #1f77b4 counted in the PNG chromium
# writes; the page without its SVG plots has none)
if command -v python3 >/dev/null 2>&1; then
	python3 - f.html tl.html nosvg.html <<'PY'
import re, sys
s = open(sys.argv[1]).read()
head = s[:s.index('<body>') + 6]
a = s.index('<h2 id="timeline">'); b = s.index('<h2 id="scatter">')
open(sys.argv[2], 'w').write(head + s[a:b] + '</body></html>')
open(sys.argv[3], 'w').write(head + re.sub(r'<svg class="plot".*?(?=<figcaption>|</figure>)', '', s[a:b], flags=re.S) + '</body></html>')
PY
	colour_px() { # colour_px PNG -> pixels of #1f77b4 (8-bit RGB(A) PNG, as chromium writes)
		python3 - "$1" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
w, h, depth, ctype = struct.unpack('>IIBB', d[16:26])
pos, idat = 8, b''
while pos < len(d):
    n, = struct.unpack('>I', d[pos:pos + 4]); kind = d[pos + 4:pos + 8]
    if kind == b'IDAT': idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
raw, bpp = zlib.decompress(idat), {2: 3, 6: 4}[ctype]
stride, prev, count, i = w * bpp, bytearray(w * bpp), 0, 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    count += sum(1 for x in range(0, stride, bpp) if line[x:x + 3] == b'\x1f\x77\xb4')
    prev = line
print(count)
PY
	}
	chromium_run tl.html --window-size=1250,1000 --screenshot="$PWD/tl.png" >/dev/null
	chromium_run nosvg.html --window-size=1250,1000 --screenshot="$PWD/nosvg.png" >/dev/null
	[ -s tl.png ] || fail "chromium wrote no screenshot"; ok
	px=$(colour_px tl.png)
	[ "$px" -ge 500 ] || fail "the timeline and box plots drew only $px pixels of the first type's colour"; ok
	expect_eq 0 "$(colour_px nosvg.png)" "(first type's colour without the SVG plots)"
else
	echo "skip: python3 is not installed; screenshot pixel check not run"
fi

# A signal while the report is made (here during a slow gnuplot): the
# temporary folder is removed, no page is written, exit 128+N, one line.
mkdir -p rtmp
printf '#!/bin/sh\ntouch "%s/started"\nsleep 2\nexec gnuplot "$@"\n' "$PWD" >slowplot
chmod +x slowplot
rc=0
rm -f started
TMPDIR=$PWD/rtmp PMCF_GNUPLOT=$PWD/slowplot "$PMCFUSE" report -o sig.html f.pmcf refs 2>err.txt &
pid=$!
# signal once gnuplot runs (the heat map needs it), however slow the build
for _ in $(seq 300); do [ -e started ] && break; sleep 0.1; done
kill -TERM $pid
wait $pid || rc=$?
expect_eq 143 "$rc"
expect_eq 'pmcfuse: report: interrupted by SIGTERM: no report written' "$(cat err.txt)"
[ ! -e sig.html ] || fail "an interrupted report wrote its page"; ok
expect_eq "" "$(ls -A rtmp)" "(temporary files left)"
