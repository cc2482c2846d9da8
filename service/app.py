"""The Flask application factory: ``create_app(config)`` plus one blueprint per area.

Blueprints are listed in ``BLUEPRINTS`` (module path -> attribute); each area lives in its own
module (``service/sparql.py``, ``service/canned.py``, ``service/pages.py`` …). The only state on
the app is the store handle (``app.extensions["chesskb.store"]``).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from flask import Flask

from kb.iris import default_base_iri
from kb.store import Store, default_store_location, open_store

from .result_cache import ResultCache
from .errors import register_error_handlers

#: Blueprint modules, registered in this order when the module exists.
BLUEPRINTS: tuple[str, ...] = (
    "service.sparql",
    "service.canned",
    "service.pages",
    "service.browse",
    "service.courses",
    "service.authoring",
    "service.find",
)

#: Named settings with their defaults (each can be given in ``config`` or as CHESSKB_<NAME>).
DEFAULT_SETTINGS: dict[str, Any] = {
    "STORE": None,                 # store path or SPARQL endpoint URL
    "UPDATE_ENDPOINT": None,       # SPARQL Update URL of a remote store
    "GRAPH_STORE": None,           # Graph Store Protocol URL of a remote store (derived for Oxigraph)
    "BASE_IRI": None,              # base IRI of individuals
    "QUERY_TIMEOUT": 20.0,         # seconds before a query is stopped (503)
    "ROW_LIMIT": 10000,            # rows returned before a result is cut with a notice
    "QUERY_WORKERS": 2,            # processes that run SPARQL queries (each can be killed on timeout)
    "UPDATE_TOKEN": None,          # bearer token that allows SPARQL Update; off when unset
    "ALLOW_SERVICE": False,        # federated SERVICE queries to other hosts
    "MAX_BODY_BYTES": 1 << 20,     # largest request body accepted
    "AUTHOR_TOKEN": None,          # token for the teachers' authoring pages; off when unset
}


def _setting(name: str, config: dict[str, Any]) -> Any:
    if name in config:
        return config[name]
    env = os.environ.get(f"CHESSKB_{name}")
    default = DEFAULT_SETTINGS[name]
    if env is None:
        return default
    if isinstance(default, bool):
        return env.lower() in ("1", "true", "yes")
    if isinstance(default, float):
        return float(env)
    if isinstance(default, int):
        return int(env)
    return env


def create_app(config: dict[str, Any] | None = None, *, store: Store | None = None) -> Flask:
    """Build the app. ``store`` may be given directly (tests); otherwise it is opened from config."""
    config = dict(config or {})
    app = Flask(__name__)
    for name in DEFAULT_SETTINGS:
        app.config[name] = _setting(name, config)
    app.config["STORE"] = app.config["STORE"] or default_store_location()
    app.config["BASE_IRI"] = app.config["BASE_IRI"] or default_base_iri()
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    app.extensions["chesskb.store"] = store or open_store(app.config["STORE"],
                                                          update_endpoint=app.config["UPDATE_ENDPOINT"],
                                                          graph_store=app.config["GRAPH_STORE"])
    app.extensions["chesskb.results"] = ResultCache()  # answers kept until the store's generation changes
    register_error_handlers(app)
    for module_name in BLUEPRINTS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        app.register_blueprint(module.blueprint)
    return app


def get_store(app: Flask | None = None) -> Store:
    from flask import current_app

    return (app or current_app).extensions["chesskb.store"]
