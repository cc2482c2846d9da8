#!/usr/bin/env bash
# Set up (scripts/setup.sh) and run the whole test suite, in CHESSKB_TEST_WORKERS processes at once
# (pytest-xdist; default 2: most tests wait on servers, browsers and the engine, so two processes
# halve the wall time on a 2-core machine; 0 runs it in this process alone).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
workers=${CHESSKB_TEST_WORKERS:-2}
if [ "$workers" = "0" ]; then
  exec .venv/bin/python -m pytest "$@"
fi
exec .venv/bin/python -m pytest -n "$workers" "$@"
