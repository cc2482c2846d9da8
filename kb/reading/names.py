"""Normalising people's and events' names so the same name written two ways meets.

"Polgár, Judit", "Judit Polgar" and "POLGAR, JUDIT" share one key; "Polgar, Susan" does not.
Keys drop case and accents and ignore the order of the words ("Last, First" vs "First Last").
Initials are not expanded here: "Tal, M." and "Tal, Mikhail" keep different keys, because
merging them is only safe with more evidence (the merge step decides, not the key).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
#: Names remembered by the functions below: an import asks for the same few players' and events' keys
#: in every game (the identity rule, the IRIs, the labels), and they are pure functions of the text.
NAMES_REMEMBERED = 4096


@lru_cache(maxsize=NAMES_REMEMBERED)
def fold(text: str) -> str:
    """Lower case, accents removed, ``ß``/``ø``/``ł`` spelt out; punctuation becomes spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("ß", "ss").replace("ø", "o").replace("ł", "l").replace("đ", "d")
    return " ".join(_NON_WORD.sub(" ", text).split())


@lru_cache(maxsize=NAMES_REMEMBERED)
def name_key(name: str) -> str:
    """Order-free key of a person's name: the folded words, sorted."""
    return " ".join(sorted(fold(name).split()))


def slug(text: str, max_length: int = 60) -> str:
    """A readable IRI segment: folded words joined by hyphens (``polgar-judit``)."""
    return "-".join(fold(text).split())[:max_length].strip("-") or "unnamed"


@lru_cache(maxsize=NAMES_REMEMBERED)
def display_name(name: str) -> str:
    """A person's name in phone-book form when written "First Last" (labels read "Polgár, Judit")."""
    name = " ".join(name.split())
    words = name.split(" ")
    looks_like_person = 2 <= len(words) <= 4 and all(w[:1].isupper() and not any(c.isdigit() for c in w)
                                                       for w in words)
    if "," in name or not looks_like_person:
        return name
    first, _, last = name.rpartition(" ")
    return f"{last}, {first}"


# Spelling variants of one sound in romanised names (Russian, Hungarian, German, …), applied in
# order to a folded word: "Nepomniachtchi" and "Nepomnyashchy" both become "nepomniacci". A key
# for *finding* candidates, never proof on its own (kb.merge.linking asks for a FIDE ID or a fuller name).
_TRANSLITERATIONS = (("shch", "cc"), ("tch", "c"), ("sch", "s"), ("ch", "c"), ("kh", "h"), ("ck", "k"),
                     ("ph", "f"), ("tz", "z"), ("ts", "z"), ("w", "v"), ("y", "i"), ("j", "i"),
                     ("ii", "i"), ("ff", "f"), ("ss", "s"))
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")


def transliteration_key(word: str) -> str:
    """One folded word with common transliteration variants made equal (``Polgár`` = ``Polgar``,
    ``Nepomniachtchi`` = ``Nepomnyashchy``)."""
    text = fold(word).replace(" ", "")
    for old, new in _TRANSLITERATIONS:
        text = text.replace(old, new)
    return text


def surname(name: str) -> str:
    """The family name as written: the words before the comma in "Last, First" form, else the
    last word ("Mikhail Tal" -> "Tal"); remarks in parentheses ("Deep Blue (Computer)") dropped.
    Empty for an unknown name ("?", "")."""
    text = _PARENTHESES.sub(" ", name).strip()
    if not fold(text):
        return ""
    if "," in text:
        words = fold(text.split(",", 1)[0]).split()
        return words[-1] if words else fold(text).split()[-1]
    return fold(text).split()[-1]


@lru_cache(maxsize=NAMES_REMEMBERED)
def surname_key(name: str) -> str:
    """What game identity compares of a player: the surname, folded and transliterated, so
    "Tal, Mikhail N.", "Mikhail Tal" and "Tal, M." meet (``kb.merge.identity``)."""
    family = surname(name)
    return transliteration_key(family) if family else ""
