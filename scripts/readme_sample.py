"""The README's sample session ("Using it"), produced by running it.

The commands of the sample are run for real, in a temporary directory with ``data`` linked to the
repository's, and their output is written as the README shows it. Timings (seconds, games per
second) differ on every run, so ``--check`` compares the README with a fresh run with those figures
masked, and byte counts within a few bytes (the export holds the import's time); everything else
(games, sources, quads, IRIs, rows, every line of text) must be the same.

    python scripts/readme_sample.py            # print the sample
    python scripts/readme_sample.py --write    # put it into README.md between the markers
    python scripts/readme_sample.py --check    # exit 1 when README.md's sample is stale

tests/test_readme_sample.py runs ``--check``.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BEGIN = "<!-- sample: scripts/readme_sample.py -->"
END = "<!-- end of sample -->"

POLGAR_QUERY = """SELECT ?position ?white ?black WHERE {
    ?position a cp:MateInTwo ; cp:hasPlayerWhite/cp:name ?white ; cp:hasPlayerBlack/cp:name ?black .
    FILTER(CONTAINS(LCASE(?white), 'polg') || CONTAINS(LCASE(?black), 'polg')) }"""


@dataclass(frozen=True)
class Step:
    """One command of the sample: as the README shows it, what is run, and how much output is shown."""

    shown: str
    argv: tuple[str, ...]
    head: int = 0  # 0: every line; else the first lines only
    more: bool = False  # a "…" line after the lines shown


def steps() -> list[Step]:
    files = ["data/lichess/puzzles.csv", "data/pychess/*.pgn", "data/seed/*.pgn"]
    return [
        Step("chesskb --store kb import " + " ".join(files), ("import", *files)),
        Step(f'chesskb --store kb query "{POLGAR_QUERY}"', ("query", POLGAR_QUERY)),
        Step(
            "chesskb --store kb query --name mate-in-one --format csv | head -2",
            ("query", "--name", "mate-in-one", "--format", "csv"),
            head=2,
        ),
        Step("chesskb --store kb stats", ("stats",), head=6, more=True),
        Step(
            "chesskb --store kb export --format owl -o kb.owl      # RDF/XML: ontology + individuals, for Protégé",
            ("export", "--format", "owl", "-o", "kb.owl"),
        ),
    ]


def _expand(argv: tuple[str, ...], cwd: Path) -> list[str]:
    """The shell's globbing of ``data/…/*.pgn``, sorted as bash sorts them (C locale in the sample)."""
    out: list[str] = []
    for arg in argv:
        if "*" in arg:
            out += sorted(str(Path(p).relative_to(cwd)) for p in glob.glob(str(cwd / arg)))
        else:
            out.append(arg)
    return out


def sample() -> str:
    """Run the steps in a fresh directory and return the console text the README shows."""
    blocks: list[str] = []
    with tempfile.TemporaryDirectory(prefix="chesskb-readme-") as tmp:
        cwd = Path(tmp)
        (cwd / "data").symlink_to(ROOT / "data")
        env = {**os.environ, "CHESSKB_STORE": "", "CHESSKB_BASE_IRI": "", "COLUMNS": "200"}
        env = {k: v for k, v in env.items() if v != ""}
        for step in steps():
            argv = [sys.executable, "-m", "chesskb", "--store", "kb", *_expand(step.argv, cwd)]
            done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{step.shown}: exit {done.returncode}\n{done.stderr}")
            lines = done.stderr.splitlines() + done.stdout.splitlines()
            if step.head:
                lines = lines[: step.head] + (["…"] if step.more else [])
            blocks.append("\n".join([f"$ {step.shown}", *(line.rstrip() for line in lines)]))
    return "```console\n" + "\n\n".join(blocks) + "\n```"


def _readme_sample(text: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:end].strip("\n")


#: How far the export's byte count may move between runs: it holds the import's time (``cp:importedAt``),
#: whose written length varies by a few characters (trailing zeros of the fraction of a second).
BYTES_TOLERANCE = 64
_BYTES = re.compile(r"\((\d[\d,]*) bytes\)")


def masked(text: str) -> str:
    """The sample without what changes from run to run: the import's seconds and rate, and the byte
    counts (compared apart, within ``BYTES_TOLERANCE``)."""
    text = re.sub(r"\d[\d,]*(\.\d+)? s, [\d,]+(\.\d+)? games/s", "<seconds>, <rate>", text)
    return _BYTES.sub("(<bytes>)", text)


def same_sample(shown: str, fresh: str) -> bool:
    """The README's sample says what a fresh run printed, timings aside and byte counts nearly."""
    counts = [[int(n.replace(",", "")) for n in _BYTES.findall(text)] for text in (shown, fresh)]
    return (
        masked(shown) == masked(fresh)
        and len(counts[0]) == len(counts[1])
        and all(abs(a - b) <= BYTES_TOLERANCE for a, b in zip(*counts, strict=True))
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="replace the README's sample")
    group.add_argument("--check", action="store_true", help="exit 1 when the README's sample is stale")
    args = parser.parse_args(argv)
    fresh = sample()
    readme = README.read_text(encoding="utf-8")
    if args.write:
        old = _readme_sample(readme)
        README.write_text(readme.replace(old, fresh, 1), encoding="utf-8")
        print(f"wrote the sample into {README}")
        return 0
    if args.check:
        if not same_sample(_readme_sample(readme), fresh):
            print("README.md's sample is stale; run: python scripts/readme_sample.py --write\n\nnow:\n" + fresh)
            return 1
        print("README.md's sample is current")
        return 0
    print(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
