"""ChessPosition KB: a semantic-web knowledge base of didactic chess positions.

The installed distribution is this one package. The repository keeps the client's folders at its top
(``kb/``, ``service/``, ``queries/``, ``ontology/``); ``pyproject.toml`` maps them to
``chesskb.kb``, ``chesskb.service``, ``chesskb.queries`` and ``chesskb.ontology``, so nothing but
``chesskb`` lands at the top of site-packages (``queries`` and ``service`` are other projects' names).
"""

from __future__ import annotations

#: The one place the version is written; pyproject.toml reads it (``dynamic = ["version"]``).
__version__ = "0.2.0"
