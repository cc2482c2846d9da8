"""SERVICE cannot reach another host, by construction (issue 35 item 1), against a live ``chesskb serve``.

- A differential fuzz: queries with escaped quotes and backslashes (``'\\u0027'``, ``"\\u0022"``,
  ``'\\U00000027'``, ``'\\u005C'``) in strings around a SERVICE clause. pyoxigraph itself, run here
  with the network, is the oracle of which of them federate: each one that reaches a loopback
  listener must be flagged by the SERVICE filter and refused by the live server, and no request
  from the server may arrive.
- The workers' confinement holds without the filter: a worker given a SERVICE query directly, where
  the system refuses network namespaces (as Docker's default seccomp profile does), still reaches
  nothing (the socket filter alone).
- Where neither lock is allowed the server refuses to start and says why, unless ALLOW_UNISOLATED;
  the log says whether isolation is on.
"""

from __future__ import annotations

import os
import platform
import struct
import subprocess
import sys
import time
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chesskb.service.query_guard import federation_keyword
from tests.conftest import ROOT
from tests.live_server import free_port, http, start_server
from tests.test_endpoint_security import Listener

#: What the generator puts in strings around the SERVICE clause: the escape families the outside run
#: found, the grammar's own escapes, quotes and plain text.
PIECES = [
    "\\u0027",
    "\\u0022",
    "\\U00000027",
    "\\U00000022",
    "\\u005C",
    "\\u005c",
    "\\\\",
    "\\'",
    '\\"',
    "'",
    '"',
    "x",
    " ",
    "#",
    "\\u000A",
    "\\u000D",
]


@pytest.fixture(scope="module")
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.fixture(scope="module")
def server(small_store):
    process, base = start_server(small_store, "--query-timeout", "5")
    yield base, process
    process.terminate()
    process.wait(10)


def _reaches(query: str, listener: Listener) -> bool:
    """pyoxigraph's verdict: does running ``query`` here (with the network) send a request?"""
    from pyoxigraph import Store

    before = len(listener.hits)
    try:
        result = Store().query(query)
        if not isinstance(result, bool):
            list(result)
    except (SyntaxError, OSError, ValueError, RuntimeError):
        pass
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline and len(listener.hits) == before:
        time.sleep(0.02)
    return len(listener.hits) > before


def _query(before: str, after: str, quote_char: str, target: str) -> str:
    return (
        f"SELECT * WHERE {{ BIND({quote_char}{before}{quote_char} AS ?x) SERVICE <{target}> {{ ?s ?p ?o }} "
        f"BIND({quote_char}{after}{quote_char} AS ?z) }}"
    )


_text = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(before=_text, after=_text, quote_char=st.sampled_from(["'", '"']))
def test_differential_fuzz_against_pyoxigraphs_parser(server, listener, before, after, quote_char):
    base, _ = server
    query = _query(before, after, quote_char, listener.url)
    if _reaches(query, listener):
        assert federation_keyword(query), query
    listener.hits.clear()
    status, _, body = http("GET", base + "/sparql?query=" + quote(query))
    if federation_keyword(query):
        assert status == 403, (query, status, body[:200])
    time.sleep(0.05)
    assert listener.hits == [], query


def test_the_reported_bypasses_federate_and_are_refused(server, listener):
    """The four families of the report: pyoxigraph sends their request; the live server refuses them."""
    base, _ = server
    queries = [
        _query(escape, "y", q, listener.url)
        for escape, q in (("\\u0027", "'"), ("\\u0022", '"'), ("\\U00000027", "'"), ("\\u005C", "'"))
    ]
    for query in queries:
        assert _reaches(query, listener), query  # the attack is real
    listener.hits.clear()
    for query in queries:
        status, _, body = http("GET", base + "/sparql?query=" + quote(query))
        assert status == 403 and b"ALLOW_SERVICE" in body, (query, status, body[:200])
    time.sleep(0.3)
    assert listener.hits == []


# --- the confinement alone ----------------------------------------------------------------------

#: x86_64 system call numbers: unshare, seccomp, prctl; prctl's PR_SET_SECCOMP.
_REFUSED = {"x86_64": (272, 317, 157)}
_PR_SET_SECCOMP = 22


