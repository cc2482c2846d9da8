"""OWL reasoning over the knowledge base with owlready2 and HermiT (through the system Java).

A check hands the reasoner the ontology plus a set of asserted triples (one source, or several)
and asks one question: is it consistent, and which classes are unsatisfiable? When the answer is
"inconsistent", a bare exception helps nobody, so :func:`explain` narrows it down: first to a
minimal set of individuals (QuickXplain over the individuals' statements: O(k log n) reasoner runs
for k culprits among n individuals), then to the minimal statements of those individuals, and
names the ontology axioms (disjointness, functionality, ranges) that the statements break.

HermiT only accepts literals of the OWL 2 datatype map; the knowledge base keeps ``xsd:date`` and
``xsd:time`` values (SPARQL compares them), so the copy given to the reasoner carries those
literals as ``xsd:string``, and the result says how many were retyped.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize

from chesskb.kb.store.base import Term
from chesskb.kb.store.ontology_graph import ontology_quads
from chesskb.kb.vocab import CP_IRI, OWL_IRI, RDF_IRI, RDFS_IRI, XSD_IRI, text_of

if TYPE_CHECKING:
    import rdflib  # imported where used: only explanations need it

RDF_TYPE = NamedNode(RDF_IRI + "type")
RDFS_LABEL = NamedNode(RDFS_IRI + "label")
XSD_STRING = NamedNode(XSD_IRI + "string")

#: The datatypes HermiT accepts (the OWL 2 datatype map, owl2-syntax §4); others are retyped.
OWL2_DATATYPES = frozenset(
    [RDF_IRI + name for name in ("PlainLiteral", "XMLLiteral", "langString")]
    + [RDFS_IRI + "Literal", OWL_IRI + "real", OWL_IRI + "rational"]
    + [
        XSD_IRI + name
        for name in (
            "decimal",
            "integer",
            "nonNegativeInteger",
            "nonPositiveInteger",
            "positiveInteger",
            "negativeInteger",
            "long",
            "int",
            "short",
            "byte",
            "unsignedLong",
            "unsignedInt",
            "unsignedShort",
            "unsignedByte",
            "double",
            "float",
            "string",
            "normalizedString",
            "token",
            "language",
            "Name",
            "NCName",
            "NMTOKEN",
            "boolean",
            "hexBinary",
            "base64Binary",
            "anyURI",
            "dateTime",
            "dateTimeStamp",
        )
    ]
)

REASONERS = ("hermit", "pellet")

#: Above this many statements of culprit individuals, the explanation stops at the individuals
#: (minimising statements costs one reasoner run per halving).
MAX_STATEMENTS_TO_MINIMISE = 400


class JavaMissing(RuntimeError):
    """The reasoners are Java programs and no ``java`` was found."""


class ReasonerFailed(RuntimeError):
    """The reasoner stopped for a reason that is not about the data (the message is Java's)."""


@dataclass
class Verdict:
    """One reasoner run: consistent or not, unsatisfiable classes, or the reasoner's refusal."""

    consistent: bool
    unsatisfiable_classes: list[str] = field(default_factory=list)
    #: Java's message when the reasoner rejected the data itself (an ill-typed literal, say).
    rejected: str | None = None


@dataclass
class Inconsistency:
    """A minimal set of individuals that cannot all hold, with the statements and axioms involved."""

    individuals: list[dict[str, str]]
    statements: list[str]
    axioms: list[str]
    reasoner_message: str | None = None
    minimal: bool = True

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "individuals": self.individuals,
            "statements": self.statements,
            "axioms": self.axioms,
            "minimal": self.minimal,
        }
        if self.reasoner_message:
            out["reasoner_message"] = self.reasoner_message
        return out


def java_executable(purpose: str = "the reasoner") -> str:
    """The Java owlready2 will run; :class:`JavaMissing` with a clear message when there is none."""
    import owlready2

    found: str | None = shutil.which(owlready2.JAVA_EXE)  # owlready2 is untyped: JAVA_EXE is a str
    if found is None:
        raise JavaMissing(
            f"{purpose} needs Java (17 or newer for HermiT) and {owlready2.JAVA_EXE!r} "
            "is not on PATH: install a JRE (Debian: apt-get install default-jre-headless)"
        )
    return found


