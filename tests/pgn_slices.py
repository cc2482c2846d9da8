"""Some games of a PGN file, written as a file of their own: a smaller input for a test whose assertion
does not depend on the collection's size (CONTRIBUTING.md, "The fast lane")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest


def write_games(source: Path, indexes: Iterable[int], target: Path) -> Path:
    """The games of ``source`` at ``indexes`` (counted from 0 in file order) into ``target``, byte for byte
    as ``source`` writes them (a collection is not always UTF-8): the file is cut before each ``[Event``
    line, so every game must start with one."""
    games = re.split(rb"\n(?=\[Event )", source.read_bytes())
    target.write_bytes(b"\n".join(games[i].rstrip(b"\n") + b"\n" for i in indexes))
    return target


def sliced_source(files: dict[str, Path], name: str, indexes: Iterable[int]) -> Callable[..., Iterator[Path]]:
    """A module fixture (autouse) pointing ``files[name]`` at the games ``indexes`` of that file for the
    module's tests, for a module whose tests read the sources from one dict (``FILES``). Assign it to a
    module-level name: ``mate_in_2_slice = sliced_source(FILES, "mate_in_2", [*range(8), 49])``."""
    chosen = list(indexes)

    @pytest.fixture(scope="module", autouse=True)
    def source_slice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
        path = write_games(files[name], chosen, tmp_path_factory.mktemp("slice") / files[name].name)
        with pytest.MonkeyPatch.context() as patch:
            patch.setitem(files, name, path)
            yield path

    return source_slice