def _refusing_filter(refuse_seccomp: bool) -> bytes:
    """A seccomp program that makes ``unshare`` fail with EPERM (Docker's default profile does) and,
    with ``refuse_seccomp``, installing a seccomp filter too: what a locked-down system allows."""
    unshare, seccomp, prctl = _REFUSED[platform.machine()]
    deny, allow = 0x00050000 | 1, 0x7FFF0000
    program = [
        (0x20, 0, 0, 0),  # load the system call's number
        (0x15, 0, 1, unshare),
        (0x06, 0, 0, deny),
    ]
    if refuse_seccomp:
        program += [
            (0x15, 0, 1, seccomp),
            (0x06, 0, 0, deny),
            (0x15, 0, 2, prctl),
            (0x20, 0, 0, 16),
            (0x15, 1, 0, _PR_SET_SECCOMP),
        ]
    program += [(0x06, 0, 0, allow), (0x06, 0, 0, deny)]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def _locked_down(refuse_seccomp: bool) -> list[str]:
    """A command prefix that runs Python under the refusing filter (inherited by every child)."""
    code = _refusing_filter(refuse_seccomp)
    prelude = (
        "import ctypes, os, sys\n"
        f"code = {code!r}\n"
        "buf = ctypes.create_string_buffer(code, len(code))\n"
        "class P(ctypes.Structure):\n"
        "    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]\n"
        "p = P(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "assert libc.prctl(38, 1, 0, 0, 0) == 0\n"
        "assert libc.prctl(22, 2, ctypes.byref(p), 0, 0) == 0\n"
        "os.execv(sys.executable, [sys.executable] + sys.argv[1:])\n"
    )
    return [sys.executable, "-c", prelude]


needs_x86_64 = pytest.mark.skipif(platform.machine() not in _REFUSED, reason="the refusing filter is for x86_64")


@needs_x86_64
def test_a_worker_reaches_no_host_with_the_socket_filter_alone(small_store, listener):
    """No network namespace (refused, as in Docker), no SERVICE filter (the pool is asked directly):
    the worker still sends nothing, and says which lock holds."""
    code = (
        "from chesskb.service.query_runner import PoolSettings, WorkerPool, Limits, make_request\n"
        f"pool = WorkerPool({str(small_store)!r}, PoolSettings(size=1, queue_limit=1, queue_wait=5))\n"
        "print('isolation', pool.isolation().describe())\n"
        f"request = make_request('SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}', None,\n"
        "                        'application/sparql-results+json', 'text/turtle', Limits(10, 1 << 20))\n"
        "try:\n"
        "    pool.run(request)\n"
        "    print('answered')\n"
        "except Exception as exc:\n"
        "    print('refused', exc)\n"
        "pool.close()\n"
    )
    result = subprocess.run([*_locked_down(False), "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "isolation socket filter" in result.stdout, result.stdout + result.stderr
    assert "refused" in result.stdout, result.stdout + result.stderr
    time.sleep(0.3)
    assert listener.hits == []


@needs_x86_64
def test_the_server_refuses_to_start_without_isolation_and_says_why(small_store):
    command = [*_locked_down(True), "-m", "chesskb", "--store", str(small_store), "serve", "--port", str(free_port())]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "query workers: network isolation off" in result.stderr
    assert "refusing to serve" in result.stderr and "ALLOW_UNISOLATED" in result.stderr


@needs_x86_64
def test_allow_unisolated_serves_with_a_warning(small_store, tmp_path):
    port = free_port()
    log = tmp_path / "log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *_locked_down(True),
                "-m",
                "chesskb",
                "--store",
                str(small_store),
                "serve",
                "--port",
                str(port),
                "--allow-unisolated",
            ],
            stdout=out,
            stderr=out,
            cwd=ROOT,
            env={**os.environ},
        )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if http("GET", base + "/sparql?query=ASK%7B%7D", timeout=5)[0] == 200:
                    break
            except OSError:
                time.sleep(0.2)
        assert http("GET", base + "/sparql?query=ASK%7B%7D")[0] == 200
    finally:
        process.terminate()
        process.wait(10)
    text = log.read_text()
    assert "network isolation off" in text and "warning: query workers keep the network" in text, text


def test_the_log_says_isolation_is_on(server):
    _, process = server
    line = process.stdout.readline().decode()
    assert line.startswith("query workers: network isolation "), line
    assert "off" not in line, line
