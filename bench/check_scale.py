"""HermiT consistency-checking time at 1k, 10k and 100k positions (issue 6).

For each size N a knowledge base of N distinct lichess positions is built from the real puzzle
rows (``bench/corpus.py csv``, imported with ``chesskb import``; the 100k one is made by copying
the 10k source graph ten times under distinct IRIs, because importing 100k rows alone takes about
five minutes). Printed per size, each timed once:

* HermiT's consistency test alone (``-k``: what ``check`` uses above ``--classify-limit`` and
  while narrowing an inconsistency down);
* owlready2's ``sync_reasoner`` (consistency, classification and realisation), up to 10k;
* the whole check of the source with default limits (reasoning + SHACL, no cache), up to 10k.

A size is skipped, with the reason printed, when the time predicted from the two smaller sizes
exceeds ``--budget`` seconds.

    python bench/check_scale.py --sizes 1000,10000,100000 --budget 180
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import corpus  # noqa: E402
from owlready2 import reasoning  # noqa: E402
from pyoxigraph import RdfFormat, parse, serialize  # noqa: E402

from chesskb.kb.checks.owl import ReasonerFailed, consistency_only, reasoner_copy, run_reasoner  # noqa: E402
from chesskb.kb.checks.runner import check_source  # noqa: E402
from chesskb.kb.mapping.iris import IriMinter  # noqa: E402
from chesskb.kb.store import open_store  # noqa: E402

WORK = Path("/tmp/chesskb-bench/check")


def build_store(n: int) -> Path:
    """A store of n puzzle positions (one source ``puzzles-n``), reused when it already exists."""
    store = WORK / f"store-{n}"
    if (store / "CURRENT").exists():
        return store
    WORK.mkdir(parents=True, exist_ok=True)
    rows = WORK / f"puzzles-{n}.csv"
    corpus.build("csv", n, rows)
    env = dict(os.environ, CHESSKB_ENGINE="none")
    subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", str(rows), "--jobs", "2"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return store


def source_triples(store: Path, n: int) -> list:
    graph = IriMinter().source_graph(f"puzzles-{n}")
    return [quad.triple for quad in open_store(str(store)).quads([graph])]


def replicate(triples: list, copies: int) -> list:
    """``copies`` disjoint copies of a KB: every individual IRI moved under ``…/id/rK/``."""
    base = IriMinter().base
    text = serialize(triples, format=RdfFormat.N_TRIPLES).decode("utf-8")
    out = []
    for k in range(copies):
        moved = text.replace(f"<{base}", f"<{base}r{k}/")
        out.extend(parse(moved.encode("utf-8"), format=RdfFormat.N_TRIPLES))
    return out


def measure(label: str, triples: list, *, full: bool, timeout: float) -> float | None:
    """Print the timings of one size; returns the consistency-only time (what scales furthest)."""
    data, _retyped = reasoner_copy(triples)
    started = time.monotonic()
    try:
        quick = consistency_only(data, timeout=timeout)
    except ReasonerFailed as exc:
        print(
            f"{label:>8}  statements {len(triples):>9,}  skipped: {exc} (the --budget; Java heap "
            f"{reasoning.JAVA_MEMORY} MB)",
            flush=True,
        )
        return None
    consistency = time.monotonic() - started
    line = f"{label:>8}  statements {len(triples):>9,}  HermiT -k {consistency:7.1f} s ({quick.consistent})"
    if full:
        started = time.monotonic()
        verdict = run_reasoner(data)
        line += (
            f"  sync_reasoner {time.monotonic() - started:7.1f} s ({verdict.consistent}, "
            f"{len(verdict.unsatisfiable_classes)} unsat.)"
        )
        started = time.monotonic()
        result = check_source(label, triples)
        line += (
            f"  check (default limits, +SHACL) {time.monotonic() - started:7.1f} s "
            f"[{result['mode']}, {len(result['shacl_violations'])} violations]"
        )
    print(line, flush=True)
    return consistency


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--budget", type=float, default=180.0, help="skip a size predicted to take longer (s)")
    parser.add_argument("--no-shacl", action="store_true", help="time the reasoner only")
    parser.add_argument("--java-memory", type=int, default=reasoning.JAVA_MEMORY, help="HermiT's -Xmx in MB")
    args = parser.parse_args(argv)
    reasoning.JAVA_MEMORY = args.java_memory
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"# HermiT via owlready2 {__import__('owlready2').VERSION}, java at {os.popen('which java').read().strip()}")
    timings: list[tuple[int, float]] = []
    ten_k: list | None = None
    for n in sizes:
        if len(timings) >= 2:
            (n1, t1), (n2, t2) = timings[-2:]
            growth = (t2 / t1) ** (1 / max(1e-9, math.log10(n2 / n1)))
            predicted = t2 * growth ** math.log10(n / n2)
            if predicted > args.budget:
                print(
                    f"{n:>8}  skipped: predicted {predicted:.0f} s from the {n1}->{n2} growth "
                    f"(x{t2 / t1:.1f}), over the {args.budget:.0f} s budget"
                )
                continue
        if n > 10_000 and n % 10_000 == 0:
            if ten_k is None:
                ten_k = source_triples(build_store(10_000), 10_000)
            triples = replicate(ten_k, n // 10_000)
        else:
            triples = source_triples(build_store(n), n)
        if n == 10_000:
            ten_k = triples
        hermit = measure(str(n), triples, full=not args.no_shacl and n <= 10_000, timeout=args.budget)
        if hermit is not None:
            timings.append((n, hermit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
