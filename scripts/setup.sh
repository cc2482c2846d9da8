#!/usr/bin/env bash
# Set up everything ChessPosition KB needs on a fresh Debian/Ubuntu machine: system packages
# (Java for the HermiT reasoner, Stockfish for mate verification, Chromium for the browser tests)
# and a virtual environment in .venv with the project and its test tools installed.
# Safe to run again: it installs only what is missing.
# `scripts/setup.sh --bench` also installs Debian's wrk, the load generator bench/service_load.py uses.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(default-jre-headless stockfish chromium)
missing=()
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ] || missing+=(stockfish)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=(chromium)
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
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test]"
echo "ready: .venv/bin/chesskb"
