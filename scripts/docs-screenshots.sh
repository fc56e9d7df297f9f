#!/usr/bin/env bash
# Regenerates the README's HTML pictures from a results file:
#
#   scripts/docs-screenshots.sh RESULTS.json
#
# docs/quick-html.png          the HTML report in headless Chromium, 1280 x 1700 px
# docs/quick-html-disk-table.png  its disk results table alone, 1280 x 1000 px
#
# Take RESULTS.json from a quiet quick suite (no other load on the machine: figures
# taken under load read as the tool's accuracy), e.g.
#   cargo build --release && target/release/peakbench --width 120 --output results
# and say in the README's caption which machine it ran on. Needs chromium and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=${1:?usage: scripts/docs-screenshots.sh RESULTS.json}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium not installed (apt-get install chromium)" >&2; exit 1; }
PB=${PEAKBENCH:-target/release/peakbench}
[ -x "$PB" ] || cargo build --release -q
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PB" report "$RESULTS" --html "$WORK/quick.html" --quiet >/dev/null
shot() { # shot OUT.png WIDTH,HEIGHT [#FRAGMENT]
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --disable-background-networking --disable-component-update --disable-sync \
    --no-first-run --user-data-dir="$WORK/profile" \
    --screenshot="$1" --window-size="$2" "file://$WORK/quick.html${3:-}" 2>/dev/null
}
shot docs/quick-html.png 1280,1700
# The disk results table alone: the page's head (its styles) and that table.
python3 - "$WORK/quick.html" "$WORK/disk.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
head = page[: page.index("<body>") + len("<body>")]
start = page.index("<h3>disk results</h3>")
end = page.index("</table>", start) + len("</table>")
open(sys.argv[2], "w", encoding="utf-8").write(head + page[start:end] + "</body></html>\n")
PY
cp "$WORK/disk.html" "$WORK/quick.html"
shot docs/quick-html-disk-table.png 1280,1000
echo "wrote docs/quick-html.png and docs/quick-html-disk-table.png from $RESULTS"
