"""Whether a source in the store is still what importing its files again would give.

A second start of the demo (or of any script that imports the same files again) should not spend a
minute re-analysing files nobody touched. A source is *unchanged* when the files' checksums are the
ones it was imported from and it was imported by the same code with the same settings (``--theme``,
``--lang``, ``--mine``): new analysis code must re-analyse, so the fingerprint covers the code of
``chesskb.kb`` and the ontology, not only the version number.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

from chesskb import __version__
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import Store
from chesskb.queries.executor import select


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the code that turns files into statements (``chesskb.kb``) and of the ontology."""
    from chesskb import ontology

    hasher = hashlib.sha256(__version__.encode())
    kb_root = Path(__file__).resolve().parent.parent  # chesskb/kb, not only this module's kb/merge
    for path in sorted(kb_root.rglob("*.py")):
        hasher.update(str(path.relative_to(kb_root)).encode())
        hasher.update(path.read_bytes())
    hasher.update(ontology.turtle_text().encode("utf-8"))
    return hasher.hexdigest()[:16]


def import_fingerprint(
    *, themes: Iterable[str] = (), lang: str | None = None, mine: bool = False, engine: bool = False
) -> str:
    """What an import was made with, kept beside the source's checksum (``cp:importedWith``).

    ``engine``: whether a UCI engine was at hand. Without one, ``--mine`` is refused and a mate
    claim the built-in search cannot settle within its budget stays undecided; a source imported
    without an engine is therefore imported again once one is installed (the same rule as a
    ``convert --parts`` part's name, ``kb.pipeline.part_name``)."""
    return (
        f"chesskb {__version__}; code {code_fingerprint()}; themes={','.join(sorted(themes))}; "
        f"lang={lang or ''}; mine={'yes' if mine else 'no'}; engine={'yes' if engine else 'no'}"
    )


def unchanged_sources(
    store: Store, checksums: Mapping[str, str], fingerprint: str, *, base_iri: str | None = None
) -> set[str]:
    """The names in ``checksums`` (source name -> checksum of its files now) whose stored source has
    that checksum and was imported with ``fingerprint``."""
    minter = IriMinter(base_iri)
    stored = {
        row["name"].value: (
            row["checksum"].value if row["checksum"] is not None else None,
            row["importedWith"].value if row["importedWith"] is not None else None,
        )
        for row in select(store, "stored-sources", {"meta": minter.meta_graph})
    }
    return {name for name, checksum in checksums.items() if stored.get(name) == (checksum, fingerprint)}
