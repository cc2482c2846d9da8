#!/usr/bin/env bash
# Set up everything ChessPosition KB needs on a fresh Debian/Ubuntu machine: system packages
# (Java for the HermiT reasoner, Stockfish for mate verification, Chromium for the browser tests,
# Virtuoso for the tests of that SPARQL server)
# and a virtual environment in .venv with the project and its test tools installed.
# Safe to run again: it installs only what is missing.
# `scripts/setup.sh --bench` also installs Debian's wrk, the load generator bench/service_load.py uses.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(default-jre-headless stockfish chromium virtuoso-opensource)
missing=()
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ] || missing+=(stockfish)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v virtuoso-t >/dev/null 2>&1 || missing+=(virtuoso-opensource)
if [ "${1:-}" = "--bench" ]; then
  SYSTEM_PACKAGES+=(wrk)
  command -v wrk >/dev/null 2>&1 || missing+=(wrk)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "installing system packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "warning: cannot install ${missing[*]} (no apt-get); install them by hand (${SYSTEM_PACKAGES[*]})" >&2
  fi
fi

PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# The install is editable, so code changes need no reinstall; only a change of what is installed
# (pyproject.toml, this script) does. The stamp records what the last successful install was made from.
STAMP=.venv/.chesskb-setup
wanted=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ] || ! .venv/bin/python -c "import chesskb.service.cli" 2>/dev/null; then
  # pip notes this machine's unused local package folders ("Location ... is ignored"): not ours to show
  .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location '" >&2 || true
  .venv/bin/python -m pip install -q -e ".[test]" 2>&1 | grep -v "^WARNING: Location '" >&2 || true
  .venv/bin/python -c "import chesskb.service.cli" || { echo "setup failed: chesskb does not import" >&2; exit 1; }
  echo "$wanted" > "$STAMP"
fi
# Comunica (a JavaScript SPARQL client that federates endpoints), for the protocol tests: version 4
# runs on the Node.js 20 Debian and this machine ship (5.x wants Node 22).
COMUNICA=.venv/comunica/node_modules/.bin/comunica-sparql
if [ ! -x "$COMUNICA" ] && command -v npm >/dev/null 2>&1; then
  npm install --silent --no-audit --no-fund --prefix .venv/comunica "@comunica/query-sparql@4" >/dev/null 2>&1 \
    || echo "warning: could not install Comunica (npm); its protocol test will be skipped" >&2
fi
echo "ready: .venv/bin/chesskb"
