"""The ``chesskb`` command and the web service; import it as ``chesskb.service``."""

from chesskb._namespace import settle

settle(__name__, __path__)
