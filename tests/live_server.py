"""``chesskb serve`` in a subprocess on a free loopback port, as users start it (waitress, worker
processes), for tests that must talk real HTTP: raw sockets, several client addresses, big bodies;
and ``serve``, the app in the test's own process, for the browser tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT


def serve(store_path: Path) -> tuple[str, object]:
    """The app in this process on a real HTTP server (werkzeug, threaded) on a free port; returns (base
    URL, server). For browser tests that read the test's own store; ``live_server`` runs ``chesskb serve``."""
    import logging

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    app = create_app({"STORE": str(store_path)}, store=open_store(str(store_path)))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    store: Path, *options: str, env: dict[str, str] | None = None, new_session: bool = False, code: Path = ROOT
) -> tuple[subprocess.Popen[bytes], str]:
    """``chesskb serve`` started and answering; returns the process (its output piped) and the base URL.
    ``new_session`` gives it its own process group, to signal it and its workers as a terminal does;
    ``code`` is the checkout it runs (a benchmark compares another one)."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chesskb",
            "--store",
            str(store),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *options,
        ],
        cwd=code,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
        start_new_session=new_session,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/sparql?query=ASK%7B%7D", timeout=10).read()
            return process, base
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("server did not start: " + process.stdout.read().decode()) from None
            time.sleep(0.2)


@contextmanager
def live_server(store: Path, *options: str, env: dict[str, str] | None = None, code: Path = ROOT) -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) of a running server; stop it afterwards."""
    process, base = start_server(store, *options, env=env, code=code)
    try:
        yield base
    finally:
        stop(process)


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie has ended: it only waits to be reaped)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text(errors="replace")
    except FileNotFoundError:  # reaped
        return False


def still_running(pids: list[int], within: float = 10) -> list[int]:
    """The processes of ``pids`` still running after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (alive := [pid for pid in pids if running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive


def stop(process: subprocess.Popen, wait: float = 10) -> None:
    """Terminate ``process``; kill it if it has not ended within ``wait`` seconds."""
    process.terminate()
    try:
        process.wait(wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def oxigraph_binary() -> str:
    """The ``oxigraph`` server from PyPI (the test extra installs it into the venv)."""
    import shutil

    import pytest

    found = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    if not Path(found).exists():
        pytest.fail("the oxigraph server binary is missing: scripts/setup.sh installs the 'oxigraph' package")
    return found


@contextmanager
def oxigraph_server(location: Path, *, read_only: bool = False) -> Iterator[str]:
    """Yield the base URL of an ``oxigraph serve`` (or ``serve-read-only``) on ``location``; stop it after."""
    port = free_port()
    process = subprocess.Popen(
        [
            oxigraph_binary(),
            "serve-read-only" if read_only else "serve",
            "--location",
            str(location),
            "--bind",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/query?query=ASK%7B%7D", timeout=1).read()
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("oxigraph exited: " + process.stderr.read().decode()[:500]) from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


VIRTUOSO_INI = """[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
DirsAllowed = ., {dir}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty_buffers}
CaseMode = 2
[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = /var/lib/virtuoso-opensource-7/vsp
ServerThreads = 4
[SPARQL]
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = 120
"""


@dataclass(frozen=True)
class Virtuoso:
    """A running Virtuoso: its SPARQL endpoint, its SQL port (for ``isql-vt``) and its folder."""

    sparql: str
    sql_port: int
    folder: Path


@contextmanager
def virtuoso_server(folder: Path, buffers: int = 20_000) -> Iterator[Virtuoso]:
    """Debian's Virtuoso (``virtuoso-opensource``) on free loopback ports with its database in
    ``folder``, SPARQL updates granted to the endpoint's anonymous user; stopped after.

    ``buffers`` is its page cache in 8 KB pages (``NumberOfBuffers``): the tests' small stores need
    little; a benchmark of millions of quads gives it what Virtuoso's own guide gives a server
    (about two thirds of the memory it may use), or every load and query reads from disk."""
    import shutil

    import pytest

    if shutil.which("virtuoso-t") is None or shutil.which("isql-vt") is None:
        pytest.fail("Virtuoso is missing: scripts/setup.sh installs Debian's virtuoso-opensource")
    folder.mkdir(parents=True, exist_ok=True)
    sql_port, http_port = free_port(), free_port()
    (folder / "virtuoso.ini").write_text(
        VIRTUOSO_INI.format(
            dir=folder, sql_port=sql_port, http_port=http_port, buffers=buffers, dirty_buffers=buffers * 3 // 4
        )
    )
    process = subprocess.Popen(
        ["virtuoso-t", "+foreground", "+configfile", str(folder / "virtuoso.ini")],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    sparql = f"http://127.0.0.1:{http_port}/sparql"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(sparql + "?query=ASK%7B%7D", timeout=5).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log = (folder / "virtuoso.log").read_text(errors="replace")[-800:]
                    raise RuntimeError("virtuoso did not start: " + log) from None
                time.sleep(0.2)
        subprocess.run(
            ["isql-vt", f"127.0.0.1:{sql_port}", "dba", "dba", 'exec=GRANT SPARQL_UPDATE TO "SPARQL";'],
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield Virtuoso(sparql, sql_port, folder)
    finally:
        stop(process, wait=60)  # Virtuoso checkpoints as it stops


def http(
    method: str,
    url: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    source: str | None = None,
    timeout: float = 30,
) -> tuple[int, dict[str, str], bytes]:
    """One request with http.client (any method, any header, from a chosen loopback address)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        path = parts.path + ("?" + parts.query if parts.query else "")
        connection.request(method, path or "/", body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()
