#!/usr/bin/env bash
# ctest `browser_pages`: writes the run, explain, front and sweep pages, loads each in headless Chromium and
# checks what its script drew (check_pages.py), drives zoom, the explain slider, a click on the front and
# sorting through injected probes (tests/browser/*_probe.js), and takes a screenshot of the run page. Fails (does not skip) without Chromium: scripts/setup.sh installs it.
#   pages_test.sh HETEROSIM HS_WRITE_PAGE SOURCE_DIR
set -euo pipefail
heterosim=$1 write_page=$2 src=$3
here=$src/tests/browser
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "browser_pages: chromium is not installed (Debian package chromium; scripts/setup.sh installs it)" >&2
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/heterosim-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT
check() { python3 -B "$here/check_pages.py" "$@"; } # -B: no __pycache__ in the source tree

# Headless Chromium as root needs --no-sandbox; its own profile keeps runs apart. The virtual time budget
# lets the page's script finish before the DOM is printed, without waiting on the wall clock.
chrome() {
  timeout 300 "$browser" --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions \
    --user-data-dir="$work/profile" --virtual-time-budget=5000 "$@" 2>>"$work/chromium.log"
}
dom() { chrome --dump-dom "file://$1" >"$2"; }

# Appends a probe script to a copy of a page, so that it runs once the page has drawn.
with_probe() {
  python3 -B - "$1" "$2" "$3" <<'PY'
import sys
page, probe, out = (open(p, encoding="utf-8").read() if i < 2 else p for i, p in enumerate(sys.argv[1:]))
assert page.count("</body>") == 1
open(out, "w", encoding="utf-8").write(page.replace("</body>", "<script>\n" + probe + "</script>\n</body>"))
PY
}

echo "== run page (heterosim run)"
"$heterosim" run --platform hetero-server --workload random:ops=150,precision=fp16 --policy heft --seed 3 -q \
  --out "$work/run"
dom "$work/run/report.html" "$work/run.dom"
check run "$work/run.dom" "$work/run/report.json"
with_probe "$work/run/report.html" "$here/zoom_probe.js" "$work/zoom.html"
dom "$work/zoom.html" "$work/zoom.dom"
check zoom "$work/zoom.dom"
chrome --screenshot="$work/run.png" --window-size=1400,900 --hide-scrollbars "file://$work/run/report.html" >/dev/null
check png "$work/run.png" 1400 900

echo "== run page of the main job (2000 ops, about 1800 transfers)"
"$heterosim" run --platform hetero-server --workload random:ops=2000,precision=fp16 --policy heft --seed 1 -q \
  --out "$work/main"
dom "$work/main/report.html" "$work/main.dom"
check run "$work/main.dom" "$work/main/report.json"

echo "== explain replay (the Topcuoglu 2002 example, fixture explain.json)"
"$heterosim" run --platform textbook-3p --workload "$src/workloads/examples/topcuoglu2002.json" --policy heft -q \
  --out "$work/textbook"
"$write_page" run "$work/textbook/report.json" "$here/explain-topcuoglu2002.json" "$work/explain.html"
dom "$work/explain.html" "$work/explain.dom"
check explain "$work/explain.dom" "$here/explain-topcuoglu2002.json" 10
dom "$work/explain.html#step=3" "$work/explain3.dom"
check explain "$work/explain3.dom" "$here/explain-topcuoglu2002.json" 3
check run "$work/explain.dom" "$work/textbook/report.json"
with_probe "$work/explain.html" "$here/step_probe.js" "$work/stepped.html"
dom "$work/stepped.html" "$work/stepped.dom"
check stepped "$work/stepped.dom"

echo "== front page (heterosim pareto)"
"$heterosim" pareto --platform workstation --workload random:ops=30,precision=fp16 --budget 60 --seed 1 --quiet \
  --out "$work/front"
dom "$work/front/front.html" "$work/front.dom"
check front "$work/front.dom" "$work/front/front.json"
with_probe "$work/front/front.html" "$here/click_probe.js" "$work/clicked.html"
dom "$work/clicked.html" "$work/clicked.dom"
check clicked "$work/clicked.dom"

echo "== sweep page (fixture sweep.json)"
"$write_page" sweep "$here/sweep.json" "$work/sweep.html"
dom "$work/sweep.html" "$work/sweep.dom"
check sweep "$work/sweep.dom" "$here/sweep.json"
with_probe "$work/sweep.html" "$here/sort_probe.js" "$work/sorted.html"
dom "$work/sorted.html" "$work/sorted.dom"
check sorted "$work/sorted.dom"
echo "browser_pages: all pages drew as expected"
