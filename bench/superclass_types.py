"""Stored superclass types against query time (issue 36, item 3): what they cost, what dropping them would cost.

The mapping states a position's asserted classes in its source's graph and every superclass they imply
(``cp:Position``, ``cp:MiddlegameTheme`` …) in the source's ``/inferred`` graph (``kb.mapping.game._types_of``);
the layout keeps each type once more in the merge (``kb.store.layout``: types are a source's markers). This
script measures both sides of dropping the implied ones, on a copy of an imported store:

1. statements: the implied types (``rdf:type`` quads of the ``/inferred`` graphs, and the merge's triples no
   asserted graph holds) per position and per game, against all statements;
2. bytes: the live generation copied twice, the implied types deleted from one copy by a SPARQL update, both
   compacted (``Store.optimize``), their files summed;
3. query time: every question whose answer rests on a superclass type (a class filter on ``cp:Position``, a
   theme class that can be a superclass, the class pages, the counts), as the app asks it (``prepare``, its page
   size), on the full copy as it stands and on the stripped copy rewritten with ``rdf:type/rdfs:subClassOf*``
   (standard SPARQL: any server runs it, the ontology's subclass axioms are in the merge). Median wall and CPU
   milliseconds of ``--runs`` runs after a warm-up, every row read; the answers (all rows, not only a page) of
   the two must be equal, and the script says when they are not;
4. with ``--server``: the same two through ``oxigraph serve-read-only`` on each copy over HTTP (what a remote
   store runs: plain SPARQL, none of our code).

    python bench/superclass_types.py /tmp/super36/full-store --work /tmp/super36/work --server
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyoxigraph import QueryBoolean, QuerySolutions
from pyoxigraph import Store as OxStore

from chesskb.kb.store.board_file import FILES
from chesskb.kb.store.generations import live_generation
from chesskb.kb.vocab import CP, PREFIXES
from chesskb.queries.class_counts import COUNTED_CLASSES
from chesskb.queries.executor import prepare

PATH = "rdf:type/rdfs:subClassOf*"

#: The implied types: every ``rdf:type`` quad of a source's inferred graph (the mapping puts nothing else
#: typed there), then the merge's types no named graph holds any more (the layout keeps each type in its
#: graph, so before the first update there are none: ``orphan_types`` checks).
STRIP_INFERRED = """
DELETE { GRAPH ?g { ?s rdf:type ?c } } WHERE { GRAPH ?g { ?s rdf:type ?c } FILTER(STRENDS(STR(?g), "/inferred")) }
"""
STRIP_MERGE = "DELETE { ?s rdf:type ?c } WHERE { ?s rdf:type ?c FILTER NOT EXISTS { GRAPH ?h { ?s rdf:type ?c } } }"


@dataclass
class Case:
    """One question as the app asks it, and its rewrite for a store without implied types."""

    label: str
    name: str
    params: dict[str, str] = field(default_factory=dict)
    public: bool = False
    #: (old, new) text replacements, each of which must apply (a changed query fails the script loudly)
    rewrites: tuple[tuple[str, str], ...] = ()
    #: the classes whose rows the answers are compared on (None: every row): the recount keeps only
    #: ``COUNTED_CLASSES``, and the path also counts members of ``owl:Class``'s superclasses, which it drops
    compared: frozenset[str] | None = None
    #: compare every row (False: the page only, for a query sorted on a total order whose every row costs seconds)
    check_all: bool = True


POSITION_FILTER = (("FILTER EXISTS { ?position a cp:Position }", f"FILTER EXISTS {{ ?position {PATH} cp:Position }}"),)
BY_TACTIC = (("?position a ?tactic ;", f"?position {PATH} ?tactic ;"),)
BY_DIFFICULTY = (
    ("{ SELECT ?position ?difficulty ?tactic WHERE {", "{ SELECT DISTINCT ?position ?difficulty ?tactic WHERE {"),
    ("?position a ?tactic .", f"?position {PATH} ?tactic ."),
)
#: The path finds a member once per asserted subclass: DISTINCT keeps one row per member, as before
MEMBERS = (
    ("SELECT ?class ?p WHERE {", "SELECT DISTINCT ?class ?p WHERE {"),
    (" ?p a ?class }", f" ?p {PATH} ?class }}"),
)


def cases() -> list[Case]:
    """Every canned and internal question whose answer rests on a stored superclass type (queries/*.rq)."""
    out = []
    for tactic in ("DoubleAttack", "MiddlegameTheme", "EndgameTheme", "Position"):
        out.append(Case(f"positions-by-tactic {tactic}", "positions-by-tactic", {"tactic": tactic}, True, BY_TACTIC))
    for tactic in ("DoubleAttack", "EndgameTheme"):
        out.append(
            Case(
                f"positions-by-theme-and-phase {tactic} endgame",
                "positions-by-theme-and-phase",
                {"tactic": tactic, "phase": "endgame"},
                True,
                BY_TACTIC,
            )
        )
    for tactic in ("DoubleAttack", "MiddlegameTheme", "Position"):
        out.append(
            Case(
                f"exercises-by-difficulty {tactic}",
                "exercises-by-difficulty",
                {"tactic": tactic},
                True,
                BY_DIFFICULTY,
            )
        )
    for name in (
        "players-rated-above",
        "positions-in-country",
        "positions-of-event",
        "positions-of-player",
        "positions-of-player-as-black",
        "positions-with-program",
    ):
        out.append(Case(name, name, {}, True, POSITION_FILTER))
    for klass in ("DoubleAttack", "MiddlegameTheme", "Position"):
        out.append(
            Case(
                f"class page {klass} (class-members, page 1 of 24)",
                "class-members",
                {"class": klass, "limit": "24"},
                rewrites=MEMBERS,
            )
        )
        out.append(
            Case(
                f"class page {klass} (class-members, offset 20,000)",
                "class-members",
                {"class": klass, "limit": "24", "offset": "20000"},
                rewrites=MEMBERS,
            )
        )
    out.append(
        Case(
            "next exercise Position (class-member-page, offset 1,000)",
            "class-member-page",
            {"class": "Position", "limit": "1", "offset": "1000"},
            rewrites=MEMBERS,
        )
    )
    out.append(
        Case(
            "course-selection MiddlegameTheme (course chapter, 20)",
            "course-selection",
            {"theme": ["MiddlegameTheme"], "limit": "20"},
            rewrites=(("?position a ?theme .", f"?position {PATH} ?theme ."),),
            check_all=False,
        )
    )
    out.append(
        Case(
            "has-positions (find)",
            "has-positions",
            rewrites=(("?position a cp:Position", f"?position {PATH} cp:Position"),),
        )
    )
    out.append(
        Case(
            "position-class-counts (chesskb stats)",
            "position-class-counts",
            rewrites=(("?position a cp:Position .", f"?position {PATH} cp:Position ."),),
        )
    )
    out.append(
        Case(
            "member-counts (every write's recount)",
            "member-counts",
            compared=frozenset(CP.term(name).value for name in COUNTED_CLASSES),
            rewrites=(
                (
                    "(COUNT(?member) AS ?n) WHERE { ?member a ?class }",
                    f"(COUNT(DISTINCT ?member) AS ?n) WHERE {{ ?member {PATH} ?class }}",
                ),
            ),
        )
    )
    out.append(
        Case(
            "open-mate-claims (merge report)",
            "open-mate-claims",
            rewrites=(
                (
                    "GRAPH ?marking { ?p a cp:Position }",
                    "GRAPH ?marking { ?p a ?marker } ?marker rdfs:subClassOf* cp:Position",
                ),
            ),
        )
    )
    return out


# --- the store copies ----------------------------------------------------------------------------


def generation_of(store: Path) -> Path:
    live = live_generation(store)
    if live is None:
        raise SystemExit(f"{store}: no live generation (import something first)")
    return store / live


def count(store: OxStore, where: str) -> int:
    """COUNT(*) of a pattern (the merge unless the pattern says GRAPH)."""
    return int(next(iter(store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}", prefixes=PREFIXES)))["n"].value)


def statement_counts(store: OxStore) -> dict[str, int]:
    inferred = 'GRAPH ?g { ?s rdf:type ?c } FILTER(STRENDS(STR(?g), "/inferred"))'
    implied_merge = (
        '?s rdf:type ?c FILTER NOT EXISTS { GRAPH ?h { ?s rdf:type ?c } FILTER(!STRENDS(STR(?h), "/inferred")) }'
    )
    return {
        "positions": count(store, "{ SELECT DISTINCT ?p WHERE { ?p cp:fen ?f } }"),
        "games": count(store, "{ SELECT DISTINCT ?m WHERE { ?m cp:gameKey ?k } }"),
        "lichess games": count(store, "{ SELECT DISTINCT ?m WHERE { ?m cp:gameUrl ?u } }"),
        "merge": count(store, "?s ?p ?o"),
        "named graphs": count(store, "GRAPH ?g { ?s ?p ?o }"),
        "types in the merge": count(store, "?s rdf:type ?c"),
        "implied types, inferred graphs": count(store, inferred),
        "implied types, merge": count(store, implied_merge),
        "orphan types in the merge": count(store, "?s rdf:type ?c FILTER NOT EXISTS { GRAPH ?h { ?s rdf:type ?c } }"),
        "subclass axioms in the merge": count(store, "?a rdfs:subClassOf ?b"),
    }


def stored_bytes(generation: Path) -> tuple[int, int, int]:
    """(all files, RocksDB's table files ``*.sst``, the board index's files) of a generation directory."""
    total = tables = index = 0
    for root, _dirs, files in os.walk(generation):
        for name in files:
            size = (Path(root) / name).stat().st_size
            total += size
            tables += size if name.endswith(".sst") else 0
            index += size if name in FILES else 0
    return total, tables, index


def compact(location: Path) -> None:
    """Flush and compact a store directory, then open it once more and compact again: a delete's tombstones
    and its write-ahead log (``*.log``, 70 MB after the strip at 50k puzzles) are gone before it is measured."""
    for _ in range(2):
        ox = OxStore(str(location))
        ox.flush()
        ox.optimize()
        del ox
        gc.collect()


def copies(store: Path, work: Path) -> tuple[Path, Path, dict[str, int], float]:
    """The live generation copied to ``work/full`` and ``work/stripped`` (implied types deleted), both
    compacted the same way; returns their paths, the full copy's counts, and the strip's CPU seconds."""
    source = generation_of(store)
    full, stripped = work / "full", work / "stripped"
    for target in (full, stripped):
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(source, target)
    ox = OxStore(str(full))
    counts = statement_counts(ox)
    del ox
    ox = OxStore(str(stripped))
    started = time.process_time()
    ox.update(STRIP_INFERRED, prefixes=PREFIXES)
    ox.update(STRIP_MERGE, prefixes=PREFIXES)
    strip_cpu = time.process_time() - started
    after = count(ox, "?s ?p ?o"), count(ox, "GRAPH ?g { ?s ?p ?o }")
    counts["stripped merge"], counts["stripped named graphs"] = after
    del ox
    gc.collect()
    for target in (full, stripped):
        compact(target)
    return full, stripped, counts, strip_cpu


def report_sizes(counts: dict[str, int], full: Path, stripped: Path) -> None:
    per = counts["positions"] or 1
    games = counts["games"] + counts["lichess games"]
    print(f"positions {counts['positions']:,}; games {counts['games']:,} (PGN) + {counts['lichess games']:,} (lichess)")
    for key in (
        "merge",
        "named graphs",
        "types in the merge",
        "implied types, inferred graphs",
        "implied types, merge",
        "stripped merge",
        "stripped named graphs",
    ):
        line = f"  {key:32} {counts[key]:>12,}  {counts[key] / per:7.2f} per position"
        print(line + (f"  {counts[key] / games:7.2f} per game" if games else ""))
    implied = counts["implied types, inferred graphs"] + counts["implied types, merge"]
    stored = counts["merge"] + counts["named graphs"]
    print(f"  implied types are {implied:,} of {stored:,} stored quads ({100 * implied / stored:.1f} %)")
    print(
        f"  check: orphan types before the strip {counts['orphan types in the merge']} (must be 0); "
        f"subclass axioms in the merge {counts['subclass axioms in the merge']}"
    )
    (full_total, full_tables, index), (strip_total, strip_tables, _) = stored_bytes(full), stored_bytes(stripped)
    for what, before, after in (
        ("all files", full_total, strip_total),
        ("RocksDB tables (*.sst)", full_tables, strip_tables),
    ):
        print(
            f"  {what}, compacted: full {before / 1e6:,.1f} MB ({before / per:,.0f} B per position), stripped "
            f"{after / 1e6:,.1f} MB ({after / per:,.0f} B per position): saves {(before - after) / 1e6:,.1f} MB, "
            f"{(before - after) / per:,.0f} B per position, {100 * (before - after) / before:.1f} %"
        )
    print(f"  (both include the board index's files: {index / 1e6:.1f} MB)")


# --- the questions ---------------------------------------------------------------------------------


def texts(case: Case, everything: bool) -> tuple[str, str]:
    """(as asked, rewritten) for ``case``; ``everything``: every row, not the page (for the answer check)."""
    params = dict(case.params)
    if everything:
        params.pop("offset", None)
        params["limit"] = "0"
        if not case.public and "limit" in case.params:
            params.pop("limit")
    asked = prepare(case.name, params, public=case.public)
    rewritten = asked
    for old, new in case.rewrites:
        if old not in rewritten:
            raise SystemExit(f"{case.name}: the query no longer contains {old!r}; update the rewrite")
        rewritten = rewritten.replace(old, new)
    return asked, rewritten


def answer(result, compared: frozenset[str] | None = None) -> object:
    """A query's result as comparable values; ``compared``: only the rows whose first cell is one of them."""
    if isinstance(result, QueryBoolean):
        return bool(result)
    if isinstance(result, QuerySolutions):
        names = [v.value for v in result.variables]
        rows = [tuple(row[n] for n in names) for row in result]
        if compared is not None:
            rows = [row for row in rows if row[0] is not None and row[0].value in compared]
        return [tuple(str(cell) if cell is not None else None for cell in row) for row in rows]
    return sorted(str(t) for t in result)


def same(a: object, b: object) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return sorted(a, key=repr) == sorted(b, key=repr)
    return a == b


def timed(run, runs: int) -> tuple[float, float, int]:
    """Median wall and CPU milliseconds of ``runs`` runs after a warm-up, and the rows of the last."""
    run()
    walls, cpus, rows = [], [], 0
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        got = run()
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
        rows = len(got) if isinstance(got, list) else int(bool(got))
    return statistics.median(walls), statistics.median(cpus), rows


def in_process(full: Path, stripped: Path, runs: int, only: str = "") -> None:
    stores = {"full": OxStore.read_only(str(full)), "stripped": OxStore.read_only(str(stripped))}
    print(f"\nin-process (prepare + Store.query, every row read), median of {runs} after a warm-up; ms wall / ms CPU")
    print(f"{'question':58} {'rows':>6} {'full, as asked':>18} {'stripped, path':>18} {'full, path':>16}  answers")
    for case in [c for c in cases() if any(part in c.label for part in only.split("|"))]:
        asked, rewritten = texts(case, everything=False)
        all_asked, all_rewritten = texts(case, everything=case.check_all)
        truth = answer(stores["full"].query(all_asked, prefixes=PREFIXES), case.compared)
        found = answer(stores["stripped"].query(all_rewritten, prefixes=PREFIXES), case.compared)
        lost = answer(stores["stripped"].query(all_asked, prefixes=PREFIXES), case.compared)
        verdict = "same" if same(truth, found) else "DIFFER"
        if not same(truth, lost):
            verdict += " (as asked on stripped: differ)"
        page_same = answer(stores["full"].query(asked, prefixes=PREFIXES), case.compared) == answer(
            stores["stripped"].query(rewritten, prefixes=PREFIXES), case.compared
        )
        verdict += "" if page_same else "; page order differs"
        figures = []
        for store, text in (("full", asked), ("stripped", rewritten), ("full", rewritten)):
            wall, cpu, rows = timed(lambda s=stores[store], t=text: answer(s.query(t, prefixes=PREFIXES)), runs)
            figures.append((wall, cpu, rows))
        cells = [f"{wall:8.1f} /{cpu:7.1f}" for wall, cpu, _ in figures]
        print(f"{case.label:58} {figures[0][2]:>6} {cells[0]:>18} {cells[1]:>18} {cells[2]:>16}  {verdict}")
    stores.clear()
    gc.collect()


# --- through a server -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(location: Path) -> tuple[subprocess.Popen, str]:
    binary = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    port = free_port()
    process = subprocess.Popen(
        [binary, "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/query"
    for _ in range(200):
        try:
            urllib.request.urlopen(base + "?query=ASK%7B%7D", timeout=1).read()
            return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"oxigraph serve-read-only on {location} did not start")


def over_http(full: Path, stripped: Path, runs: int, only: str = "") -> None:
    prologue = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items())
    servers = {name: serve(path) for name, path in (("full", full), ("stripped", stripped))}
    try:
        print(f"\nthrough oxigraph serve-read-only (HTTP GET, JSON results read), median of {runs} after a warm-up; ms")
        print(f"{'question':58} {'full, as asked':>15} {'stripped, path':>15}")

        def ask(base: str, text: str) -> list:
            url = base + "?" + urllib.parse.urlencode({"query": prologue + text})
            request = urllib.request.Request(url, headers={"Accept": "application/sparql-results+json"})
            body = json.loads(urllib.request.urlopen(request, timeout=600).read())
            return body.get("results", {}).get("bindings", [body.get("boolean")])

        for case in [c for c in cases() if any(part in c.label for part in only.split("|"))]:
            asked, rewritten = texts(case, everything=False)
            cells = []
            for name, text in (("full", asked), ("stripped", rewritten)):
                wall, _cpu, _rows = timed(lambda b=servers[name][1], t=text: ask(b, t), runs)
                cells.append(f"{wall:12.1f}")
            print(f"{case.label:58} {cells[0]:>15} {cells[1]:>15}")
    finally:
        for process, _base in servers.values():
            process.terminate()
            process.wait(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", type=Path, help="an embedded store directory (chesskb import)")
    parser.add_argument("--work", type=Path, required=True, help="where the two copies go (replaced)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--server", action="store_true", help="also time both through oxigraph serve-read-only")
    parser.add_argument("--reuse", action="store_true", help="use the copies already in --work (no copy, no strip)")
    parser.add_argument("--only", default="", help="only the questions whose label contains one of these texts (a|b)")
    parser.add_argument("--sizes-only", action="store_true", help="statements and bytes only, no query times")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.reuse:
        full, stripped = args.work / "full", args.work / "stripped"
    else:
        started = time.process_time()
        full, stripped, counts, strip_cpu = copies(args.store, args.work)
        print(
            f"{args.store}: copied, stripped ({strip_cpu:.1f} CPU-s for the two updates) and compacted "
            f"in {time.process_time() - started:.1f} CPU-s"
        )
        report_sizes(counts, full, stripped)
    if args.sizes_only:
        return
    in_process(full, stripped, args.runs, args.only)
    if args.server:
        over_http(full, stripped, args.runs, args.only)


if __name__ == "__main__":
    main()
