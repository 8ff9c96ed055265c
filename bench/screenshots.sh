#!/usr/bin/env bash
# Renders the charts docs/benchmarks.md shows from the last full bench/run.sh into docs/img/<run>.png: for the
# stairs and half-saturation runs of scenarios 1 and 2, Gatling's "users started per second" (the offered arrival
# rate), "response time percentiles over time" and "responses per second" (what was served), from a headless
# Chromium screenshot of a copy of each run's index.html with the report's other sections hidden.
# Needs: apt-get install -y chromium imagemagick. Run it after bench/run.sh, never during (Chromium is heavy).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=$ROOT/bench/target/results
OUT=$ROOT/docs/img
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Everything but the three charts goes; :has() picks a chart's box by the id of the chart inside it.
STYLE='<style>.schema-container, .statistics, .statistics-table-modal,
.schema.geant:has(#MaxConcurrentUsersContainerId), .schema.geant:has(#ResponseTimeDistributionContainerId),
.schema.geant:has(#RequestsContainerId) { display: none !important; }</style>'

for label in ${LABELS:-s1-stairs s1-half s2-stairs s2-half}; do
  report=$(awk -F'\t' -v l="$label" '$1 == l {print $4}' "$RESULTS/runs.tsv" | tail -n 1)
  if [ -z "$report" ] || [ ! -f "$report" ]; then
    echo "no report for $label" >&2
    continue
  fi
  charts=$(dirname "$report")/charts-only.html
  STYLE=$STYLE perl -pe 's{</head>}{$ENV{STYLE}</head>}' "$report" > "$charts"
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --disable-quic --no-first-run --hide-scrollbars --user-data-dir="$WORK/profile" \
    --virtual-time-budget=15000 --window-size=1400,1700 --screenshot="$WORK/$label.png" "file://$charts" \
    >/dev/null 2>&1
  # keep the report's content column, drop the side menu and the empty page below the charts
  convert "$WORK/$label.png" -crop "${CROP:-1080x1500+268+60}" +repage -trim +repage -bordercolor white \
    -border 10 "$OUT/$label.png"
  echo "rendered $OUT/$label.png"
done