def reasoner_copy(triples: Iterable[Triple]) -> tuple[list[Triple], Counter[str]]:
    """The triples as HermiT will accept them: literals outside the OWL 2 datatype map become
    ``xsd:string`` (same lexical form). Returns the copy and how many literals of each datatype
    were retyped."""
    out: list[Triple] = []
    retyped: Counter[str] = Counter()
    for triple in triples:
        obj = triple.object
        if isinstance(obj, Literal) and obj.language is None and obj.datatype.value not in OWL2_DATATYPES:
            retyped[obj.datatype.value] += 1
            triple = Triple(triple.subject, triple.predicate, Literal(obj.value, datatype=XSD_STRING))
        out.append(triple)
    return out, retyped


def ontology_triples() -> list[Triple]:
    return [quad.triple for quad in ontology_quads()]


def run_reasoner(data: Sequence[Triple], *, reasoner: str = "hermit") -> Verdict:
    """Load the ontology plus ``data`` (already a reasoner copy) into a fresh owlready2 world and
    run the reasoner once."""
    import owlready2

    java_executable()
    with tempfile.TemporaryDirectory(prefix="chesskb-check-") as tmp:
        path = Path(tmp) / "kb.nt"
        with path.open("wb") as handle:
            serialize(ontology_triples(), handle, RdfFormat.N_TRIPLES)
            serialize(data, handle, RdfFormat.N_TRIPLES)
        world = owlready2.World()
        try:
            onto = world.get_ontology(path.as_uri()).load(format="ntriples")
            try:
                if reasoner == "pellet":
                    owlready2.sync_reasoner_pellet(
                        world, infer_property_values=False, infer_data_property_values=False, debug=0
                    )
                else:
                    owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
            except owlready2.OwlReadyInconsistentOntologyError:
                return Verdict(consistent=False)
            except owlready2.OwlReadyJavaError as exc:
                message = str(exc)
                if _about_the_data(message):
                    return Verdict(consistent=False, rejected=_java_reason(message))
                raise ReasonerFailed(_java_reason(message)) from None
            except FileNotFoundError as exc:  # java vanished between the check and the run
                raise JavaMissing(f"cannot run Java: {exc}") from None
            unsatisfiable = sorted(
                c.iri for c in world.inconsistent_classes() if getattr(c, "iri", "") != OWL_IRI + "Nothing"
            )
            del onto
            return Verdict(consistent=True, unsatisfiable_classes=unsatisfiable)
        finally:
            world.close()


