"""Normalising people's and events' names so the same name written two ways meets.

"Polgár, Judit", "Judit Polgar" and "POLGAR, JUDIT" share one key; "Polgar, Susan" does not.
Keys drop case and accents and ignore the order of the words ("Last, First" vs "First Last").
Initials are not expanded here: "Tal, M." and "Tal, Mikhail" keep different keys, because
merging them is only safe with more evidence (the merge step decides, not the key).
"""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def fold(text: str) -> str:
    """Lower case, accents removed, ``ß``/``ø``/``ł`` spelt out; punctuation becomes spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.lower().replace("ß", "ss").replace("ø", "o").replace("ł", "l").replace("đ", "d")
    return " ".join(_NON_WORD.sub(" ", text).split())


def name_key(name: str) -> str:
    """Order-free key of a person's name: the folded words, sorted."""
    return " ".join(sorted(fold(name).split()))


def slug(text: str, max_length: int = 60) -> str:
    """A readable IRI segment: folded words joined by hyphens (``polgar-judit``)."""
    return "-".join(fold(text).split())[:max_length].strip("-") or "unnamed"


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
