"""The library, one sub-package per pipeline stage (README, "Layout"); import it as ``chesskb.kb``."""

from chesskb._namespace import settle

settle(__name__, __path__)
