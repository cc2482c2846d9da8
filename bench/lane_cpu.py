"""Where a test lane's CPU goes: an opt-in pytest plugin that records it, and a report of what it recorded.

Wall time on a shared machine says little; CPU seconds (user + system of a process and of the children it
has waited for, ``getrusage``) say what a fixture or a test costs. Record, then read::

    LANE_CPU_DIR=/tmp/lane-cpu PYTHONPATH=bench nice -n 19 .venv/bin/python -m pytest -p lane_cpu \\
        -m "not browser and not java and not slow" -n auto
    python bench/lane_cpu.py /tmp/lane-cpu

Each process (the controller, each xdist worker) appends one JSON line per fixture set-up and per test phase
to its own file in ``LANE_CPU_DIR``. A child is counted when it is waited for: an import's pool workers and
their engines when the import ends, a query worker when its pool is closed (a pool nobody closes is counted
in no test, only in ``/usr/bin/time`` around the whole run). Fixture set-ups nest: a fixture's figure
includes the fixtures it requested, so the fixture table does not add up to the set-up phase.
"""

from __future__ import annotations

import collections
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

DIR_ENV = "LANE_CPU_DIR"


def _now() -> tuple[float, float, float]:
    """CPU seconds of this process, of its waited children, and a monotonic clock."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime, time.monotonic()


class _Recorder:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.handle = open(directory / f"{worker}-{os.getpid()}.jsonl", "a", encoding="utf-8")  # noqa: SIM115

    def write(self, kind: str, name: str, before: tuple[float, float, float], **extra: Any) -> None:
        after = _now()
        row = {
            "kind": kind,
            "name": name,
            "self": after[0] - before[0],
            "children": after[1] - before[1],
            "wall": after[2] - before[2],
            **extra,
        }
        self.handle.write(json.dumps(row) + "\n")
        self.handle.flush()


_RECORDER: _Recorder | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _RECORDER
    directory = os.environ.get(DIR_ENV)
    if directory:
        _RECORDER = _Recorder(Path(directory))


def _phase(kind: str, item: pytest.Item) -> Iterator[None]:
    before = _now()
    yield
    if _RECORDER is not None:
        _RECORDER.write(kind, item.nodeid, before)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _phase("setup", item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _phase("call", item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _phase("teardown", item)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest) -> Iterator[None]:
    before = _now()
    yield
    if _RECORDER is not None:
        _RECORDER.write("fixture", fixturedef.argname, before, scope=fixturedef.scope)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    before = _now()
    yield
    if _RECORDER is not None:
        _RECORDER.write("collection", "collection", before)


def report(directory: Path, top: int = 30) -> None:
    """Print CPU seconds by phase, by test file, by fixture and the costliest test bodies."""
    rows = [json.loads(line) for path in sorted(directory.glob("*.jsonl")) for line in path.open(encoding="utf-8")]

    def cpu(row: dict[str, Any]) -> float:
        return row["self"] + row["children"]

    phases: collections.Counter[str] = collections.Counter()
    files: collections.Counter[str] = collections.Counter()
    fixtures: collections.Counter[str] = collections.Counter()
    counts: collections.Counter[str] = collections.Counter()
    for row in rows:
        phases[row["kind"]] += cpu(row)
        if row["kind"] in ("setup", "call", "teardown"):
            files[row["name"].split("::")[0]] += cpu(row)
        elif row["kind"] == "fixture":
            key = f"{row['name']} ({row['scope']})"
            fixtures[key] += cpu(row)
            counts[key] += 1
    print("CPU seconds by phase (fixtures nest inside set-up):")
    for kind, seconds in phases.most_common():
        print(f"{seconds:9.1f}  {kind}")
    print(f"\nthe {top} costliest test files (set-up, body, teardown):")
    for name, seconds in files.most_common(top):
        print(f"{seconds:9.1f}  {name}")
    print(f"\nthe {top} costliest fixtures (CPU-s, set-ups):")
    for name, seconds in fixtures.most_common(top):
        print(f"{seconds:9.1f}  {counts[name]:5d}  {name}")
    print(f"\nthe {top} costliest test bodies:")
    for row in sorted((r for r in rows if r["kind"] == "call"), key=cpu, reverse=True)[:top]:
        print(f"{cpu(row):9.1f}  {row['name']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: python {sys.argv[0]} DIR   (the {DIR_ENV} of a recorded run)")
    report(Path(sys.argv[1]))
