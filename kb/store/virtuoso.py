"""Bulk loading ``chesskb convert`` output into Virtuoso with its own loader (``ld_dir`` + ``rdf_loader_run``).

Loading through SPARQL Update sends every statement as text in requests of a thousand; Virtuoso's
bulk loader reads the files itself, one loader per core, each taking the next file of the load
list. ``convert`` writes the layout ``RemoteStore`` reads and writes (every statement in its named
graph, and again in the merge); its default-graph statements are lines without a graph, which the
loader puts into the graph ``ld_dir`` is given: the merge graph (``remote.MERGE_GRAPH``), the
graph every query of ``RemoteStore`` reads on Virtuoso; the graphs loaded are then listed in
``remote.REGISTRY_GRAPH``, where ``RemoteStore`` finds them (taken from the ``graphs.txt`` that
``convert --parts`` writes beside its manifest, else found by reading the files again). After the
load, ``chesskb --store http://HOST:8890/sparql`` imports, removes and re-imports sources on it as on
any server.

The loader runs inside the server, so the files must be in a folder the server may read (the
``DirsAllowed`` setting of its ``virtuoso.ini``), and the SQL port and a DBA account are needed
(``isql-vt``, Debian's Virtuoso client). Usage::

    VIRTUOSO_PASSWORD=... python -m chesskb.kb.store.virtuoso /srv/parts --port 1111 --loaders 2
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from pyoxigraph import NamedNode, RdfFormat, parse

from chesskb.kb.store.nquads_parts import graph_names, manifest_files, manifest_graphs
from chesskb.kb.store.remote import GRAPH_CLASS, MERGE_GRAPH, REGISTRY_GRAPH

#: The files ``ld_dir`` registers: what ``convert`` writes (``.nq`` or ``.nq.gz``).
PARTS = "*.nq*"
#: Files registered per ``isql-vt`` call when a ``convert --parts`` manifest lists them (one call each
#: would cost a process per part). ``isql-vt`` refuses a line of more than 50 statements ("Exiting
#: because there are more than 50 semicolons"): at 200, any manifest of more than 50 parts failed to load.
LD_ADD_PER_CALL = 50
#: Seconds one ``isql-vt`` call may take (a loader runs until the load list is empty).
ISQL_TIMEOUT = 24 * 3600
PASSWORD_ENV = "VIRTUOSO_PASSWORD"


@dataclass(frozen=True)
class VirtuosoSql:
    """Where Virtuoso's SQL port answers and the DBA account ``isql-vt`` logs in with."""

    port: int
    host: str = "127.0.0.1"
    user: str = "dba"
    password: str = "dba"

    def command(self, sql: str) -> list[str]:
        return ["isql-vt", f"{self.host}:{self.port}", self.user, self.password, f"exec={sql}"]

    def run(self, sql: str) -> str:
        """Run ``sql``; its output, or ``RuntimeError`` with Virtuoso's message."""
        done = subprocess.run(self.command(sql), capture_output=True, text=True, timeout=ISQL_TIMEOUT, check=False)
        if done.returncode != 0 or "*** Error" in done.stdout or "*** Error" in done.stderr:
            raise RuntimeError(f"Virtuoso refused {sql!r}: {(done.stdout + done.stderr).strip()[-500:]}")
        return done.stdout


def _sql_text(value: str) -> str:
    """``value`` as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def bulk_load(sql: VirtuosoSql, folder: Path, *, loaders: int | None = None, merge_graph: str = MERGE_GRAPH) -> int:
    """Load every ``PARTS`` file in ``folder``, or exactly the parts its ``convert --parts`` manifest
    lists (``kb.store.nquads_parts``: not a part an earlier run left there), quads into their graphs and
    triples into ``merge_graph``, with ``loaders`` parallel loaders (one per core by default, never more
    than the files), then checkpoint so the load survives a restart. Returns the number of files loaded;
    raises ``RuntimeError`` naming the files the loader refused."""
    folder = folder.resolve()
    in_manifest = manifest_files(folder)
    files = sorted(folder.glob(PARTS)) if in_manifest is None else in_manifest
    if not files:
        raise RuntimeError(f"no {PARTS} file in {folder}")
    listed_graphs = manifest_graphs(folder) if in_manifest is not None else None  # checked before loading
    if in_manifest is None:
        sql.run(f"ld_dir({_sql_text(str(folder))}, {_sql_text(PARTS)}, {_sql_text(merge_graph)});")
    for start in range(0, len(in_manifest or ()), LD_ADD_PER_CALL):
        chunk = files[start : start + LD_ADD_PER_CALL]
        sql.run(" ".join(f"ld_add({_sql_text(str(file))}, {_sql_text(merge_graph)});" for file in chunk))
    count = max(1, min(loaders or os.cpu_count() or 1, len(files)))
    running = [
        subprocess.Popen(sql.command("rdf_loader_run();"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(count)
    ]
    outputs = [process.communicate(timeout=ISQL_TIMEOUT)[0] for process in running]
    if any(process.returncode for process in running):
        raise RuntimeError("a Virtuoso loader failed: " + " | ".join(o.strip()[-300:] for o in outputs))
    sql.run("checkpoint;")
    failed = sql.run(
        f"SELECT ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL "
        f"AND ll_file LIKE {_sql_text(str(folder) + '/%')};"
    )
    refused = [line.strip() for line in failed.splitlines() if str(folder) in line]
    if refused:
        raise RuntimeError("Virtuoso's loader refused: " + "; ".join(refused)[:1000])
    # the list ``convert --parts`` wrote for these files, else the files read again
    graphs = listed_graphs if listed_graphs is not None else graphs_in(files)
    if graphs:
        listed = " ".join(f"{NamedNode(graph)} a <{GRAPH_CLASS}> ." for graph in sorted(graphs))
        sql.run(f"SPARQL INSERT DATA {{ GRAPH <{REGISTRY_GRAPH}> {{ {listed} }} }};")  # what RemoteStore lists
    return len(files)


def graphs_in(files: list[Path]) -> set[str]:
    """The named graphs the N-Quads ``files`` write to (read again: the loader does not say)."""
    graphs: set[str] = set()
    for path in files:
        with gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb") as handle:
            graphs.update(graph_names(parse(cast(IO[bytes], handle), format=RdfFormat.N_QUADS)))
    return graphs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chesskb.kb.store.virtuoso",
        description="Bulk load chesskb convert output (*.nq, *.nq.gz) into Virtuoso.",
    )
    parser.add_argument("folder", type=Path, help="a folder Virtuoso may read (DirsAllowed) holding the parts")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1111, help="Virtuoso's SQL port (ServerPort in [Parameters])")
    parser.add_argument("--user", default="dba")
    parser.add_argument("--loaders", type=int, default=None, help="parallel loaders (default: one per core)")
    options = parser.parse_args(argv)
    # From the environment, not our arguments; isql-vt itself takes it on its command line, which
    # local users can see while it runs: run this on the server's own host.
    password = os.environ.get(PASSWORD_ENV, "dba")
    if not re.fullmatch(r"[\w.-]+", options.host):
        parser.error(f"not a host name: {options.host!r}")
    try:
        loaded = bulk_load(
            VirtuosoSql(options.port, options.host, options.user, password), options.folder, loaders=options.loaders
        )
    except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"loaded {loaded} file(s) from {options.folder} (merge graph {MERGE_GRAPH})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
