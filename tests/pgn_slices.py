"""Some games of a PGN file, written as a file of their own: a smaller input for a test whose assertion
does not depend on the collection's size (CONTRIBUTING.md, "The fast lane")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path


def write_games(source: Path, indexes: Iterable[int], target: Path) -> Path:
    """The games of ``source`` at ``indexes`` (counted from 0 in file order) into ``target``, byte for byte
    as ``source`` writes them (a collection is not always UTF-8): the file is cut before each ``[Event``
    line, so every game must start with one."""
    games = re.split(rb"\n(?=\[Event )", source.read_bytes())
    target.write_bytes(b"\n".join(games[i].rstrip(b"\n") + b"\n" for i in indexes))
    return target
