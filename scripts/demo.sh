#!/usr/bin/env bash
# Set up, build the knowledge base from the bundled data/ and serve it on http://127.0.0.1:8080/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
STORE=${CHESSKB_STORE:-./chesskb-store}
.venv/bin/chesskb --store "$STORE" import data/lichess/puzzles.csv data/pychess/*.pgn data/seed/*.pgn \
  data/games/*.pgn data/pgn-extract/*.pgn data/openings/*.pgn
for course in data/courses/*.yaml; do .venv/bin/chesskb --store "$STORE" course import "$course"; done
.venv/bin/chesskb --store "$STORE" stats
exec .venv/bin/chesskb --store "$STORE" serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8080}"
