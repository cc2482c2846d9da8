"""Where the store is and what the individuals' IRIs start with when no option says: the environment
variables and their defaults.

A leaf module (the standard library only), so ``chesskb --help`` can show them without loading the store
or the IRI minter (``kb.store`` and ``kb.mapping.iris`` re-export these names).
"""

from __future__ import annotations

import os

#: The store's location: a directory (embedded Oxigraph) or a SPARQL endpoint URL.
STORE_ENV = "CHESSKB_STORE"
DEFAULT_STORE = "./chesskb-store"
#: The base of every individual's IRI (``kb.mapping.iris``).
BASE_IRI_ENV = "CHESSKB_BASE_IRI"
DEFAULT_BASE_IRI = "https://w3id.org/chesskb/id/"


def default_store_location() -> str:
    return os.environ.get(STORE_ENV) or DEFAULT_STORE


def default_base_iri() -> str:
    return os.environ.get(BASE_IRI_ENV) or DEFAULT_BASE_IRI
