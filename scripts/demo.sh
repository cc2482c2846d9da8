#!/usr/bin/env bash
# Set up, build the knowledge base from the bundled data/ and serve it on http://$HOST:$PORT/
# (default http://127.0.0.1:8080/). Environment: HOST, PORT, CHESSKB_STORE (default ./chesskb-store),
# CHESSKB_AUTHOR_TOKEN (turns on the teachers' authoring page /author).
# A second start reinstalls nothing unless pyproject.toml changed, re-imports only the sources whose files
# (or chesskb's code) changed, and chooses a course's exercises again only when its file or a source changed.
# Every line it prints is described in README.md ("The two commands"); the import's notes about the
# bundled files' own flaws go to $CHESSKB_STORE.import-notes.txt, and only their count is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
STORE=${CHESSKB_STORE:-./chesskb-store}
NOTES="${STORE%/}.import-notes.txt"
: > "$NOTES"
# One import: its notes on the bundled files go to $NOTES; when it fails they are shown and the script stops.
run_import() {
  .venv/bin/chesskb --store "$STORE" import --skip-unchanged "$@" 2>> "$NOTES" || { cat "$NOTES" >&2; exit 1; }
}
# The demo's sources: real collections (data/README.md), not the parser test inputs of data/pgn-extract
# (only its historical odds games); the traps are imported as exercises of class Trap.
run_import data/lichess/puzzles.csv data/pychess/*.pgn data/seed/*.pgn data/games/*.pgn data/pgn-extract/odds.pgn \
  data/openings/*.pgn data/tags/*.pgn
run_import --theme Trap data/traps/*.pgn
# Games whose exercises only the engine can cut out: stockfish looks at every position (--mine), e.g. the
# mate in one Judit Polgar played with Black at Benidorm 2002 (data/README.md).
run_import --mine data/games/mined/*.pgn
if [ -s "$NOTES" ]; then
  echo "notes on the bundled files (expected, see README): $(wc -l < "$NOTES") in $NOTES"
fi
.venv/bin/chesskb --store "$STORE" course import --skip-unchanged data/courses/*.yaml
exec .venv/bin/chesskb --store "$STORE" serve --host "${HOST:-127.0.0.1}" --port "${PORT:-8080}"
