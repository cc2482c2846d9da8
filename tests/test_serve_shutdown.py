"""Stopping `chesskb serve` as users do: Ctrl-C in the terminal (SIGINT to the whole process group,
the query workers included) or a service manager's SIGTERM to the server alone. Either way the
server and every query worker end within seconds, and nothing but the server's own lines is
printed: no traceback from a worker interrupted in its read or left with a closed pipe.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.live_server import free_port


def _serving(store: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """`chesskb serve` in its own session, once it has answered a canned query; with its child processes."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "chesskb", "--store", str(store), "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            url = f"http://127.0.0.1:{port}/queries/players-rated-above?format=json"
            urllib.request.urlopen(url, timeout=10).read()
            break
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail("the server did not start: " + (process.stdout.read() if process.stdout else ""))
            time.sleep(0.2)
    found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True, check=False)
    children = [int(pid) for pid in found.stdout.split()]
    assert children, "the query workers run as child processes"
    return process, children


def _gone(pids: list[int], within: float = 10) -> list[int]:
    deadline = time.monotonic() + within
    while (alive := [pid for pid in pids if Path(f"/proc/{pid}").exists()
                     and "zombie" not in Path(f"/proc/{pid}/status").read_text(errors="replace")]) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_stopping_the_server_prints_no_traceback_and_leaves_no_worker(small_store: Path, how: str) -> None:
    process, children = _serving(small_store)
    if how == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends to the foreground group
    else:
        process.terminate()  # what a service manager sends to the server's own process
    try:
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert not _gone(children), "a query worker outlived the server"
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    assert output.startswith("serving "), output
