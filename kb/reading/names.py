"""Normalising people's and events' names so the same name written two ways meets.

"Polgár, Judit", "Judit Polgar" and "POLGAR, JUDIT" share one key; "Polgar, Susan" does not.
Keys drop case and accents and ignore the order of the words ("Last, First" vs "First Last").
Initials are not expanded here: "Tal, M." and "Tal, Mikhail" keep different keys, because
merging them is only safe with more evidence (the merge step decides, not the key).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

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
    """A person's name as the source wrote it, spaces tidied: the order is never turned around, because
    "Ding Liren" (family name first) and "Smyslov V" (surname and initial) are not "First Last"; a
    "Last,First" without a space reads "Last, First"."""
    name = " ".join(name.split())
    return re.sub(r"\s*,\s*", ", ", name).strip(", ") or name


# Spelling variants of one sound in romanised names (Russian, Hungarian, German, …), applied in
# order to a folded word: "Nepomniachtchi" and "Nepomnyashchy" both become "nepomniacci". A key
# for *finding* candidates, never proof on its own (kb.merge.linking asks for a FIDE ID or a fuller name).
_TRANSLITERATIONS = (
    ("shch", "cc"),
    ("tch", "c"),
    ("sch", "s"),
    ("ch", "c"),
    ("kh", "h"),
    ("ck", "k"),
    ("ph", "f"),
    ("tz", "z"),
    ("ts", "z"),
    ("w", "v"),
    ("y", "i"),
    ("j", "i"),
    ("ii", "i"),
    ("ff", "f"),
    ("ss", "s"),
    ("ue", "u"),
    ("oe", "o"),
    ("ae", "a"),
)
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")


@lru_cache(maxsize=NAMES_REMEMBERED)
def transliteration_key(word: str) -> str:
    """One folded word with common transliteration variants made equal (``Polgár`` = ``Polgar``,
    ``Nepomniachtchi`` = ``Nepomnyashchy``)."""
    text = fold(word).replace(" ", "")
    for old, new in _TRANSLITERATIONS:
        text = text.replace(old, new)
    return text


#: What sources write for a player they do not know: no person (``read_name`` returns ``None``).
UNKNOWN_NAMES = frozenset(
    {
        "",
        "?",
        "??",
        "???",
        "nn",
        "n n",
        "unknown",
        "anonymous",
        "anon",
        "player",
        "white",
        "black",
        "x",
        "xx",
        "nobody",
        "none",
    }
)

#: Family names that Chinese, Korean and Vietnamese names put first, as FIDE and TWIC write them ("Ding
#: Liren", "Wang Hao", "Le Quang Liem"): read as the surname when they open a name of two or three words
#: without a comma. Words that are also common Western given names ("Kim", "Lee", "Yan") are left out: a
#: "Kim Hansen" is read the Western way. A name written the other way round ("Hao Wang") is then read
#: with the wrong family name, and its games stay apart from the other spelling's: a missed merge, never
#: a false one.
FAMILY_NAME_FIRST = frozenset(
    [
        "bai",
        "bu",
        "cai",
        "cao",
        "chen",
        "cheng",
        "cui",
        "dai",
        "deng",
        "ding",
        "dong",
        "du",
        "fan",
        "fang",
        "feng",
        "fu",
        "gao",
        "gong",
        "gu",
        "guo",
        "han",
        "hao",
        "he",
        "hou",
        "hu",
        "huang",
        "ji",
        "jia",
        "jiang",
        "jin",
        "ju",
        "kong",
        "lai",
        "lei",
        "li",
        "liang",
        "liao",
        "lin",
        "liu",
        "lu",
        "luo",
        "lv",
        "ma",
        "mao",
        "meng",
        "ni",
        "pan",
        "peng",
        "qian",
        "qin",
        "qiu",
        "ren",
        "shen",
        "shi",
        "song",
        "su",
        "sun",
        "tan",
        "tang",
        "tian",
        "wan",
        "wang",
        "wei",
        "wen",
        "wu",
        "xia",
        "xiang",
        "xiao",
        "xie",
        "xiong",
        "xu",
        "xue",
        "yang",
        "yao",
        "ye",
        "yi",
        "yin",
        "yu",
        "yuan",
        "zeng",
        "zhai",
        "zhang",
        "zhao",
        "zheng",
        "zhong",
        "zhou",
        "zhu",
        "zhuang",
        "zou",
        "park",
        "choi",
        "jung",
        "kang",
        "cho",
        "yoon",
        "jang",
        "lim",
        "han",
        "oh",
        "seo",
        "shin",
        "kwon",
        "hwang",
        "ahn",
        "song",
        "hong",
        "nguyen",
        "tran",
        "le",
        "pham",
        "hoang",
        "phan",
        "vu",
        "vo",
        "dang",
        "bui",
        "ngo",
        "duong",
        "ly",
    ]
)

_INITIALS = re.compile(r"^(?:[A-Z]\.?){1,3}$")


@dataclass(frozen=True)
class NameReading:
    """How a written name divides into family name and given names, the one reading that game identity
    (``surname_key``) and player linking (``kb.merge.linking``) both use, so they cannot disagree.

    ``family`` and ``given`` are folded words in the order written; a given word may be a whole name
    ("hikaru"), a prefix ("hi" of "Nakamura,Hi") or an initial ("j")."""

    family: tuple[str, ...]
    given: tuple[str, ...]

    @cached_property
    def family_key(self) -> str:
        """The surname as identity compares it: the family name's last word, transliterated (so
        "Vachier-Lagrave" and "Vachier Lagrave", "Hübner" and "Huebner" meet)."""
        return transliteration_key(self.family[-1]) if self.family else ""


def _folded_words(text: str) -> list[str]:
    return fold(text).split()


@lru_cache(maxsize=NAMES_REMEMBERED)
def read_name(name: str) -> NameReading | None:
    """The family and given names of a written person's name, ``None`` for no person ("?", "NN", "").

    * "Last, First" (with or without the space): the words before the comma are the family name;
    * no comma, initials at one end ("Smyslov V", "Szabo L", "V. Smyslov"): the other words are the family name;
    * no comma, a known East Asian family name first ("Ding Liren", "Wang Hao"): that word is the family name;
    * otherwise "First Last": the last word is the family name.
    Remarks in parentheses ("Deep Blue (Computer)", "Ding Liren (CHN)") are left out."""
    text = " ".join(_PARENTHESES.sub(" ", name).split())
    if fold(text) in UNKNOWN_NAMES or fold(text).replace(" ", "") in UNKNOWN_NAMES:
        return None
    if "," in text:
        before, _, after = text.partition(",")
        family, given = _folded_words(before), _folded_words(after)
        if not family:
            family, given = given[-1:], given[:-1]
        return NameReading(tuple(family), tuple(given)) if family else None
    written = text.split(" ")
    words = _folded_words(text)
    if not words:
        return None
    if len(written) >= 2 and all(_INITIALS.match(w) for w in written[1:]) and not _INITIALS.match(written[0]):
        return NameReading(tuple(_folded_words(written[0])), tuple(_folded_words(" ".join(written[1:]))))
    if len(written) >= 2 and _INITIALS.match(written[0]) and not _INITIALS.match(written[-1]):
        initials = [w for w in written if _INITIALS.match(w)]
        rest = written[len(initials) :]
        if len(initials) + len(rest) == len(written) and not any(_INITIALS.match(w) for w in rest):
            return NameReading(tuple(_folded_words(" ".join(rest))), tuple(_folded_words(" ".join(initials))))
    if 2 <= len(words) <= 3 and words[0] in FAMILY_NAME_FIRST:
        return NameReading((words[0],), tuple(words[1:]))
    return NameReading((words[-1],), tuple(words[:-1]))


def is_person(name: str) -> bool:
    """Whether a written player name names someone ("?", "NN", "N.N." do not)."""
    return read_name(name) is not None


def surname(name: str) -> str:
    """The family name as written (folded), for showing why games were merged; empty for no person."""
    reading = read_name(name)
    return reading.family[-1] if reading is not None and reading.family else ""


@lru_cache(maxsize=NAMES_REMEMBERED)
def surname_key(name: str) -> str:
    """What game identity compares of a player: the family key of the one name reading
    (``read_name``), so "Tal, Mikhail N.", "Mikhail Tal", "Tal, M." and "Tal M" meet, and
    "Ding Liren" meets "Ding, Liren" (``kb.mapping.identity``)."""
    reading = read_name(name)
    return reading.family_key if reading is not None else ""
