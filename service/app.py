"""The Flask application factory: ``create_app(config)`` plus one blueprint per area.

Blueprints are listed in ``blueprints()``, imported by name: a missing or broken module stops the app
at start instead of silently dropping its pages. Each area lives in its own module
(``service/sparql.py``, ``service/canned.py``, ``service/pages.py`` …). The only state on the app is
the store handle (``app.extensions["chesskb.store"]``).
"""

from __future__ import annotations

import os
from typing import Any

from flask import Blueprint, Config, Flask

from chesskb.kb.defaults import default_base_iri
from chesskb.kb.store import Store, default_store_location, open_store

from .errors import register_error_handlers
from .executor import PooledReader
from .headers import security_headers
from .i18n import register_language
from .result_cache import ResultCache


def blueprints() -> tuple[Blueprint, ...]:
    """The blueprints, in the order they are registered. Imported here, not at the top, so the CLI
    (which reads ``SETTINGS``) starts without loading every page."""
    from . import authoring, browse, canned, courses, find, judge, pages, play, site_files, sparql, train

    return (
        sparql.bp,
        canned.bp,
        pages.bp,
        browse.bp,
        courses.bp,
        authoring.bp,
        play.bp,
        find.bp,
        site_files.bp,
        train.bp,
        judge.bp,
    )


#: Named settings with their defaults (each can be given in ``config`` or as CHESSKB_<NAME>) and what
#: they bound; ``chesskb serve --help`` shows the same text, and an error caused by a bound names it.
SETTINGS: dict[str, tuple[Any, str]] = {
    "STORE": (None, "store path or SPARQL endpoint URL"),
    "UPDATE_ENDPOINT": (None, "SPARQL Update URL of a remote store"),
    "GRAPH_STORE": (None, "Graph Store Protocol URL of a remote store (derived for Oxigraph)"),
    "BASE_IRI": (None, "base IRI of individuals"),
    "QUERY_TIMEOUT": (20.0, "seconds a query may run before it is stopped (503)"),
    "MAX_RESULT_BYTES": (64 << 20, "largest serialised query result; a larger one fails with 507, never cut"),
    "ROW_LIMIT": (0, "rows a SELECT may return before it fails with 507; 0 = no row cap"),
    "QUERY_MAX_NESTING": (
        500,
        "brackets plus chaining operators a query may nest (400 beyond; Oxigraph's parser "
        "crashes its process past about 1,000); 0 = no bound",
    ),
    "QUERY_WORKERS": (3, "processes running /sparql queries (each killed on timeout; 0 = none, for offline builds)"),
    "PAGE_WORKERS": (3, "processes running the pages' and canned questions' queries"),
    "CLIENT_QUERIES": (2, "queries one client address may run at once in each lane (/sparql: 429 beyond; pages wait)"),
    "LANE_RESERVE": (1, "workers of each lane kept for visitors whose network (/24, /64) runs nothing there"),
    "CLIENT_COST": (
        10.0,
        "worker-seconds an address may use lately (half-life 10 s) before it runs one query "
        "at a time in a lane; 0 = off",
    ),
    "QUERY_BACKOFF": (
        10.0,
        "seconds an address waits after a query of its ran to the time limit or crashed its "
        "worker (429 meanwhile), doubling per such query in a row up to 5 minutes",
    ),
    "FAILED_QUERY_TTL": (
        300.0,
        "seconds a query that ran to the time limit is answered 503 at once, without a worker (per store generation)",
    ),
    "CANNED_MAX_ROWS": (
        10000,
        "rows a canned question answers on the web for limit=0 or a larger limit "
        "(507 beyond; page with limit and offset)",
    ),
    "QUERY_QUEUE": (16, "queries that may wait for a worker at once (503 beyond)"),
    "QUERY_QUEUE_WAIT": (5.0, "seconds a query waits for a free worker before 503"),
    "UPDATE_TOKEN": (None, "bearer token that allows SPARQL Update; off when unset"),
    "ALLOW_SERVICE": (False, "allow federated SERVICE queries to other hosts"),
    "ALLOW_UNISOLATED": (
        False,
        "serve even where query workers cannot be cut off from the network (the "
        "SERVICE filter is then the only guard); off: the server refuses to start",
    ),
    "WORKER_MEMORY": (
        1 << 30,
        "address space in bytes one query worker may use; a query past it fails (507); 0 = no cap",
    ),
    "WORKER_NICE": (
        5,
        "how far below the server's the query workers' CPU priority is (a nice increment, 0-19; 0 = the same): "
        "the server accepts, reads and answers visitors first while workers run others' long queries",
    ),
    "WORKER_DEMOTE_AFTER": (
        1.0,
        "seconds a query may compute at the workers' priority; past it its worker drops to the lowest CPU "
        "priority (nice 19) until it ends, so runaways take only what visitors' short queries leave; 0 = never",
    ),
    "MAX_BODY_BYTES": (1 << 20, "largest request body, refused by its Content-Length before it is read (413)"),
    "AUTHOR_TOKEN": (None, "token for the teachers' authoring pages; off when unset (16 characters or more)"),
    "AUTHOR_TOKEN_DELAY": (
        1.0,
        "seconds an address waits after a wrong authoring token (429 meanwhile), "
        "doubling per further wrong token up to 5 minutes",
    ),
    "CONNECTION_LIMIT": (1000, "open connections the server keeps (idle ones count)"),
    "CLIENT_CONNECTIONS": (
        64,
        "open connections one client address may hold (more are closed as they are accepted); "
        "0 = only CONNECTION_LIMIT",
    ),
    "CLIENT_REFUSAL": (
        0.1,
        "seconds an address at its CLIENT_CONNECTIONS, with no idle connection to cut, or answered 429 by a "
        "query lane, or asking again for a query remembered to run to the limit, has its new connections "
        "refused unseen (IPv4: dropped by the kernel, the client's TCP retries after 1 s)",
    ),
    "CHANNEL_TIMEOUT": (15, "seconds an idle connection, or one still sending its request, is kept open"),
    "PLAY_ELO": (1350, "default engine strength for 'Play on' (clamped to the engine's range)"),
    "PLAY_MOVETIME": (0.2, "seconds of engine time per reply in 'Play on'"),
    "PLAY_ENGINES": (1, "engine processes serving 'Play on' (one request each at a time)"),
    "PLAY_WAIT": (5.0, "seconds a 'Play on' request waits for a free engine before 503"),
    "PLAY_ENGINE_START": (10.0, "seconds a 'Play on' engine may take to start and answer before 503"),
    "PLAY_QUEUE": (4, "'Play on' requests waiting for a free engine at once (503 with Retry-After beyond)"),
    "PLAY_CLIENT_MOVES": (1, "'Play on' requests one client address has in progress at once (429 beyond)"),
    "PLAY_RATE": (60, "'Play on' requests per client address per minute, with or without an engine reply (429 beyond)"),
    "PLAY_SEATS": (4, "games played on at once; a learner already playing keeps a seat, a newcomer beyond gets 503"),
    "PLAY_SEAT_IDLE": (120.0, "seconds without a 'Play on' request after which a game's seat is freed"),
    "PLAY_MAX_PLIES": (600, "longest game 'Play on' accepts"),
    "RESULT_CACHE_BYTES": (64 << 20, "bytes of query answers kept for pages asked again (least recently used go)"),
}
DEFAULT_SETTINGS: dict[str, Any] = {name: default for name, (default, _) in SETTINGS.items()}

