"""The knowledge base as a static site: the service's own pages, saved as files with relative links.

The original program's whole output was a folder of web pages; ``chesskb site`` gives a teacher the
same thing, but linked and merged: it walks the running app (Flask's test client, no server) from
the home page through every link it serves — the theme tree, class pages, position, game, player,
event and source pages, courses, board images, scripts and styles, in English and Spanish — saves
each answer as a file, and rewrites the links between them to relative paths, so the folder works
from disk (``file://``) or from any web server. Solving works because the exercise pages carry
their solution line as embedded JSON and ``solve.js`` needs nothing else.

What a static folder cannot do is left out and unlinked: the SPARQL endpoint, the canned-query
pages and search (they take input), and the RDF alternates of each page. The ``.owl`` export is
written beside the pages instead (``chesskb.owl``), for Protégé.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import deque
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from flask import Flask

from chesskb.kb.safe_output import write_inside

#: Paths the site does not contain (they need a server or user input); links to them are dropped.
DYNAMIC_PREFIXES = ("/sparql", "/queries", "/search", "/page.json", "/index.json", "/courses.json")
_LINK = re.compile(r'(href|src)="([^"#]*)(#[^"]*)?"')
_KEEP_TYPES = {
    "text/html": ".html",
    "image/svg+xml": ".svg",
    "text/css": ".css",
    "text/javascript": ".js",
    "application/javascript": ".js",
}


def file_for(url: str, media_type: str) -> str:
    """The site-relative file for an app URL: readable for paths, a digest for query strings."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    extension = _KEEP_TYPES.get(media_type, "")
    if path.startswith("/static/"):
        return path.lstrip("/")
    query = sorted(parse_qsl(parts.query))
    lang = dict(query).get("lang")
    others = [(k, v) for k, v in query if k != "lang"]
    if path == "/":
        stem = "index"
    elif path in ("/page", "/board.svg"):
        stem = ("resource/" if path == "/page" else "board/") + hashlib.sha1(repr(others).encode()).hexdigest()[:16]
        others = []
    else:
        stem = path.strip("/")
    if others:
        stem += "-" + "-".join(re.sub(r"[^A-Za-z0-9]+", "", f"{k}{v}") for k, v in others)
    if lang and lang != "en":
        stem += f".{lang}"
    return stem if stem.endswith(extension) else stem + extension


def _same_file(url: str) -> str:
    """What makes two URLs one file of the site (``file_for`` without the extension the answer's media
    type adds): ``/page?iri=X`` and ``/page?iri=X&lang=en`` (the Spanish page's language switch) are the
    same English page, which the crawl renders once, not once per spelling."""
    return file_for(url, "")


def _in_any_language(url: str) -> tuple[str, list[tuple[str, str]]]:
    """A URL without its ``lang``: the page whatever its language. A page's twin in the other language
    is asked right after it, while the query answers the two share (a page's data, the titles of what
    it lists: the language only changes how they are written) are still in the app's result cache,
    which a crawl in plain breadth-first order outran (about 500 answers kept)."""
    parts = urlsplit(url)
    return unquote(parts.path), sorted((k, v) for k, v in parse_qsl(parts.query) if k != "lang")


def _wanted(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return False
    if parts.path.startswith(DYNAMIC_PREFIXES) or parts.path.endswith(".json"):
        return False
    query = dict(parse_qsl(parts.query))
    return "format" not in query


def build_site(
    app: Flask, out_dir: Path, *, extra: dict[str, str] | None = None, progress: Callable[[int], None] | None = None
) -> int:
    """Crawl ``app`` from ``/`` and write every page to ``out_dir``; returns the number of files.

    ``extra`` maps app URLs to files the caller writes itself (the ``.owl`` export), so links to
    them are kept."""
    app.config["STATIC_SITE"] = True
    client = app.test_client()
    out_dir.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = dict(extra or {})  # url -> site-relative file
    pages: dict[str, bytes] = {}  # file -> HTML awaiting link rewriting
    fetched: dict[str, str | None] = {}  # the file a URL names, without its extension -> the file written
    queue: deque[str] = deque(["/", "/classes", "/courses"])
    seen = set(queue) | set(files)
    while queue:
        url = queue.popleft()
        same = _same_file(url)
        if same in fetched:  # another spelling of a page already asked (``?lang=en``, the parameters' order)
            if (written := fetched[same]) is not None:
                files[url] = written
            continue
        fetched[same] = None
        response = client.get(url, headers={"Accept": "text/html"})
        media_type = (response.mimetype or "").lower()
        if response.status_code != 200 or media_type not in _KEEP_TYPES:
            continue
        target = file_for(url, media_type)
        files[url] = fetched[same] = target
        body = response.get_data()
        if media_type == "text/html":
            pages[target] = body
            here, path = _in_any_language(url), url.split("?", 1)[0]
            for match in _LINK.finditer(body.decode("utf-8")):
                link = _html_unescape(match.group(2))
                if not link or not _wanted(link):
                    continue
                twin = link.split("?", 1)[0] == path and _in_any_language(link) == here
                if twin and _same_file(link) not in fetched:
                    queue.appendleft(link)  # the same page in another language: next, even if queued already
                elif link not in seen:
                    queue.append(link)
                seen.add(link)
        else:
            write_inside(out_dir, target, body)
        if progress is not None:
            progress(len(files))
    for target, body in pages.items():
        write_inside(out_dir, target, _relative_links(body.decode("utf-8"), target, files).encode("utf-8"))
    return len(set(files.values()))


def _relative_links(html: str, current: str, files: dict[str, str]) -> str:
    here = os.path.dirname(current)

    def replace(match: re.Match[str]) -> str:
        attribute, link, fragment = match.group(1), _html_unescape(match.group(2)), match.group(3) or ""
        if link in files:
            return f'{attribute}="{os.path.relpath(files[link], here or ".")}{fragment}"'
        if link.startswith("/") and not urlsplit(link).netloc:
            return f'{attribute}="#"' if attribute == "href" else match.group(0)  # needs a server
        return match.group(0)

    html = re.sub(r'<link rel="alternate"[^>]*>\s*', "", html)  # RDF alternates need the server
    html = _LINK.sub(replace, html)
    # A link to something only the server has (JSON, RDF formats, owl:Class) becomes its text.
    return re.sub(r'<a ([^>]*?)href="#"([^>]*)>(.*?)</a>', r"<span \1\2>\3</span>", html, flags=re.S)


def _html_unescape(text: str) -> str:
    return text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')
