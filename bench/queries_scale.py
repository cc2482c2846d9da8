"""Canned queries at scale: the embedded Oxigraph store at 10k/100k/1M positions, and rdflib as reference.

For each size a store is built once with ``chesskb import --jobs 2`` from the replicated lichess CSV
(``bench/corpus.py``) plus every collection of ``data/`` (so the questions about players, events and
tags have answers), and kept under ``--work`` for the next run. Every canned query then runs with its
default parameters (one warm-up, ``--repeat`` timed runs: ``chesskb bench-queries``'s code).

The reference: the same queries, same parameters, on rdflib's in-memory ``Dataset`` (default graph =
union of the named graphs, as in our store) loaded from the N-Quads export of the ``--rdflib-size``
store — the largest rdflib holds in reasonable time here; a query that runs past ``--rdflib-timeout``
is reported as such (rdflib cannot be interrupted, so it runs in a child process).

    python bench/queries_scale.py --sizes 10000,100000 --rdflib-size 10000
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import corpus

from chesskb.kb.store import open_store
from chesskb.kb.vocab import PREFIXES
from chesskb.service.commands.bench_queries import bench_queries, percentile

ROOT = Path(__file__).resolve().parent.parent


def data_files() -> list[str]:
    return sorted(str(p) for p in (ROOT / "data").rglob("*") if p.suffix in (".pgn", ".csv") and "tools" not in p.parts)


def build_store(size: int, work: Path) -> Path:
    """A store of ``size`` replicated puzzles plus data/, built once and reused. Reused only when both
    imports finished (``store-N.complete`` is written after the second): a store whose data/ import
    failed answers the player and event queries with no rows."""
    store = work / f"store-{size}"
    complete = work / f"store-{size}.complete"
    if complete.exists() and (store / "CURRENT").exists():
        return store
    shutil.rmtree(store, ignore_errors=True)
    csv_path = corpus.build("csv", size, work / f"csv-{size}.csv")
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "chesskb",
            "--store",
            str(store),
            "import",
            "--jobs",
            "2",
            "--source",
            "bench-puzzles",
            str(csv_path),
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", *data_files()],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    complete.touch()
    print(f"# built {store} in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return store


def _rdflib_worker(nquads: str, repeat: int, timeout: float, connection, skip: frozenset = frozenset()) -> None:
    """Load the export into rdflib and time each canned query; send rows back one by one."""
    import rdflib

    from chesskb.kb.store.bindings import with_values
    from chesskb.queries import list_queries

    start = time.perf_counter()
    dataset = rdflib.Dataset(default_union=True)
    dataset.parse(nquads, format="nquads")
    connection.send(("loaded", round(time.perf_counter() - start, 1), len(dataset), 0))
    prologue = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())
    for canned in list_queries():
        if canned.name in skip or any(param.default is None for param in canned.params):
            continue  # as bench-queries: a query whose parameter has no default is not timed
        connection.send(("start", canned.name, 0, 0))
        # The same text the store runs: parameters written into every group as VALUES blocks
        # (kb.store.bindings); rdflib's initBindings would leave them unbound inside UNION branches.
        text = prologue + with_values(canned.paged_text({}), canned.bind({}))
        bindings: dict = {}
        answer = _timed_in_child(
            functools.partial(_time_rdflib, dataset, text, bindings, repeat, timeout), timeout * (repeat + 1)
        )
        if answer is None:
            connection.send((canned.name, None, None, None))
        else:
            samples, rows = answer
            timed = samples[1:] or samples
            connection.send((canned.name, round(statistics.median(timed), 1), round(percentile(timed, 0.95), 1), rows))
    connection.send(("done", 0, 0, 0))


def _time_rdflib(dataset, text: str, bindings: dict, repeat: int, timeout: float) -> tuple[list[float], int]:
    samples, rows = [], 0
    for _ in range(repeat + 1):
        begin = time.perf_counter()
        rows = len(list(dataset.query(text, initBindings=bindings)))
        samples.append((time.perf_counter() - begin) * 1000)
        if samples[-1] > timeout * 1000:
            break
    return samples, rows


def _timed_in_child(run, limit: float):
    """``run()`` in a forked child, which shares the loaded rdflib store copy-on-write: a query rdflib
    cannot finish is killed with its child, and the next query needs no reload."""
    import json
    import os
    import select

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        try:
            payload = json.dumps(run()).encode()
        except Exception as exc:
            payload = json.dumps({"error": str(exc)}).encode()
        os.write(write_end, payload)
        os._exit(0)
    os.close(write_end)
    ready, _, _ = select.select([read_end], [], [], limit)
    data = b""
    if ready:
        while chunk := os.read(read_end, 65536):
            data += chunk
    else:
        os.kill(pid, 9)
    os.close(read_end)
    os.waitpid(pid, 0)
    answer = json.loads(data) if data else None
    return None if answer is None or isinstance(answer, dict) else answer


def rdflib_timings(store: Path, repeat: int, timeout: float) -> tuple[dict, str]:
    """Per-query rdflib timings keyed by name (``None`` = did not finish within ``timeout``)."""
    with tempfile.NamedTemporaryFile(suffix=".nq", delete=False) as handle:
        nquads = handle.name
    subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "export", "--format", "nq", "-o", nquads],
        cwd=ROOT,
        check=True,
    )
    results: dict[str, tuple | None] = {}
    note = ""
    done: set[str] = set()
    finished = False
    while not finished:  # a query past the timeout kills the worker; a new one goes on after it
        parent, child = multiprocessing.Pipe()
        process = multiprocessing.Process(target=_rdflib_worker, args=(nquads, repeat, timeout, child, frozenset(done)))
        process.start()
        current = None
        wait = 1200.0  # loading millions of quads into rdflib takes minutes
        while parent.poll(wait):
            name, median, p95, rows = parent.recv()
            if name == "done":
                finished = True
                break
            if name == "loaded":
                note = f"rdflib load {median} s, {p95} quads"
                print(f"# {note}", file=sys.stderr, flush=True)
            elif name == "start":
                current = median
                wait = timeout * (repeat + 1) + 5
            else:
                results[name] = None if median is None else (median, p95, rows)
                done.add(name)
                current = None
        else:
            if current is None:
                finished = True  # stuck while loading: give up
            else:
                results[current] = None
                done.add(current)
                print(f"# rdflib: {current} did not finish in {timeout:.0f} s", file=sys.stderr, flush=True)
        process.kill()
        process.join()
    Path(nquads).unlink(missing_ok=True)
    return results, note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rdflib-size", type=int, default=10000, help="0 = skip the rdflib reference")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rdflib-timeout", type=float, default=30.0, help="seconds per rdflib query")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "chesskb-bench")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)

    sizes = [int(s) for s in args.sizes.split(",")]
    table: dict[str, dict[str, object]] = {}
    for size in sizes:
        store = open_store(str(build_store(size, args.work)))
        for t in bench_queries(store, args.repeat):
            table.setdefault(t.name, {})[f"oxigraph {size}"] = (t.median_ms, t.p95_ms, t.rows)
        store.close()
    note = ""
    if args.rdflib_size:
        results, note = rdflib_timings(build_store(args.rdflib_size, args.work), args.repeat, args.rdflib_timeout)
        for name, row in table.items():
            row[f"rdflib {args.rdflib_size}"] = results.get(name)
    if args.json:
        print(json.dumps({"note": note, "queries": table}, indent=1))
        return 0
    columns = [f"oxigraph {s}" for s in sizes] + ([f"rdflib {args.rdflib_size}"] if args.rdflib_size else [])
    print("median ms / p95 ms (rows) per canned query; " + note)
    print(f"{'query':<34}" + "".join(f"{c:>26}" for c in columns))
    for name, row in sorted(table.items()):
        cells = []
        for column in columns:
            value = row.get(column)
            cells.append("timeout/not run" if value is None else f"{value[0]:.1f}/{value[1]:.1f} ({value[2]})")
        print(f"{name:<34}" + "".join(f"{c:>26}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