#: The environment variables' prefix: ``CHESSKB_QUERY_TIMEOUT=5`` is the setting ``QUERY_TIMEOUT``.
ENV_PREFIX = "CHESSKB"


def _setting(name: str, config: dict[str, Any], environment: Config) -> Any:
    """``name`` from ``config``, else from the environment read as the type of its default, else the default."""
    if name in config:
        return config[name]
    text = environment.get(name)
    default = DEFAULT_SETTINGS[name]
    if text is None:
        return default
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(default, float):
        return float(text)
    if isinstance(default, int):
        return int(text)
    return text


def environment_setting(name: str) -> Any:
    """A setting outside the web app (the ``chesskb`` commands): ``CHESSKB_<NAME>``, else its default."""
    return _setting(name, {}, _environment())


def _environment() -> Config:
    """Every ``CHESSKB_*`` variable, as text (Flask's reading; each setting's default says how to parse it)."""
    environment = Config(root_path=os.getcwd())
    environment.from_prefixed_env(ENV_PREFIX, loads=str)
    return environment


def create_app(config: dict[str, Any] | None = None, *, store: Store | None = None) -> Flask:
    """Build the app. ``store`` may be given directly (tests); otherwise it is opened from config."""
    config = dict(config or {})
    app = Flask(__name__)
    environment = _environment()
    for name in DEFAULT_SETTINGS:
        app.config[name] = _setting(name, config, environment)
    app.config["STORE"] = app.config["STORE"] or default_store_location()
    app.config["BASE_IRI"] = app.config["BASE_IRI"] or default_base_iri()
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    app.extensions["chesskb.store"] = store or open_store(
        app.config["STORE"], update_endpoint=app.config["UPDATE_ENDPOINT"], graph_store=app.config["GRAPH_STORE"]
    )
    # answers kept until the store's generation changes, within RESULT_CACHE_BYTES; time-outs for FAILED_QUERY_TTL
    app.extensions["chesskb.results"] = ResultCache(
        failed_ttl=float(app.config["FAILED_QUERY_TTL"]), max_bytes=int(app.config["RESULT_CACHE_BYTES"])
    )
    app.extensions["chesskb.reader"] = PooledReader()  # what pages query: the pages lane of the executor
    register_error_handlers(app)
    register_language(app)
    app.after_request(security_headers)
    for blueprint in blueprints():
        app.register_blueprint(blueprint)
    return app
