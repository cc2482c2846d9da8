"""Every ``chesskb`` command, one module each (``NAME.py`` exposing ``command``), listed in :data:`COMMANDS`.

``service/cli.py`` imports a command's module only when that command runs (or its own ``--help`` is asked
for), so ``chesskb --version`` and ``chesskb --help`` load click and this table, not the store, the analysis
or Flask (bench/cli_startup.py measures it). The table's summary is what ``chesskb --help`` lists; it is
the first sentence of the command's docstring, and tests/test_registration.py fails when the two differ.

Adding a command: write ``service/commands/NAME.py`` with a ``@click.command("name")`` called ``command``
(see ``sources.py`` for a small one) and add a row here (CONTRIBUTING.md, "A command").
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    """Where a command lives and the one line ``chesskb --help`` shows for it."""

    module: str
    summary: str


#: Command name -> its module under ``chesskb.service.commands`` and its summary, in ``--help`` order (sorted).
COMMANDS: dict[str, CommandEntry] = {
    "bench-queries": CommandEntry(
        "bench_queries", "Time every canned query with its default parameters: median and p95 in milliseconds."
    ),
    "check": CommandEntry(
        "check", "Reason over the knowledge base (OWL) and validate its data (SHACL); name what is wrong."
    ),
    "classify": CommandEntry(
        "classify", "Print the classes the detectors assign to each position of a PGN or lichess CSV file."
    ),
    "compact": CommandEntry(
        "compact",
        "Rewrite a store written before the compact layout (each statement also in its source's graph) "
        "in that layout, its files compacted by RocksDB: same answers, a third of the disk.",
    ),
    "convert": CommandEntry(
        "convert", "Write what `import` would load (analysis included) as N-Quads for a SPARQL server's bulk loader."
    ),
    "course": CommandEntry("course", "Courses: chapters of exercises by level, loaded from a YAML course file."),
    "export": CommandEntry(
        "export",
        "Export the knowledge base; --format owl is RDF/XML (ontology + individuals) for Protégé, owlxml "
        "the same in OWL/XML (written by the OWL API; needs Java), --format pgn the exercises as PGN "
        "(SetUp/FEN, solution and comments) for other chess software.",
    ),
    "find": CommandEntry(
        "find",
        "Positions matching PATTERN: pieces on squares (Nf5 kg8 R*7) or a FEN-form board "
        "(*/*/*/*/???PP???/*/*/*), optionally with the side to move (w/b) and material (KRP-KR).",
    ),
    "html": CommandEntry("html", "Turn one PGN file into a static web site of its positions (no store needed)."),
    "import": CommandEntry(
        "importing", "Import PGN files (.pgn, .pgn.gz, .pgn.zst) or lichess puzzle CSVs into the store."
    ),
    "merge-report": CommandEntry(
        "merge_report",
        "List the games, players and events merged across sources, the sameAs/candidate links, "
        "with reasons, and the mate claims left refuted or undecided.",
    ),
    "queries": CommandEntry(
        "queries_cmd", "List the canned queries (run one with `chesskb query --name NAME --param k=v`)."
    ),
    "query": CommandEntry(
        "query", "Run a SPARQL query over the whole knowledge base (all sources, the ontology included)."
    ),
    "remove-source": CommandEntry("remove_source", "Remove one source; what other sources also contain stays."),
    "serve": CommandEntry("serve", "Serve the SPARQL endpoint, the canned queries and the pages over HTTP."),
    "site": CommandEntry(
        "site", "Write the knowledge base as a static web site (pages, boards, solving, the .owl export)."
    ),
    "sources": CommandEntry("sources", "The sources in the store with counts, import time and file checksum."),
    "stats": CommandEntry("stats", "Counts of positions, games, players, events and theme classes."),
    "validate": CommandEntry("validate", "Validate a FEN (--fen) or PGN files strictly; print every finding."),
}
