"""A store directory's generations: which one ``CURRENT`` names, what the next one is called, and
which leftovers a write may remove.

``CURRENT`` is a symbolic link a person may also write by hand (a restore from a backup, with tab
completion): ``gen-000042``, ``./gen-000042``, ``gen-000042/`` and the folder's absolute path all
name the same generation, and they must all *be* that generation. Comparing the link's text with a
folder's name once made the next import take the live generation for a leftover and delete every
generation of the store (issue 35, item 4). So the link is resolved to the folder it reaches, and
that folder is named by its own name, or refused (``StoreError``) when it is not a generation of
this store.

Leftovers are removed only when they are certainly ours and dead: staging copies of killed writes
(``gen-N.partial``, files or folders), and the generations that were once live and were replaced
before the one the live generation replaced. Each published generation records which one it
replaced (``CHESSKB-REPLACES``), and that chain, not the numbers, says which ones were live once:
the live generation and the one before it (readers may still be querying it, and it is the way
back) are never removed, nor is any generation outside the chain (a hand restore of an older one
leaves the newer ones there; a copy put there by hand): it is reported by name, never deleted, and
neither is anything else a person put in the directory. What cannot be removed is reported by name,
and the next generation's number is chosen above every number in use, so a planted ``.partial`` or
next generation never blocks a write.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from chesskb.kb.store.base import StoreError

CURRENT = "CURRENT"
PARTIAL = ".partial"
_NAME = re.compile(r"gen-(\d{1,9})")
_STAGING = re.compile(r"gen-(\d{1,9})" + re.escape(PARTIAL))
#: Where the leftovers a write leaves alone are reported (the CLI and the server print warnings).
log = logging.getLogger("chesskb.store")


def generation_name(number: int) -> str:
    return f"gen-{number:06d}"


def generation_number(name: str) -> int | None:
    """The number of a generation folder's name (``gen-000042`` -> 42), ``None`` for any other name."""
    match = _NAME.fullmatch(name)
    return int(match.group(1)) if match else None


def live_generation(store: Path) -> str | None:
    """The name of the generation ``CURRENT`` reaches, however the link spells it; ``None`` when the
    store has no ``CURRENT`` (nothing imported yet). A link that reaches anything but a generation
    folder of this store is refused: a write would not know what to keep."""
    link = store / CURRENT
    try:
        target = os.readlink(link)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{store} is not a chesskb store ({link}: {exc})") from exc
    normal = os.path.normpath(target)  # ./gen-000042 and gen-000042/ are gen-000042
    name: str | None = normal
    if os.path.isabs(target) or os.sep in normal:  # a path elsewhere: where does it lead?
        reached = Path(os.path.realpath(link))
        name = reached.name if reached.parent == Path(os.path.realpath(store)) else None
    if name is None or generation_number(name) is None:
        raise StoreError(
            f"{link} points to {target!r}, which is not a generation of this store; point it to one "
            f"of its gen-NNNNNN folders (for example: ln -sfn gen-000001 {link})"
        )
    return name


#: The file in a generation naming the generation it replaced: the chain a write follows to know
#: which old generations were once live (and may go) and which were put there by someone else.
REPLACES = "CHESSKB-REPLACES"


def record_replaced(generation: Path, replaced: str | None) -> None:
    """Write, in a staging copy about to be published, which generation it replaces (an empty
    record for none: the first import, or a store whose ``CURRENT`` was lost)."""
    (generation / REPLACES).write_text((replaced or "") + "\n", encoding="utf-8")


def replaced_by(store: Path, generation: str) -> str | None:
    """The generation ``generation`` replaced: as its record says, or, for a generation written
    before records existed, the highest-numbered generation below it."""
    try:
        named = (store / generation / REPLACES).read_text(encoding="utf-8").strip()
        return named if generation_number(named) is not None else None
    except FileNotFoundError:
        number = generation_number(generation)
        older = [n for n in map(generation_number, os.listdir(store)) if n is not None and number and n < number]
        return generation_name(max(older)) if older else None
    except OSError:
        return None


@dataclass
class Leftovers:
    """What a store directory holds besides its live generation, sorted by what may be done with it."""

    removable: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)  # not in the live generation's chain: reported, never removed
    highest: int = 0  # the highest generation number in use (live, kept, removable, staging)


def survey(store: Path, live: str | None) -> Leftovers:
    """Sort the entries of ``store`` (module doc): staging copies may go, and so may the generations
    the live one's chain of replacements passes through after the one it replaced (those were live
    once, and no reader is on them any more). Every other generation is someone else's: kept. Names
    that are neither generations nor staging copies are not ours to touch and take no number."""
    previous = replaced_by(store, live) if live else None
    dead: set[str] = set()
    older = replaced_by(store, previous) if previous else None
    while older is not None and older not in dead and (store / older).is_dir():
        dead.add(older)
        older = replaced_by(store, older)
    found = Leftovers(highest=(generation_number(live) or 0) if live else 0)
    for entry in sorted(store.iterdir()):
        staging = _STAGING.fullmatch(entry.name)
        number = int(staging.group(1)) if staging else generation_number(entry.name)
        if number is None:
            continue
        found.highest = max(found.highest, number)
        if staging or entry.name in dead:
            found.removable.append(entry)
        elif entry.name not in (live, previous):
            found.kept.append(entry)
    return found


def remove_leftovers(store: Path, live: str | None) -> int:
    """Remove what ``survey`` finds removable, report by name what stays (a generation outside the
    live one's chain, an entry that could not be removed), and return the highest generation number
    in use, so that the caller's next generation takes a number no entry of the directory has."""
    found = survey(store, live)
    for entry in found.removable:
        try:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning(
                "warning: could not remove the leftover %s (%s); it is left alone, remove it by hand",
                entry,
                exc.strerror or exc,
            )
    for entry in found.kept:
        log.warning(
            "warning: %s is not the live generation (%s names %s) nor one it replaced: left alone; "
            "point %s to it to make it live, or remove it",
            entry,
            CURRENT,
            live,
            CURRENT,
        )
    (store / (CURRENT + ".new")).unlink(missing_ok=True)
    return found.highest
