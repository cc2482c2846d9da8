"""How a page shows a source's mate claim: as the source's claim, with the proof's verdict beside it.

A claim the proof left undecided or refuted is never a member of its class (``kb.analysis.claims``):
the position page lists it here, marked, and the class page lists the undecided ones apart from the
proven members. The claim is read from ``cp:claimStatus`` by the one reader of that text
(``kb.analysis.claims.read_claim_status``).
"""

from __future__ import annotations

from typing import TypedDict

from chesskb.kb.analysis.claims import read_claim_status
from chesskb.kb.analysis.proof import Verdict
from chesskb.kb.vocab import CP

from .i18n import strings
from .links import link_for, prop_label

#: The interface string that names each verdict.
STATUS_KEYS = {"proven": "claim_proven", "refuted": "claim_refuted", "undecided": "claim_undecided"}


class _ClaimViewKeys(TypedDict):
    text: str
    claim: str | None  # the claimed class's name (MateInTwo …); None for a text that is no claim status
    class_label: str
    class_url: str | None
    moves: int | None
    status: Verdict | None
    status_label: str


class ClaimView(_ClaimViewKeys, total=False):
    """A claim in a page's data and its JSON twin; ``exact`` (the proven length, or None) only for a claim."""

    exact: int | None


def claim_view(text: str, lang: str) -> ClaimView:
    """One claim as pages and their JSON twins give it; a text that is no claim status is shown as it is."""
    claim = read_claim_status(text)
    if claim is None:
        return {
            "text": text,
            "claim": None,
            "class_label": text,
            "class_url": None,
            "moves": None,
            "status": None,
            "status_label": "",
        }
    iri = CP.term(claim.theme).value
    return {
        "text": text,
        "claim": claim.theme,
        "class_label": prop_label(iri, lang),
        "class_url": link_for(iri),
        "moves": claim.moves,
        "status": claim.status,
        "exact": claim.exact,
        "status_label": strings(lang)[STATUS_KEYS[claim.status]],
    }
