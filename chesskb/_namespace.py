"""The one import namespace, kept honest: ``kb``, ``service``, ``queries`` and ``ontology`` are ``chesskb.*``.

From the repository root the bare folder names are importable too (the current directory is on ``sys.path``),
and ``import kb.vocab`` would load a second copy of every module beside ``chesskb.kb.vocab`` (two ``CP``
namespaces, two ``ServiceError`` classes: answers that differ for no visible reason). Each of the four
packages calls :func:`settle` first thing, which refuses the bare name and makes the package's submodules load
from the real folder rather than through the ``chesskb/NAME`` link, so tracebacks and coverage name ``kb/...``,
the file a contributor opens.
"""

from __future__ import annotations

import os

#: The folders the repository keeps at its top and installs under ``chesskb``.
NAMESPACED = ("kb", "service", "queries", "ontology")


def settle(name: str, path: list[str]) -> None:
    """Refuse ``name`` unless it is ``chesskb.NAME``; point ``path`` (the package's ``__path__``) at real folders.

    >>> try:
    ...     settle("kb", [])
    ... except ImportError as refused:
    ...     print(str(refused)[:38])
    import chesskb.kb, not kb: the reposit
    """
    if not name.startswith("chesskb."):
        folders = ", ".join(f"chesskb.{folder}" for folder in NAMESPACED[:-1]) + f" and chesskb.{NAMESPACED[-1]}"
        raise ImportError(
            f"import chesskb.{name}, not {name}: the repository's folders are installed as "
            f"{folders}, and a bare import would load every module a second time",
            name=name,
        )
    path[:] = [os.path.realpath(entry) for entry in path]
