"""How many individuals each class has, counted once per write instead of once per question.

Counting the members of every class means walking every ``rdf:type`` statement: about 0.2 µs
each on Oxigraph, so over a second at a million positions (five or six types each, the inferred
superclasses included). The theme tree page, the home page and the ``class-hierarchy-counts``
question all ask for these numbers, and the knowledge base only changes by imports and removals.
So every import and removal counts inside its write and keeps the numbers in a graph of their own
(``graph/_counts``), as ``cp:memberCount`` annotations on the classes; readers look them up.

The counts are over the default graph, the merge of all sources: a position two sources share
is counted once, and a class's count includes its subclasses (superclass types are stored).
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.analysis.themes import THEME_CLASSES
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store.base import Derive, Queryable, Replacement, StoreView
from chesskb.kb.vocab import CP, XSD, text_of
from chesskb.queries.executor import rows as rows_of
from chesskb.queries.executor import select

#: The classes counted: the class tree under Position (the theme classes and Exercise, which
#: ``class-hierarchy-counts`` lists with them) and the individuals a game brings (courses are not counted:
#: they are few, and a course import should not pay for a count of the whole knowledge base).
COUNTED_CLASSES: tuple[str, ...] = (*THEME_CLASSES, "Exercise", "Match", "Player", "Event", "Board", "Source")


def count_members(store: Queryable) -> dict[str, int]:
    """Members per counted class (classes without members are left out), by one scan of the types."""
    counted = set(COUNTED_CLASSES)
    counts: dict[str, int] = {}
    # ``member-counts-distinct`` is for a store whose default graph is a multiset union of graphs
    # (``merge_is_a_set = False``: a remote store's view of a write in progress, a ``FROM`` list),
    # where a type two graphs state would be counted twice. The stores' own default graph is a set,
    # and DISTINCT would cost there.
    name = "member-counts" if getattr(store, "merge_is_a_set", True) else "member-counts-distinct"
    for row in select(store, name):
        iri = row["class"].value
        class_name = CP.name_of(iri)
        if class_name in counted:
            counts[class_name] = int(row["n"].value)
    return counts


def count_quads(counts: dict[str, int], graph: NamedNode) -> list[Quad]:
    return [
        Quad(CP.term(name), CP.memberCount, Literal(str(n), datatype=XSD.integer), graph)
        for name, n in sorted(counts.items())
    ]


def derive_class_counts(base_iri: str | None = None) -> Derive:
    """The recount as a ``derive`` step of a write: the counts graph is rewritten, when the numbers
    changed, in the same atomic step as the data they count (never a generation in between)."""
    graph = IriMinter(base_iri).counts_graph

    def recount(view: StoreView) -> Replacement | None:
        quads = count_quads(count_members(view), graph)
        wanted = {(text_of(q.subject), text_of(q.object)) for q in quads}
        present = {(text_of(q.subject), text_of(q.object)) for q in view.quads([graph])}
        return Replacement([graph], quads) if wanted != present else None

    return recount


def stored_counts(store: Queryable) -> dict[str, int] | None:
    """The counts kept by the last write, or ``None`` for a store written before they were kept."""
    rows = rows_of(store, "stored-member-counts")
    if not rows:
        return None
    return {name: int(row["n"].value) for row in rows if (name := CP.name_of(row["class"])) is not None}


def member_counts(store: Queryable) -> dict[str, int]:
    """Members per counted class, the one answer every reader uses (home page, theme tree, class
    pages, ``chesskb stats``): the counts the last write kept, else (a store written before they
    were kept) one scan of the types by the same rule as the write's (``count_members``)."""
    stored = stored_counts(store)
    return stored if stored is not None else count_members(store)
