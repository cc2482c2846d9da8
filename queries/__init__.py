"""Canned queries: one ``NAME.rq`` file per question, read into ``CannedQuery`` objects.

Each file starts with a comment header the code reads::

    # title: Mate-in-one positions
    # description: All positions with mate in one.
    # param: player string "Sahuquillo, Alejandro"  -- the player's name, any order
    SELECT ?position WHERE { ... ?player ... }

Spanish lines may follow (``title@es``, ``description@es``, and ``param@es: NAME LABEL -- HELP``
for a parameter declared above): the Spanish pages show them (``CannedQuery.in_language``);
the parameter's name, type and default, the JSON and the CLI stay as the English header says.

Parameters are bound as typed RDF terms, written as a ``VALUES`` block into every group of the
query that mentions them (``kb.store.bindings``), never pasted into the query text as strings, so a
value such as ``"} DROP ALL #`` stays a harmless literal.

Writing a query (the rules the 48 files follow):

* Every parameter variable is projected (``SELECT ?position … ?player``) and grouped on in
  aggregates, so the column shows the value the query actually used.
* Every query answers in pages (``limit``, ``offset``), appended at the end; a line ``#PAGE``
  puts them inside a sorted subquery instead, so only the page's rows are joined with the rest.
* Position queries bind ``?position``; game queries bind ``?match``.
* Type ``name`` binds the parameter as ``kb.reading.names.name_key`` of the value (case, accents and word
  order dropped) and the query compares it with players' stored ``cp:nameKey``, word-bounded, so
  "Polgar" finds "Polgár, Judit" and "Susan Polgar".
* Type ``class`` binds ``cp:NAME``; ``?position a ?tactic`` includes subclasses because the
  ``/inferred`` graphs carry every superclass type and queries run over the union default graph.
* Type ``keyword`` binds the value trimmed and lowercased (``side``: white/black), so the query
  looks it up as an exact value instead of lowercasing every stored one in a FILTER.
* Type ``pieces`` binds one side's pieces as ``cp:whitePieces``/``cp:blackPieces`` store them
  (``rp`` and ``KRPP`` both become ``KRP``: king first, any number of pawns as one P).
* Type ``pattern`` is a position pattern (``kb.search.patterns``: ``Nf5 kg8``, ``*/*/*/*/???PP???/*/*/*``,
  then optionally ``w``/``b`` and ``KRP-KR``). The query writes ``REGEX(?board, ?NAME)`` with
  ``?board`` bound to ``cp:boardSquares`` and ``?side``/``?signature`` to ``cp:sideToMove`` and
  ``cp:materialSignature`` in the same group; that call is replaced by the pattern's compiled tests,
  whose regular expressions are constants written by ``kb.search.patterns`` from the parsed pattern (never
  the user's text), because Oxigraph compiles a regular expression held in a variable once per row
  (170 s instead of 3.4 s at 1M positions). ``?NAME`` itself is bound to the pattern text as usual.
* ``date`` takes YYYY-MM-DD, ``time`` HH:MM or HH:MM:SS; both become typed ``xsd`` literals.
* A parameter whose default is ``UNDEF`` is optional: not given, its variable is left unbound, so
  ``?position a ?phase`` then matches any phase.
* A type ending in ``*`` (``iri*``) takes a list: the variable is bound to every value at once
  (one ``VALUES`` row each), so a question about many games is one query, not one per game.

Internal queries (``internal/NAME.rq``, read with :func:`load_internal`) are the questions the
pages, the commands and ``kb/`` ask; they follow the same rules and are bound the same way, but they
are not canned questions: ``list_queries``/``load_query`` (the public ``/queries`` list and
``chesskb query --name``) never show them, and they are not paged unless the caller asks.

The modules of this package run the questions: ``executor`` binds a query by name and runs it on a
store (the one path ``kb/`` and the CLI read by), and ``class_counts``, ``source_statements`` and
``find`` (the pattern search, the one query written in Python) are the code that asks them.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from pyoxigraph import Literal, NamedNode

from chesskb._namespace import settle
from chesskb.kb.analysis.board_facts import pieces_key as board_pieces_key
from chesskb.kb.reading.names import name_key
from chesskb.kb.search.lookups import index_lines
from chesskb.kb.search.patterns import Pattern, PatternError, sparql_condition
from chesskb.kb.search.patterns import parse as parse_pattern
from chesskb.kb.vocab import CP_IRI, XSD

#: Every position a pattern matches, from a store's board index, or None when the index cannot say
#: (``queries.find.pattern_scan``).
Scan = Callable[[Pattern], "list[str] | None"]

settle(__name__, __path__)

_HEADER = re.compile(r"^#\s*(title|description|param)(@[a-z]{2})?:\s*(.*)$")
#: ``param@es: NAME LABEL -- HELP``: a parameter's label and help in another language.
_PARAM_IN = re.compile(r"^(\w+)\s+(.+?)(?:\s+--\s*(.*))?$")
_PARAM = re.compile(r'^(\w+)\s+(\w+\*?)(?:\s+("(?:[^"\\]|\\.)*"|\S+))?(?:\s+--\s*(.*))?$')
PARAM_TYPES = (
    "string",
    "keyword",
    "name",
    "pieces",
    "integer",
    "decimal",
    "date",
    "time",
    "iri",
    "class",
    "boolean",
    "pattern",
)
#: Paging parameters every canned query accepts (``limit=0``: every row). A page of 100 rows, as
#: Datasette shows, keeps a question about "all mate-in-one positions" fast on a million positions:
#: Oxigraph stops after the page, while sorting or sending every row grows with the knowledge base.
PAGE_PARAMS = ("limit", "offset")
DEFAULT_LIMIT = 100
#: A line ``#PAGE`` in a query says where the page's LIMIT/OFFSET go (a sorted subquery, so only
#: the page's rows are joined with the rest); without it they go at the end. Unreplaced, it is a
#: comment: the query then answers every row.
PAGE_MARKER = re.compile(r"^[ \t]*#PAGE[ \t]*$", re.MULTILINE)
#: A line ``#LOOKUPS`` in a query with a ``pattern`` parameter says where the index lookups that
#: pattern implies go (``kb.search.lookups``): at the head of the WHERE group, before the board.
LOOKUPS_MARKER = re.compile(r"^[ \t]*#LOOKUPS[ \t]*$", re.MULTILINE)


class QueryError(Exception):
    """A canned query or one of its parameters is not usable; the message says why."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: str | None = None
    help: str = ""
    #: what the form calls it (the name itself, unless a translated header line gives a label)
    label: str = ""
    #: label and help per language code, from ``param@xx:`` header lines
    translations: tuple[tuple[str, str, str], ...] = ()
    many: bool = False  # ``TYPE*``: a list of values, bound as one VALUES row each


