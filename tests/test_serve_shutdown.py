"""Stopping `chesskb serve` as users do: Ctrl-C in the terminal (SIGINT to the whole process group,
the query workers included) or a service manager's SIGTERM to the server alone. Either way the
server and every query worker end within seconds, and nothing but the server's own lines is
printed: no traceback from a worker interrupted in its read or left with a closed pipe.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.live_server import running, start_server, still_running


def _serving(store: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """`chesskb serve` in its own session, once it has answered a canned query; with its child processes."""
    process, base = start_server(store, new_session=True)
    urllib.request.urlopen(base + "/queries/players-rated-above?format=json", timeout=30).read()
    found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True, check=False)
    children = [int(pid) for pid in found.stdout.split()]
    assert children, "the query workers run as child processes"
    return process, children


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_stopping_the_server_prints_no_traceback_and_leaves_no_worker(small_store: Path, how: str) -> None:
    process, children = _serving(small_store)
    if how == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends to the foreground group
    else:
        process.terminate()  # what a service manager sends to the server's own process
    try:
        raw, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    output = raw.decode()
    assert not still_running(children), "a query worker outlived the server"
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    lines = output.splitlines()
    assert lines[0].startswith("query workers: network isolation ") and lines[1].startswith("serving "), output


RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


@pytest.mark.parametrize("how", ["sigterm", "sigkill"])
def test_no_worker_outlives_a_server_stopped_mid_query(small_store: Path, how: str) -> None:
    """Two runaways running, with a time limit far away: a SIGTERM'd server's busy workers, and a
    SIGKILL'd server's every worker (no handler runs at all: the kernel's parent-death signal), end
    within seconds of their server, not at the time limit or never."""
    process, base = start_server(small_store, "--query-timeout", "120", new_session=True)
    found = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True, check=False)
    children = [int(pid) for pid in found.stdout.split()]
    try:
        idle = {pid: _cpu_seconds(pid) for pid in children}
        url = base + "/sparql?query=" + urllib.parse.quote(RUNAWAY)
        for _ in range(2):
            threading.Thread(target=_ask_ignoring_errors, args=(url,), daemon=True).start()
        deadline = time.monotonic() + 30
        while len([pid for pid in children if _cpu_seconds(pid) > idle[pid] + 0.3]) < 2:
            assert time.monotonic() < deadline, "the runaway queries run in workers"
            time.sleep(0.2)
        if how == "sigterm":
            process.terminate()
        else:
            process.kill()
        process.communicate(timeout=30)
        assert not still_running(children, within=5), f"a query worker outlived the server ({how})"
    finally:  # whatever failed, leave nothing running
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for pid in children:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def _ask_ignoring_errors(url: str) -> None:
    with contextlib.suppress(OSError):
        urllib.request.urlopen(url, timeout=60).read()


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