def consistency_only(data: Sequence[Triple], *, timeout: float | None = None) -> Verdict:
    """Only "is it consistent?", asked of HermiT directly (``-k``: satisfiability of owl:Thing).

    The narrowing runs the reasoner dozens of times on parts of a source; HermiT's consistency
    test skips the classification and realisation ``sync_reasoner`` asks for (2.5x faster at 10k
    positions) and owlready2's load and save of the world. Same jar, same Java, same memory limit.
    """
    from owlready2 import reasoning

    java = java_executable()
    with tempfile.TemporaryDirectory(prefix="chesskb-check-") as tmp:
        path = Path(tmp) / "kb.nt"
        with path.open("wb") as handle:
            serialize(ontology_triples(), handle, RdfFormat.N_TRIPLES)
            serialize(data, handle, RdfFormat.N_TRIPLES)
        command = [
            java,
            f"-Xmx{reasoning.JAVA_MEMORY}M",
            "-cp",
            reasoning._HERMIT_CLASSPATH,
            "org.semanticweb.HermiT.cli.CommandLine",
            "-k",
            path.as_uri(),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ReasonerFailed(f"HermiT did not finish within {timeout:.0f} s") from None
    if done.returncode == 0 and "is satisfiable" in done.stdout:
        return Verdict(consistent=True)
    message = done.stderr or done.stdout
    if "InconsistentOntologyException" in message or "is not satisfiable" in done.stdout:
        return Verdict(consistent=False)
    if _about_the_data(message):
        return Verdict(consistent=False, rejected=_java_reason(message))
    raise ReasonerFailed(_java_reason(message))


def _about_the_data(message: str) -> bool:
    """Java errors caused by a literal in the data (ill-typed value, datatype outside OWL 2)."""
    markers = (
        "UnsupportedDatatypeException",
        "MalformedLiteral",
        "is not a valid",
        "cannot parse",
        "Cannot parse",
        "not in the lexical space",
        "lexical form",
    )
    return any(marker in message for marker in markers)


def _java_reason(message: str) -> str:
    """The informative lines of a Java error (the exception and its text, not the stack)."""
    lines = [line.strip() for line in message.splitlines()]
    kept = [line for line in lines if line and not line.startswith("at ") and "Java error message" not in line]
    return " ".join(kept)[:1000]


# --- narrowing an inconsistency down ------------------------------------------------------------

Probe = Callable[[Sequence[Triple]], Verdict]


def group_by_individual(data: Sequence[Triple]) -> tuple[list[Triple], dict[str, list[Triple]]]:
    """Split statements into background (not about a named individual) and one group per individual."""
    background: list[Triple] = []
    groups: dict[str, list[Triple]] = {}
    for triple in data:
        subject = triple.subject
        if isinstance(subject, NamedNode) and not subject.value.startswith(CP_IRI):
            groups.setdefault(subject.value, []).append(triple)
        else:
            background.append(triple)
    return background, groups


def quickxplain(items: Sequence[str], bad: Callable[[list[str]], bool]) -> list[str]:
    """A minimal subset of ``items`` for which ``bad`` holds (Junker's QuickXplain); ``bad(items)``
    must hold. Costs about 2k·log2(n/k) calls of ``bad`` for a culprit of k items out of n."""

    def explain(background: list[str], delta_nonempty: bool, candidates: list[str]) -> list[str]:
        if delta_nonempty and bad(background):
            return []
        if len(candidates) == 1:
            return list(candidates)
        half = len(candidates) // 2
        first, second = candidates[:half], candidates[half:]
        found_second = explain(background + first, bool(first), second)
        found_first = explain(background + found_second, bool(found_second), first)
        return found_first + found_second

    if bad([]):
        return []
    return explain([], False, list(items))


def explain(data: Sequence[Triple], probe: Probe, *, max_conflicts: int = 5) -> list[Inconsistency]:
    """Minimal sets of culprit individuals (up to ``max_conflicts`` disjoint ones) and, for each,
    the minimal statements and the ontology axioms they break."""
    annotations = annotation_properties()
    background, groups = group_by_individual([t for t in data if t.predicate.value not in annotations])
    labels = {
        text_of(t.subject): t.object.value for t in data if t.predicate == RDFS_LABEL and isinstance(t.object, Literal)
    }
    remaining = list(groups)
    conflicts: list[Inconsistency] = []
    messages: dict[tuple[str, ...], str | None] = {}

    def triples_of(names: Iterable[str]) -> list[Triple]:
        return background + [t for name in names for t in groups[name]]

    def bad_individuals(names: list[str]) -> bool:
        verdict = probe(triples_of(names))
        messages[tuple(names)] = verdict.rejected
        return not verdict.consistent

    while remaining and len(conflicts) < max_conflicts:
        if not bad_individuals(remaining):
            break
        culprits = quickxplain(remaining, bad_individuals)
        if not culprits:  # the background alone is inconsistent
            conflicts.append(
                Inconsistency([], [_statement(t) for t in background[:50]], [], messages.get(()), minimal=False)
            )
            break
        statements = [t for name in culprits for t in groups[name]]
        minimal = len(statements) <= MAX_STATEMENTS_TO_MINIMISE
        if minimal:
            keys = [str(i) for i in range(len(statements))]

            def bad_statements(chosen: list[str], statements: list[Triple] = statements) -> bool:
                return not probe(background + [statements[int(k)] for k in chosen]).consistent

            statements = [statements[int(k)] for k in quickxplain(keys, bad_statements)]
        final = probe(background + statements)
        conflicts.append(
            Inconsistency(
                individuals=[{"iri": name, "label": labels.get(name, "")} for name in culprits],
                statements=[_statement(t) for t in statements],
                axioms=axioms_involved(statements),
                reasoner_message=final.rejected,
                minimal=minimal,
            )
        )
        remaining = [name for name in remaining if name not in culprits]
    return conflicts


def annotation_properties() -> frozenset[str]:
    """Predicates without logical meaning (labels, provenance notes): they cannot take part in an
    inconsistency, so narrowing leaves them out and needs fewer reasoner runs."""
    import rdflib

    graph = _ontology_rdflib()
    declared = {str(s) for s in graph.subjects(rdflib.RDF.type, rdflib.OWL.AnnotationProperty)}
    return frozenset(declared | {RDFS_IRI + "label", RDFS_IRI + "comment", RDFS_IRI + "seeAlso"})


def _statement(triple: Triple) -> str:
    return f"{_term(triple.subject)} {_term(triple.predicate)} {_term(triple.object)}"


def _term(term: NamedNode | BlankNode | Literal | Triple) -> str:
    if isinstance(term, NamedNode):
        for prefix, iri in (
            ("cp:", CP_IRI),
            ("rdf:", RDF_IRI),
            ("rdfs:", RDFS_IRI),
            ("owl:", OWL_IRI),
            ("xsd:", XSD_IRI),
        ):
            if term.value.startswith(iri):
                return prefix + term.value[len(iri) :]
        return f"<{term.value}>"
    if isinstance(term, Literal):
        return f'"{term.value}"^^{_term(term.datatype)}' if term.language is None else str(term)
    return str(term)


# --- the ontology axioms a set of statements touches ----------------------------------------------


def axioms_involved(statements: Sequence[Triple]) -> list[str]:
    """The ontology axioms that the (minimal) ``statements`` break, in words for the report:
    disjoint classes the individuals fall into, functional properties given two values, datatype
    ranges a literal misses, and the domains and ranges that put an individual in a disjoint class."""
    import rdflib
    from rdflib.collection import Collection

    graph = _ontology_rdflib()
    owl = rdflib.Namespace(OWL_IRI)
    rdfs = rdflib.RDFS
    classes = {t.object.value for t in statements if t.predicate == RDF_TYPE and isinstance(t.object, NamedNode)}
    properties = {t.predicate.value for t in statements if t.predicate != RDF_TYPE}
    for prop in list(properties):  # a property's range class or domain may be what clashes
        for bound in (rdfs.range, rdfs.domain):
            for value in graph.objects(rdflib.URIRef(prop), bound):
                if isinstance(value, rdflib.URIRef):
                    classes.add(str(value))
    everything = set().union(*(_superclasses(graph, c, rdflib) for c in classes)) if classes else set()
    found: list[str] = []
    clashing: set[str] = set()
    for members_node in graph.subjects(rdflib.RDF.type, owl.AllDisjointClasses):
        members = graph.value(members_node, owl.members)
        listed = [str(m) for m in Collection(graph, members)] if members is not None else []
        hit = [m for m in listed if m in everything]
        if len(hit) >= 2:
            clashing.update(hit)
            found.append("DisjointClasses(" + " ".join(_name(m) for m in listed) + ")")
    for left, right in graph.subject_objects(owl.disjointWith):
        if str(left) in everything and str(right) in everything:
            clashing.update((str(left), str(right)))
            found.append(f"DisjointClasses({_name(str(left))} {_name(str(right))})")
    values: dict[tuple[str, str], set[Term]] = {}
    for t in statements:
        values.setdefault((text_of(t.subject), t.predicate.value), set()).add(t.object)
    for prop in sorted(properties):
        node = rdflib.URIRef(prop)
        if owl.FunctionalProperty in set(graph.objects(node, rdflib.RDF.type)) and any(
            len(objs) > 1 for (_, p), objs in values.items() if p == prop
        ):
            found.append(f"FunctionalProperty({_name(prop)})")
        literals = [t.object for t in statements if t.predicate.value == prop and isinstance(t.object, Literal)]
        for bound, word in ((rdfs.range, "Range"), (rdfs.domain, "Domain")):
            for value in graph.objects(node, bound):
                if not isinstance(value, rdflib.URIRef):
                    continue
                if str(value).startswith(XSD_IRI):
                    relevant = any(lit.datatype.value != str(value) for lit in literals)
                else:
                    relevant = bool(_superclasses(graph, str(value), rdflib) & clashing)
                if relevant:
                    found.append(f"{word}({_name(prop)} {_name(str(value))})")
    return sorted(set(found))


@lru_cache(maxsize=1)
def _ontology_rdflib() -> rdflib.Graph:
    """The ontology as an rdflib graph (read once; only explanations need it)."""
    import rdflib

    from chesskb import ontology

    return rdflib.Graph().parse(data=ontology.turtle_text(), format="turtle")


def _superclasses(graph: rdflib.Graph, iri: str, rdflib: ModuleType) -> set[str]:
    seen = {iri}
    todo = [rdflib.URIRef(iri)]
    while todo:
        node = todo.pop()
        for parent in graph.objects(node, rdflib.RDFS.subClassOf):
            if isinstance(parent, rdflib.URIRef) and str(parent) not in seen:
                seen.add(str(parent))
                todo.append(parent)
    return seen


def _name(iri: str) -> str:
    return _term(NamedNode(iri))