@dataclass(frozen=True)
class CannedQuery:
    name: str
    title: str
    description: str
    text: str
    params: tuple[Param, ...] = field(default_factory=tuple)
    #: (language, title, description) from ``title@xx:``/``description@xx:`` header lines
    translations: tuple[tuple[str, str, str], ...] = ()

    def in_language(self, lang: str) -> CannedQuery:
        """This query as a page in ``lang`` shows it: title, description and each parameter's label and
        help from the header's lines in that language where it has them, English otherwise. Names,
        types, defaults and the text are the same (they are the interface)."""
        title, description = self.title, self.description
        for code, title_in, description_in in self.translations:
            if code == lang:
                title, description = title_in or title, description_in or description
        params = []
        for param in self.params:
            label, help_text = param.name, param.help
            for code, label_in, help_in in param.translations:
                if code == lang:
                    label, help_text = label_in or label, help_in or help_text
            params.append(replace(param, label=label, help=help_text))
        return replace(self, title=title, description=description, params=tuple(params))

    def bind(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Typed terms for every parameter: the given value, else the default.

        A value is text (checked and typed by :func:`to_term`) or an RDF term the caller already
        has (an IRI for ``iri``/``class``, a literal otherwise); a ``TYPE*`` parameter takes a list
        of either and is bound to a list of terms."""
        given = {k: v for k, v in (given or {}).items() if k not in PAGE_PARAMS}
        unknown = set(given) - {p.name for p in self.params}
        if unknown:
            raise QueryError(
                f"query {self.name!r} has no parameter {', '.join(sorted(unknown))}; "
                f"parameters: {', '.join(p.name for p in self.params) or 'none'}"
            )
        bound: dict[str, Any] = {}
        for param in self.params:
            raw = given.get(param.name, param.default)
            if raw is None:
                raise QueryError(f"query {self.name!r} needs parameter {param.name!r}")
            if raw == UNDEF and param.default == UNDEF:
                bound[param.name] = None  # left unbound: the query matches any value
            elif param.many:
                if isinstance(raw, (str, Literal, NamedNode)):
                    raise QueryError(f"parameter {param.name!r} of {self.name!r} takes a list of values")
                bound[param.name] = [_term(value, param) for value in raw]
            else:
                bound[param.name] = _term(raw, param)
        return bound

    def unpaged_text(
        self, given: Mapping[str, Any] | None = None, indexes: Collection[str] = (), scan: Scan | None = None
    ) -> str:
        """The query text with its patterns compiled and no page (every row); ``indexes``: the pattern
        index properties the store has (``queries.find.has_piece_index``), for the lookups; ``scan``: every
        position matching a pattern, from the store's board index (``queries.find.pattern_scan``), or None."""
        return self._with_patterns(dict(given or {}), indexes, scan)

    def paged_text(
        self, given: dict[str, str] | None = None, indexes: Collection[str] = (), scan: Scan | None = None
    ) -> str:
        """The query text with the page asked for (``limit``, default 100, 0 = all; ``offset``)."""
        given = given or {}
        text = self._with_patterns(given, indexes, scan)
        try:
            limit = int(given.get("limit", DEFAULT_LIMIT))
            offset = int(given.get("offset", 0))
        except ValueError:
            raise QueryError("limit and offset are whole numbers") from None
        if limit < 0 or offset < 0:
            raise QueryError("limit and offset are not negative")
        if re.search(r"\bLIMIT\s+\d+\s*$", text, re.IGNORECASE):
            return text
        page = ((f"LIMIT {limit}" if limit else "") + (f" OFFSET {offset}" if offset else "")).strip()
        if PAGE_MARKER.search(text):
            return PAGE_MARKER.sub(page, text)
        return f"{text.rstrip()}\n{page}\n" if page else text

    @property
    def has_pattern(self) -> bool:
        return any(param.type == "pattern" for param in self.params)

    def _with_patterns(self, given: Mapping[str, Any], indexes: Collection[str] = (), scan: Scan | None = None) -> str:
        """The text with each ``REGEX(?board, ?NAME)`` of a ``pattern`` parameter replaced by the
        pattern's compiled tests, and a ``#LOOKUPS`` line by every position the board index ``scan`` finds
        (a ``VALUES`` block holding all matches: the query's own tests and page still apply) or, when it
        finds none to give, by the index lookups the pattern implies on the store's ``indexes``
        (``kb.search.lookups``; none given: the line stays a comment and every board is tested). See the
        module docstring."""
        text = self.text
        for param in self.params:
            if param.type != "pattern":
                continue
            raw = given.get(param.name, param.default)
            if raw is None:
                raise QueryError(f"query {self.name!r} needs parameter {param.name!r}")
            try:
                pattern = parse_pattern(raw)
            except PatternError as exc:
                raise QueryError(f"parameter {param.name!r} expects a pattern: {exc}") from None
            call = re.compile(rf"REGEX\(\s*(\?[A-Za-z_][A-Za-z0-9_]*)\s*,\s*\?{param.name}\s*\)")

            def condition(match: re.Match[str], pattern: Pattern = pattern) -> str:
                return sparql_condition(pattern, board=match.group(1))

            text = call.sub(condition, text)
            found = scan(pattern) if scan is not None and LOOKUPS_MARKER.search(text) else None
            if found is not None:
                values = "  " + position_values(found)

                def positions(_match: re.Match[str], line: str = values) -> str:
                    return line

                text = LOOKUPS_MARKER.sub(positions, text, count=1)
            elif indexes and LOOKUPS_MARKER.search(text):
                lines, _repeats = index_lines(pattern, indexes)  # the query says DISTINCT itself

                def lookups(_match: re.Match[str], found: list[str] = lines) -> str:
                    return "  " + "\n  ".join(found) if found else ""

                text = LOOKUPS_MARKER.sub(lookups, text, count=1)
        return text


def position_values(positions: Sequence[str]) -> str:
    """A ``VALUES ?position`` block of these IRIs (each checked and written by pyoxigraph as an IRI term)."""
    return "VALUES ?position { " + " ".join(str(NamedNode(iri)) for iri in positions) + " }"


def _term(value: Any, param: Param) -> Literal | NamedNode:
    """``value`` as the parameter's term: a term of the right kind as it is, text through ``to_term``."""
    if isinstance(value, NamedNode):
        if param.type not in ("iri", "class"):
            raise QueryError(f"parameter {param.name!r} expects {param.type}, not an IRI")
        return value
    if isinstance(value, Literal):
        if param.type in ("iri", "class"):
            raise QueryError(f"parameter {param.name!r} expects {param.type}, not a literal")
        return value
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise QueryError(f"parameter {param.name!r} expects {param.type}, not {type(value).__name__}")
    return to_term(str(value), param)


def pieces_key(raw: str) -> str:
    """``"rp"``, ``"K R P P"`` -> ``"KRP"``: a ``pieces`` parameter checked, with its king added when
    left out, as :func:`kb.analysis.board_facts.pieces_key` stores one side's pieces."""
    letters = raw.upper().replace(" ", "")
    unknown = set(letters) - set("KQRBNP")
    if unknown or not letters:
        raise ValueError(f"{raw!r} is not a set of pieces: use the letters K Q R B N P (e.g. KRP)")
    if letters.count("K") > 1:
        raise ValueError(f"{raw!r} has more than one king")
    return board_pieces_key("K" + letters.replace("K", ""))


def to_term(raw: str, param: Param) -> Literal | NamedNode:
    try:
        if param.type == "string":
            return Literal(raw)
        if param.type == "keyword":
            return Literal(raw.strip().lower())
        if param.type == "pieces":
            return Literal(pieces_key(raw))
        if param.type == "pattern":
            pattern = parse_pattern(raw)
            if pattern.is_empty():
                raise ValueError("the pattern is empty")
            return Literal(pattern.text)
        if param.type == "integer":
            return Literal(str(int(raw)), datatype=XSD.integer)
        if param.type == "decimal":
            number = float(raw)
            if not math.isfinite(number):
                raise ValueError(f"{raw!r} is not a finite number")
            return Literal(str(number), datatype=XSD.decimal)
        if param.type == "boolean":
            return Literal("true" if raw.lower() in ("1", "true", "yes") else "false", datatype=XSD.boolean)
        if param.type == "name":
            key = name_key(raw)
            if not key:
                raise ValueError(f"{raw!r} has no letters to match a name")
            return Literal(key)
        if param.type == "date":
            return Literal(dt.date.fromisoformat(raw.strip()).isoformat(), datatype=XSD.date)
        if param.type == "time":
            numbers = [int(x) for x in raw.strip().split(":")]
            if len(numbers) > 3:
                raise ValueError(f"{raw!r} is not HH:MM or HH:MM:SS")
            hour, minute, second = numbers + [0] * (3 - len(numbers))
            return Literal(dt.time(hour, minute, second).isoformat(), datatype=XSD.time)
        if param.type == "class":
            name = raw.split("#")[-1]
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name):
                raise ValueError(f"{raw!r} is not a class name")
            return NamedNode(CP_IRI + name)
        if param.type == "iri":
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|^`\\]*", raw):
                raise ValueError(f"{raw!r} is not an absolute IRI")
            return NamedNode(raw)
    except (ValueError, OverflowError) as exc:  # OverflowError: a time of 20 digits (datetime's C ints)
        raise QueryError(f"parameter {param.name!r} expects {param.type}: {exc}") from None
    raise QueryError(f"parameter {param.name!r} has unknown type {param.type!r}")


def parse_canned_query(name: str, text: str) -> CannedQuery:
    title, description, params = name, "", []
    translated: dict[str, list[str]] = {}  # language -> [title, description]
    param_lines: dict[str, list[tuple[str, str, str]]] = {}  # parameter -> (language, label, help)
    for line in text.splitlines():
        match = _HEADER.match(line.strip())
        if not match:
            if line.strip() and not line.strip().startswith("#"):
                break
            continue
        key, lang, value = match.groups()
        if lang:
            _translated_line(name, key, lang[1:], value.strip(), translated, param_lines)
        elif key == "title":
            title = value.strip()
        elif key == "description":
            description = (description + " " + value.strip()).strip()
        else:
            param = _PARAM.match(value.strip())
            if not param or param.group(2).rstrip("*") not in PARAM_TYPES:
                raise QueryError(f"{name}.rq: bad param line {value!r}")
            default = param.group(3)
            if default is not None and default.startswith('"'):
                default = default[1:-1].replace('\\"', '"')
            kind = param.group(2)
            params.append(
                Param(
                    param.group(1),
                    kind.rstrip("*"),
                    default,
                    (param.group(4) or "").strip(),
                    label=param.group(1),
                    many=kind.endswith("*"),
                )
            )
    unknown = set(param_lines) - {p.name for p in params}
    if unknown:
        raise QueryError(f"{name}.rq: translated lines for unknown parameter(s) {', '.join(sorted(unknown))}")
    params = [replace(p, translations=tuple(param_lines.get(p.name, ()))) for p in params]
    return CannedQuery(
        name,
        title,
        description,
        text,
        tuple(params),
        tuple((lang, t, d) for lang, (t, d) in sorted(translated.items())),
    )


def _translated_line(
    name: str,
    key: str,
    lang: str,
    value: str,
    translated: dict[str, list[str]],
    param_lines: dict[str, list[tuple[str, str, str]]],
) -> None:
    """One ``title@xx``/``description@xx``/``param@xx`` header line, added to what it translates."""
    if key == "param":
        param = _PARAM_IN.match(value)
        if not param:
            raise QueryError(f"{name}.rq: bad param@{lang} line {value!r} (NAME LABEL -- HELP)")
        param_lines.setdefault(param.group(1), []).append(
            (lang, param.group(2).strip(), (param.group(3) or "").strip())
        )
        return
    entry = translated.setdefault(lang, ["", ""])
    if key == "title":
        entry[0] = value
    else:
        entry[1] = (entry[1] + " " + value).strip()


#: The default of an optional parameter: when not given, its variable stays unbound (``VALUES … UNDEF``).
UNDEF = "UNDEF"

#: The folder of internal queries (see the module docstring), beside the canned ones.
INTERNAL = "internal"


def load_internal(name: str) -> CannedQuery:
    """The internal query ``internal/NAME.rq`` (one the service, the CLI or ``kb/`` runs)."""
    return _load_internal_cached(name)


@functools.cache
def _load_internal_cached(name: str) -> CannedQuery:
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        raise QueryError(f"no internal query named {name!r}")
    entry = resources.files(__name__) / INTERNAL / f"{name}.rq"
    if not entry.is_file():
        raise QueryError(f"no internal query named {name!r}")
    return parse_canned_query(name, entry.read_text(encoding="utf-8"))


def list_internal() -> list[CannedQuery]:
    """Every internal query (for tests and the structure check; never shown publicly)."""
    folder = resources.files(__name__) / INTERNAL
    return sorted(
        (load_internal(entry.name[:-3]) for entry in folder.iterdir() if entry.name.endswith(".rq")),
        key=lambda q: q.name,
    )


def list_queries() -> list[CannedQuery]:
    files = resources.files(__name__)
    return sorted(
        (
            parse_canned_query(entry.name[:-3], entry.read_text(encoding="utf-8"))
            for entry in files.iterdir()
            if entry.name.endswith(".rq")
        ),
        key=lambda q: q.name,
    )


def load_query(name: str) -> CannedQuery:
    """The canned query ``NAME.rq``; ``QueryError`` naming the known ones if there is none.

    A query is run as the CLI and the web app run it: the page in the text, the parameters as
    typed bindings (the default when not given).

    >>> query = load_query("positions-by-tactic")
    >>> query.title, [(param.name, param.type, param.default) for param in query.params]
    ('Positions of a tactic', [('tactic', 'class', 'DoubleAttack')])
    >>> from chesskb.kb.vocab import CP
    >>> query.bind({"tactic": "MateInOne"}) == {"tactic": CP.MateInOne}
    True
    >>> query.paged_text({"limit": "10"}).rstrip().splitlines()[-1]
    'LIMIT 10'
    >>> import tempfile
    >>> from chesskb.kb.store import open_store
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = open_store(folder.name + "/store")   # empty: no rows, but a real run
    >>> list(store.query(query.paged_text({}), bindings=query.bind({"tactic": "MateInOne"})))
    []
    >>> store.close(); folder.cleanup()
    >>> try:
    ...     load_query("no-such-query")
    ... except QueryError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    no canned query named 'no-such-query'; known: annotated-by, class-hierarchy-counts, ...
    """
    return _load_query_cached(name)


@functools.cache
def _load_query_cached(name: str) -> CannedQuery:
    """Read and parsed once per process, as the internal queries are (the files are package data; a
    name that is no query raises, and an exception is not cached)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
        raise QueryError(f"no canned query named {name!r}")
    entry = resources.files(__name__) / f"{name}.rq"
    if not entry.is_file():
        known = ", ".join(q.name for q in list_queries())
        raise QueryError(f"no canned query named {name!r}; known: {known}")
    return parse_canned_query(name, entry.read_text(encoding="utf-8"))
