#!/usr/bin/env bash
# Set up, build the knowledge base from the bundled data/ and serve it on http://$HOST:$PORT/
# (default http://127.0.0.1:8080/). Environment: HOST, PORT, CHESSKB_STORE (default ./chesskb-store),
# CHESSKB_AUTHOR_TOKEN (turns on the teachers' authoring page /author).
# A second start reinstalls nothing unless pyproject.toml changed and re-imports only the sources
# whose files (or chesskb's analysis code) changed.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
STORE=${CHESSKB_STORE:-./chesskb-store}
echo "note: data/seed/seed-000-sample.pgn game 2 has an invalid FEN on purpose (the seed's own bad example);"
echo "      the import reports it and skips that game: the error line about it below is expected."
# The demo's sources: real collections (data/README.md), not the parser test inputs of data/pgn-extract
# (only its historical odds games); the traps are imported as exercises of class Trap.
.venv/bin/chesskb --store "$STORE" import --skip-unchanged data/lichess/puzzles.csv data/pychess/*.pgn \
  data/seed/*.pgn data/games/*.pgn data/pgn-extract/odds.pgn data/openings/*.pgn data/tags/*.pgn
.venv/bin/chesskb --store "$STORE" import --skip-unchanged --theme Trap data/traps/*.pgn
for course in data/courses/*.yaml; do .venv/bin/chesskb --store "$STORE" course import "$course"; done
.venv/bin/chesskb --store "$STORE" stats
exec .venv/bin/chesskb --store "$STORE" serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8080}"
