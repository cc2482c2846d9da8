"""Every kind of Spanish page speaks Spanish: no interface string is left in English.

The pages are rendered by the real service over a store built by the real importer (puzzles, games,
an event with players, the openings and both shipped courses). What counts as "English interface
text" is taken from the interface itself, never listed here: every value of the English catalogue
(``service/i18n.py``) that differs from its Spanish one, and every English title, description and
parameter help of the canned queries (``queries/*.rq``) that has a Spanish line. Data (names, labels,
tags as the sources write them) is not interface text and is not checked; neither is code
(``<code>``, ``<pre>``, the SPARQL text). The strings handed to the pages' scripts (JSON islands with
``strings``) are checked too, so what the scripts say (solving, playing on, authoring) is Spanish.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar
from urllib.parse import quote

import pytest

from chesskb.queries import list_queries
from chesskb.service.i18n import STRINGS
from tests.conftest import DATA, run_cli, web_app
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("spanish") / "store"
    files = [
        DATA / "lichess" / "puzzles.csv",
        DATA / "pychess" / "mate_in_2.pgn",
        DATA / "games" / "kasparov-deep-blue-1997.pgn",
        DATA / "openings" / "seed-001-openings.pgn",
    ]
    result = run_cli("import", *map(str, files), store=path)
    assert result.exit_code == 0, result.output
    for course in sorted((DATA / "courses").glob("*.yaml")):
        result = run_cli("course", "import", str(course), store=path)
        assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def client(store):
    app = web_app(store, AUTHOR_TOKEN="teacher", QUERY_WORKERS=0)
    return app.test_client()


# --- what English interface text looks like -----------------------------------------------------


def _pattern(text: str) -> re.Pattern[str]:
    """A catalogue value as a regular expression: each ``{placeholder}`` stands for any text."""
    parts = re.split(r"\{[a-z]+\}", text)
    return re.compile(r".+?".join(re.escape(part) for part in parts))


def english_interface() -> list[tuple[str, re.Pattern[str], bool]]:
    """(where it comes from, pattern, whole text only). Values the two languages share ("ECO", "SPARQL",
    "no") are not English-only. A value of one or two words must be the whole text of a node to count
    (a player called "Black", "checkmate in one move" in a definition are not "mate in {n}"); longer
    ones count anywhere in a node."""
    found = []
    for key, english in STRINGS["en"].items():
        if english == STRINGS["es"][key] or len(re.sub(r"\{[a-z]+\}", "", english).strip()) < 3:
            continue
        short = len(re.sub(r"\{[a-z]+\}", "", english).split()) <= 2
        found.append((f"i18n {key}", _pattern(english), short))
    for query in list_queries():
        spanish = query.in_language("es")
        if spanish.title != query.title:
            found.append((f"{query.name} title", re.compile(re.escape(query.title)), True))
        if spanish.description != query.description:
            found.append((f"{query.name} description", re.compile(re.escape(query.description)), False))
        for english_param, spanish_param in zip(query.params, spanish.params, strict=True):
            if english_param.help and spanish_param.help != english_param.help:
                found.append(
                    (f"{query.name} {english_param.name} help", re.compile(re.escape(english_param.help)), True)
                )
    return found


ENGLISH = english_interface()


class Texts(HTMLParser):
    """The text a reader meets: text nodes and the attributes read aloud or shown (title, alt,
    placeholder, aria-label, button values); and the JSON islands' strings. Not checked: code, the
    cells of a query's answer (``table.results``: data), and an element whose ``lang`` the page sets
    from a literal's language tag (a label the knowledge base has only in English)."""

    SKIP: ClassVar[set[str]] = {"script", "style", "code", "pre", "textarea"}
    VOID: ClassVar[set[str]] = {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []  # (tag, inside something not checked)
        self.texts: list[str] = []
        self.islands: list[str] = []
        self._island = False
        self._results = 0

    def _skipping(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        data_lang = tag != "html" and values.get("lang", "es") != "es"  # <html lang> is the page's own
        skip = self._skipping() or tag in self.SKIP or data_lang or (tag == "td" and self._results > 0)
        if not skip:
            for name in ("title", "alt", "placeholder", "aria-label"):
                if values.get(name):
                    self.texts.append(values[name])
            if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
                self.texts.append(values["value"])
        if tag == "table" and "results" in (values.get("class") or "").split():
            self._results += 1
        if tag not in self.VOID:
            self.stack.append((tag, skip))
        self._island = tag == "script" and values.get("type") == "application/json"

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._results and any(t == "table" for t, _ in self.stack):
            self._results = max(0, self._results - 1)
        while self.stack and self.stack.pop()[0] != tag:
            pass
        self._island = False

    def handle_data(self, data: str) -> None:
        if self._island:
            self.islands.append(data)
        elif not self._skipping() and data.strip():
            self.texts.append(" ".join(data.split()))


def island_strings(island: str) -> list[str]:
    """Every string under a ``strings`` key of a JSON island (what the page's script will say)."""
    found: list[str] = []

    def walk(value, under_strings: bool) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, under_strings or key == "strings")
        elif isinstance(value, list):
            for item in value:
                walk(item, under_strings)
        elif isinstance(value, str) and under_strings:
            found.append(value)

    walk(json.loads(island), False)
    return found


#: Words that make a sentence English (none of them is a Spanish word).
ENGLISH_WORDS = {"the", "and", "is", "are", "with", "your", "this", "from", "of", "to", "it", "not", "by"}


def page_texts(body: str) -> list[str]:
    parser = Texts()
    parser.feed(body)
    return parser.texts + [text for island in parser.islands for text in island_strings(island)]


def untranslated(spanish: str, english: str) -> list[str]:
    """Sentences the Spanish page shows exactly as its English twin does (so never translated): text
    of three words or more with English grammar words in it. Catches what no catalogue holds."""
    twin = set(page_texts(english))
    return [
        f"same as in English: {text[:100]!r}"
        for text in page_texts(spanish)
        if text in twin
        and len(text.split()) >= 3
        and ENGLISH_WORDS & {word.lower() for word in re.findall(r"[A-Za-z]+", text)}
    ]


def english_in(body: str) -> list[str]:
    texts = page_texts(body)
    hits = []
    for text in texts:
        bare = text.strip(" :.·—→←()").strip()
        for where, pattern, whole in ENGLISH:
            if (pattern.fullmatch(bare) or pattern.fullmatch(text)) if whole else pattern.search(text):
                hits.append(f"{where}: {text[:100]!r}")
    return hits


def spanish_page(client, path: str, status: int = 200) -> str:
    response = client.get(path + ("&" if "?" in path else "?") + "lang=es", headers=BROWSER)
    assert response.status_code == status, (path, response.status_code)
    assert response.mimetype == "text/html", path
    body = response.get_data(as_text=True)
    assert '<html lang="es">' in body, path
    return body


def links(body: str, prefix: str) -> list[str]:
    return [href.replace("&amp;", "&") for href in re.findall(r'href="(' + re.escape(prefix) + r'[^"]*)"', body)]


def individual(client, sparql: str) -> str:
    answer = client.get(
        "/sparql", query_string={"query": sparql}, headers={"Accept": "application/sparql-results+json"}
    ).get_json()
    return answer["results"]["bindings"][0]["x"]["value"]


# --- the walk --------------------------------------------------------------------------------------


def page_paths(client) -> list[tuple[str, int]]:
    """One page of every kind, found by following the site's own links or asking the store."""
    home = spanish_page(client, "/")
    classes = spanish_page(client, "/classes")
    class_page = spanish_page(client, "/class/MateInOne")
    exercise_from_class = next(link for link in links(class_page, "/page?iri=") if "from=class" in link)
    courses = spanish_page(client, "/courses")
    course = links(courses, "/course/")[0]
    chapter_exercise = next(link for link in links(spanish_page(client, course), "/page?iri=") if "from=course" in link)
    kasparov = '?g cp:hasPlayerWhite ?w . ?w cp:name ?n FILTER(CONTAINS(?n, "Kasparov"))'
    game = individual(client, f"SELECT ?x WHERE {{ ?g a cp:Match . {kasparov} BIND(?g AS ?x) }} LIMIT 1")
    player = individual(client, f"SELECT ?x WHERE {{ {kasparov} BIND(?w AS ?x) }} LIMIT 1")
    event = individual(client, f"SELECT ?x WHERE {{ ?x a cp:Event ; cp:eventOf ?g . {kasparov} }} LIMIT 1")
    source = client.get("/queries/sources.json").get_json()["rows"][0]["source"]["value"]
    assert home and classes
    paths = [
        ("/", 200),
        ("/classes", 200),
        ("/class/MateInOne", 200),
        (exercise_from_class, 200),
        ("/class/PositionBegin", 200),
        ("/courses", 200),
        (course, 200),
        (chapter_exercise, 200),
        ("/page?iri=" + quote(game, safe=""), 200),
        ("/page?iri=" + quote(player, safe=""), 200),
        ("/page?iri=" + quote(event, safe=""), 200),
        ("/page?iri=" + quote(source, safe=""), 200),
        ("/search?q=Kasparov", 200),
        ("/search?q=horquilla", 200),
        ("/find", 200),
        ("/find?pattern=kg8+R*7", 200),
        ("/author", 200),
        ("/sparql", 200),
        ("/queries", 200),
        ("/no-such-page", 404),
        ("/page", 400),
        ("/class/NoSuchClass", 404),
    ]
    paths += [(f"/queries/{query.name}", 200) for query in list_queries()]
    return paths


def test_every_kind_of_spanish_page_has_no_english_interface_text(client):
    leaks = {}
    for path, status in page_paths(client):
        body = spanish_page(client, path, status)
        twin = client.get(path, headers=BROWSER).get_data(as_text=True)
        hits = english_in(body) + untranslated(body, twin)
        if hits:
            leaks[path] = sorted(set(hits))
    assert not leaks, json.dumps(leaks, indent=1, ensure_ascii=False)


def test_the_checker_finds_english_where_there_is_some(client):
    """The same walk in English finds the English strings (so the check above can fail)."""
    response = client.get("/queries/positions-of-player", headers=BROWSER)
    hits = english_in(response.get_data(as_text=True))
    assert any("positions-of-player title" in hit for hit in hits), hits
    assert any("i18n run" in hit for hit in hits), hits
    author = english_in(client.get("/author", headers=BROWSER).get_data(as_text=True))
    assert any("author_heading" in hit for hit in author), author


def test_spanish_query_pages_show_the_spanish_header_lines_and_keep_the_interface(client):
    """Titles, descriptions and parameter labels come from the ``@es`` lines; the parameters' names
    (the URL), the JSON and the answers stay as they are."""
    for query in list_queries():
        spanish = query.in_language("es")
        assert spanish.title != query.title and spanish.description != query.description, query.name
        body = spanish_page(client, f"/queries/{query.name}")
        from html import escape

        assert f"<h1>{escape(spanish.title)}</h1>" in body, query.name
        for param in spanish.params:
            assert f'name="{param.name}"' in body and escape(param.label) in body, (query.name, param.name)
    # a label cell shows its position's title in Spanish, composed from data (the JSON keeps the stored label)
    answer = client.get("/queries/mate-in-one.json").get_json()
    puzzles = [row["label"]["value"] for row in answer["rows"] if " — lichess puzzle " in row["label"]["value"]]
    assert puzzles
    body = spanish_page(client, "/queries/mate-in-one")
    assert "lichess puzzle" not in body
    assert f">problema de lichess {puzzles[0].rsplit(' ', 1)[1]}<" in body
    listing = client.get("/queries.json?lang=es").get_json()
    assert {item["name"]: item["title"] for item in listing} == {q.name: q.title for q in list_queries()}
    english = client.get("/queries/positions-of-player.json").get_json()
    spanish = client.get("/queries/positions-of-player.json?lang=es").get_json()
    assert english["rows"] == spanish["rows"] and english["params"] == spanish["params"]


def test_translated_header_lines_are_checked_and_change_nothing_else():
    """A Spanish line for a parameter the query does not declare is an error naming the file; the
    English header, the parameters and the text read the same with or without the Spanish lines."""
    from chesskb.queries import QueryError, parse_canned_query

    english = (
        "# title: Games of a year\n# description: Games played in a year.\n"
        "# param: year integer 2010 -- the year\nSELECT ?match ?year WHERE { ?match cp:year ?year }\n"
    )
    both = english.replace(
        "# param:",
        "# title@es: Partidas de un año\n# description@es: Partidas jugadas en un\n# description@es: año.\n# param:",
        1,
    ).replace("-- the year\n", "-- the year\n# param@es: year año -- el año\n", 1)
    plain, translated = parse_canned_query("q", english), parse_canned_query("q", both)
    assert (plain.title, plain.description, plain.params[0].help) == (
        translated.title,
        translated.description,
        translated.params[0].help,
    )
    shape = [(p.name, p.type, p.default) for p in plain.params]
    assert shape == [(p.name, p.type, p.default) for p in translated.params] == [("year", "integer", "2010")]
    spanish = translated.in_language("es")
    assert (spanish.title, spanish.description) == ("Partidas de un año", "Partidas jugadas en un año.")
    assert (spanish.params[0].name, spanish.params[0].label, spanish.params[0].help) == ("year", "año", "el año")
    assert plain.in_language("es").title == "Games of a year"  # no Spanish line: the English one
    with pytest.raises(QueryError, match=r"q\.rq: .*unknown parameter.*month"):
        parse_canned_query("q", english.replace("# param:", "# param@es: month mes -- el mes\n# param:"))
