"""Any SPARQL 1.1 server as the store: queries through SPARQLWrapper, writes through SPARQL Update.

The conventions are the embedded store's (``embedded.py``), so every command works the same way:
each source is a named graph, and the server's *default graph* holds the merge (a set) of all named
graphs, which is what queries read. (Start the server with its ordinary default graph, not a
"union default graph" option: the merge is written explicitly.) Virtuoso's default graph is that
union and cannot be written: there the merge is the named graph ``MERGE_GRAPH``, given to every
query as its default graph (``default-graph-uri``) and written where others write the default graph.

Writing an import — atomicity
    1. Every graph the write touches gets a *staging* graph (``<graph>#staging-<token>``) holding its
       whole new content: a graph that is only added to, or loses some subjects (the meta graph), is
       first copied there on the server (``ADD``); the new statements are loaded in batches, with the
       Graph Store Protocol when the server offers it (``--graph-store URL``, or derived for an
       Oxigraph server: ``…/store``), else with ``INSERT DATA`` requests of ``BATCH_TRIPLES``.
       Queries do not see staging graphs' content in the default graph, so nothing is visible yet.
    2. The ``derive`` steps (links between players, class counts, an appended source's description)
       read the knowledge base as the write will leave it — the staging graphs in place of the
       graphs they replace, given as the query's dataset — and stage their graphs the same way.
    3. One SPARQL Update request then removes the replaced graphs (and their triples from the default
       graph unless another graph still asserts them), copies the staging graphs into the default
       graph, and moves them to their real names: data, links and counts in one request. On a
       server that runs one update request as one transaction (Oxigraph, Apache Jena Fuseki with
       TDB2, GraphDB) the switch is atomic: a query sees the old knowledge base or the new one, and
       a failure leaves the old one. Virtuoso commits large updates in parts (its log-mode); there
       the switch is not atomic.
    If steps 1 or 2 fail, the staging graphs are dropped and the store is as it was. A process
    killed before step 3 leaves staging graphs behind; the next write drops them.

Layout
    This store writes the earlier layout of ``kb/store/layout.py``: every statement in its graph *and*
    in the default graph (which decodes the same as the compact layout the embedded store writes, so
    every reader works on both). ``chesskb convert`` writes the same layout, so a server loaded from
    its file and then written here stays in one layout: this writer on compact data would leave a
    removed source's common statements in the merge and credit one source's statements to another.
    The compact layout needs more than a new switch: the ``derive`` steps read the write's result
    as a ``FROM`` list of the final named graphs, and in the compact layout the common statements
    (names, dates: what linking reads) are in the default graph only, which a ``FROM`` list cannot
    name. A compact writer needs the merge as it will be, e.g. a staging copy of the default graph
    (a cost proportional to the knowledge base on every write), or derive steps that read the live
    default graph with the write's changes applied; ``tests/test_remote_layout.py`` is its test.

Query results come back as pyoxigraph's own result objects (parsed from the W3C JSON format; graph
results through an in-memory store), so the service and the CLI format them with the same code for
both backends.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Literal

from pyoxigraph import BlankNode, NamedNode, Quad, QueryResultsFormat, RdfFormat, parse_query_results
from pyoxigraph import Store as MemoryStore
from SPARQLWrapper import JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed, SPARQLWrapperException

from chesskb.kb.store.base import (
    Derive,
    QueryResult,
    QuerySyntaxError,
    QueryTimedOut,
    SerializedBatch,
    Statement,
    StoreBusy,
    StoreError,
    Term,
    iter_quads,
    rdf_bytes,
)
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.results import solutions
from chesskb.kb.vocab import PREFIXES

#: Triples staged per round (one Graph Store Protocol POST per graph when the server has it).
BATCH_TRIPLES = 5_000
#: Triples per ``INSERT DATA`` request otherwise (Virtuoso compiles each request to SQL of bounded
#: size and refuses 5,000 triples at once).
DATA_TRIPLES = 1_000
#: Triples per ``INSERT {…} WHERE {}`` request (statements with blank nodes).
TEMPLATE_TRIPLES = 200
#: Bytes of N-Triples per Graph Store Protocol POST.
BATCH_BYTES = 8 << 20
STAGING = "#staging-"
#: Where the merge lives on a server without a writable default graph (Virtuoso): a named graph that
#: every query reads as its default graph (the Protocol's ``default-graph-uri``).
MERGE_GRAPH = "urn:x-chesskb:merge"
#: Where, on Virtuoso, the store lists its graphs (``<graph> a GRAPH_CLASS``): Virtuoso answers
#: ``GRAPH ?g {}`` with nothing, and finding the graphs from the statements scans them all (67 s at
#: 576k quads, bench/README.md), which every import and every ``GRAPH ?g`` query would pay.
REGISTRY_GRAPH = "urn:x-chesskb:graphs"
GRAPH_CLASS = "urn:x-chesskb:Graph"
#: Graphs a Virtuoso server keeps for itself (its own schemas and settings), never ours.
SERVER_GRAPHS = ("http://www.openlinksw.com/", "http://www.w3.org/ns/ldp#", "http://localuriqaserver/")
_FROM = re.compile(r"\bFROM\s+(?:NAMED\s+)?<", re.IGNORECASE)
_GRAPH_VARIABLE = re.compile(r"\bGRAPH\s+[?$]", re.IGNORECASE)
_FORM = re.compile(r"^\s*(?:(?:PREFIX|BASE)[^\n]*\n\s*|#[^\n]*\n\s*)*(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)
_PROLOGUE = "".join(f"PREFIX {prefix}: <{iri}>\n" for prefix, iri in PREFIXES.items())


class RemoteStore:
    """A SPARQL 1.1 server: ``location`` is its query URL, ``update_endpoint`` its update URL (the
    query URL when not given), ``graph_store`` its Graph Store Protocol URL (optional).

    ``merge_graph`` names the graph that holds the merge when the server's default graph cannot be
    written (Virtuoso's is the union of all graphs): ``None`` uses the default graph, and when not
    given the server is asked once (its ``Server`` header names Virtuoso: ``MERGE_GRAPH``)."""

    def __init__(
        self,
        location: str,
        *,
        update_endpoint: str | None = None,
        graph_store: str | None = None,
        merge_graph: str | Literal["detect"] | None = "detect",
    ) -> None:
        self.location = location
        self.update_endpoint = update_endpoint or location
        self._graph_store = graph_store
        self._write_mutex = threading.RLock()
        self._merge_graph = merge_graph

    @property
    def graph_store(self) -> str | None:
        """The Graph Store Protocol URL: as given, else derived for Oxigraph (``…/store``) and
        Virtuoso (``…/sparql-graph-crud``, which takes writes when SPARQL updates are granted)."""
        if self._graph_store is not None:
            return self._graph_store or None
        if self.merge_graph is not None and self.location.endswith("/sparql"):
            return self.location + "-graph-crud"
        return _oxigraph_graph_store(self.location)

    @property
    def merge_graph(self) -> NamedNode | None:
        """The named graph holding the merge, or ``None`` when it is the server's default graph."""
        if self._merge_graph == "detect":
            self._merge_graph = MERGE_GRAPH if _is_virtuoso(self.location) else None
        return NamedNode(self._merge_graph) if self._merge_graph else None

    # -- reading ------------------------------------------------------------------------------------
    def query(
        self,
        sparql: str,
        *,
        bindings: Mapping[str, Term] | None = None,
        timeout: float | None = None,
        default_graphs: list[str] | None = None,
        named_graphs: list[str] | None = None,
        base_iri: str | None = None,
    ) -> QueryResult:
        text = (f"BASE {NamedNode(base_iri)}\n" if base_iri else "") + _PROLOGUE + with_values(sparql, bindings or {})
        merge = self.merge_graph
        if merge is not None and default_graphs is None and named_graphs is None and not _FROM.search(sparql):
            # The merge is the query's default graph; GRAPH ?g must reach our graphs only, not the
            # merge (a second copy of everything) nor the server's own, so they are listed.
            default_graphs = [merge.value]
            named_graphs = [g.value for g in self.named_graphs()] if _GRAPH_VARIABLE.search(sparql) else None
        return self._query(text, timeout=timeout, default_graphs=default_graphs, named_graphs=named_graphs)

    def _query(
        self,
        text: str,
        *,
        timeout: float | None = None,
        default_graphs: list[str] | None = None,
        named_graphs: list[str] | None = None,
    ) -> QueryResult:
        """Send ``text`` (prologue and values already in it) with the dataset as given."""
        form = _FORM.match(text)
        kind = form.group(1).upper() if form else "SELECT"
        wrapper = SPARQLWrapper(self.location)
        wrapper.setQuery(text)
        # SPARQLWrapper guesses the query form with a regular expression that a word like
        # "cp:sideToMove" fools into "MOVE" (an update); we know the form, so we say it.
        wrapper.queryType = kind
        wrapper.setMethod(POST)
        for graph in default_graphs or ():  # the Protocol's dataset, passed on as given
            wrapper.addDefaultGraph(graph)
        for graph in named_graphs or ():
            wrapper.addNamedGraph(graph)
        if timeout:
            wrapper.setTimeout(int(timeout) + 1)
        if kind in ("CONSTRUCT", "DESCRIBE"):
            wrapper.addCustomHttpHeader("Accept", "application/n-triples")
        else:
            wrapper.setReturnFormat(JSON)
        try:
            body = wrapper.query().response.read()
        except QueryBadFormed as exc:
            raise QuerySyntaxError(_server_message(exc)) from exc
        except (SPARQLWrapperException, urllib.error.URLError, OSError) as exc:
            if timeout and _timed_out(exc):
                raise QueryTimedOut(
                    f"the SPARQL server at {self.location} did not answer within {timeout:g} s"
                ) from exc
            raise StoreError(f"the SPARQL server at {self.location} failed: {_server_message(exc)}") from exc
        if kind in ("CONSTRUCT", "DESCRIBE"):
            received = MemoryStore()
            received.load(body, format=RdfFormat.N_TRIPLES)
            return received.query("CONSTRUCT WHERE { ?s ?p ?o }")
        return parse_query_results(_valid_blank_labels(body), format=QueryResultsFormat.JSON)

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        wanted = list(graphs) if graphs is not None else None
        values = ("VALUES ?g { " + " ".join(str(g) for g in wanted) + " } ") if wanted else ""
        if wanted is not None and not wanted:
            return
        rows = solutions(self.query(f"SELECT ?s ?p ?o ?g WHERE {{ {values}GRAPH ?g {{ ?s ?p ?o }} }}"))
        for row in rows:
            if self._ours(row["g"].value):
                yield Quad(row["s"], row["p"], row["o"], row["g"])

    def named_graphs(self) -> list[NamedNode]:
        return [graph for graph in self._all_graphs() if self._ours(graph.value)]

    def _all_graphs(self) -> list[NamedNode]:
        """Every graph on the server, staging graphs and the server's own included."""
        if self.merge_graph is None:
            rows = solutions(self._query(_PROLOGUE + "SELECT ?g WHERE { GRAPH ?g {} }"))  # the names, not the graphs
        else:  # the registry (REGISTRY_GRAPH)
            rows = solutions(self._query(f"SELECT ?g WHERE {{ GRAPH <{REGISTRY_GRAPH}> {{ ?g a <{GRAPH_CLASS}> }} }}"))
        return [row["g"] for row in rows]

    def _ours(self, graph: str) -> bool:
        """Whether ``graph`` is one of the knowledge base's graphs (not staging, the merge, the server's)."""
        merge = self.merge_graph
        if merge is not None and (graph in (merge.value, REGISTRY_GRAPH) or graph.startswith(SERVER_GRAPHS)):
            return False
        return STAGING not in graph

    def close(self) -> None:
        pass

    # -- writing ------------------------------------------------------------------------------------
    def update(self, request: str) -> None:
        """Send one SPARQL Update request (one transaction on transactional servers)."""
        wrapper = SPARQLWrapper(self.location, updateEndpoint=self.update_endpoint)
        wrapper.setMethod(POST)
        wrapper.setQuery(request)
        try:
            wrapper.query()
        except (SPARQLWrapperException, urllib.error.URLError, OSError) as exc:
            raise StoreError(
                f"the SPARQL server at {self.update_endpoint} refused an update: {_server_message(exc)}"
            ) from exc

    def writing(self, wait: float = -1) -> AbstractContextManager[None]:
        """Serialise the writes of this process (a SPARQL server has no lock another process of
        ours could see: two processes writing one server at once are not excluded)."""
        return self._writing(wait)

    @contextmanager
    def _writing(self, wait: float) -> Iterator[None]:
        if not self._write_mutex.acquire(timeout=wait):
            raise StoreBusy(f"another save is writing to {self.location}; nothing was changed, try again")
        try:
            yield
        finally:
            self._write_mutex.release()

    def replace_graphs(
        self,
        remove: Iterable[NamedNode],
        quads: Iterable[Statement],
        *,
        remove_subjects: Iterable[tuple[NamedNode, NamedNode]] = (),
        derive: Sequence[Derive] = (),
    ) -> None:
        """Stage ``quads``, apply ``derive`` to the staged state, then switch everything in one
        update request (see the module doc)."""
        with self.writing():
            self._drop_leftover_staging()
            write = _Write(self, secrets.token_hex(6), [g.value for g in self.named_graphs()], self.merge_graph)
            try:
                write.replace(list(remove), list(remove_subjects))
                self._stage(quads, write)
                for step in derive:
                    change = step(_StagedView(self, write))
                    if change is not None:
                        write.replace(list(change.remove), list(change.remove_subjects))
                        self._stage(change.quads, write)
                self.update(" ;\n".join(write.switch_operations()))
            except BaseException:
                self._drop_staging(write.replaced, write.token)
                raise

    def _stage(self, statements: Iterable[Statement], write: _Write) -> None:
        """Load ``statements`` into the staging graphs. With a Graph Store endpoint, the workers'
        serialised batches are posted as they are (joined up to ``BATCH_BYTES`` per graph): no
        statement becomes a Python object in this process. Without one, everything goes as quads."""
        quads = self._post_serialized(statements, write) if self.graph_store else iter_quads(statements)
        batch: dict[str, list[Quad]] = defaultdict(list)
        size = 0
        for quad in quads:
            graph = quad.graph_name
            if not isinstance(graph, NamedNode):
                raise StoreError("a remote store only takes statements in named graphs")
            batch[graph.value].append(quad)
            size += 1
            if size >= BATCH_TRIPLES and not _has_blank(quad):  # a blank-node structure (a list) stays in one request
                self._send(batch, write)
                batch, size = defaultdict(list), 0
        if batch:
            self._send(batch, write)

    def _post_serialized(self, statements: Iterable[Statement], write: _Write) -> Iterator[Quad]:
        """Post the serialised batches' N-Triples to their staging graphs; yield the single quads."""
        joined: dict[str, list[bytes]] = defaultdict(list)
        sizes: dict[str, int] = defaultdict(int)

        def post(graph: str) -> None:
            self._post_graph(write.staging(graph), b"".join(joined.pop(graph)))
            sizes.pop(graph)

        for item in statements:
            if not isinstance(item, SerializedBatch):
                yield item
                continue
            for graph, data in item.graphs.items():
                joined[graph].append(data)
                sizes[graph] += len(data)
                if sizes[graph] >= BATCH_BYTES:
                    post(graph)
        for graph in list(joined):
            post(graph)

    def _send(self, batch: dict[str, list[Quad]], write: _Write) -> None:
        for graph, quads in batch.items():
            staging = write.staging(graph)
            triples = rdf_bytes([quad.triple for quad in quads], RdfFormat.N_TRIPLES)
            if self.graph_store:
                self._post_graph(staging, triples)
            elif any(_has_blank(q) for q in quads):
                # INSERT DATA may hold blank nodes (SPARQL 1.1), but Virtuoso refuses them there;
                # an INSERT template with an empty WHERE means the same and every server takes it
                # (in small pieces: Virtuoso compiles a template to SQL of bounded size).
                for piece in _pieces(quads, TEMPLATE_TRIPLES):
                    text = rdf_bytes([quad.triple for quad in piece], RdfFormat.N_TRIPLES).decode()
                    self.update(f"INSERT {{ GRAPH {staging} {{ {text} }} }} WHERE {{}}")
            else:
                for piece in _pieces(quads, DATA_TRIPLES):
                    text = rdf_bytes([quad.triple for quad in piece], RdfFormat.N_TRIPLES).decode()
                    self.update(f"INSERT DATA {{ GRAPH {staging} {{ {text} }} }}")

    def _post_graph(self, graph: NamedNode, ntriples: bytes) -> None:
        endpoint = self.graph_store
        if endpoint is None:  # the callers ask first
            raise StoreError(f"the SPARQL server at {self.location} has no Graph Store endpoint")
        separator = "&" if "?" in endpoint else "?"
        url = f"{endpoint}{separator}graph={urllib.parse.quote(graph.value, safe='')}"
        request = urllib.request.Request(
            url, data=ntriples, method="POST", headers={"Content-Type": "application/n-triples"}
        )
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                response.read()
        except (urllib.error.URLError, OSError) as exc:
            raise StoreError(f"the Graph Store endpoint {endpoint} refused the data: {exc}") from exc

    def _drop_staging(self, staged: Iterable[str], token: str | None = None) -> None:
        graphs = [NamedNode(g + STAGING + token) for g in staged] if token else []
        try:
            if graphs:
                self._drop(graphs)
            else:
                self._drop_leftover_staging()
        except StoreError:
            pass  # the server is gone; the next write drops what is left

    def _drop_leftover_staging(self) -> None:
        leftovers = [graph for graph in self._all_graphs() if STAGING in graph.value]
        if leftovers:
            self._drop(leftovers)

    def _drop(self, graphs: list[NamedNode]) -> None:
        """Drop ``graphs`` and take them off the registry, in one request."""
        self.update(" ;\n".join([f"DROP SILENT GRAPH {g}" for g in graphs] + self.unregister_operations(graphs)))

    def unregister_operations(self, graphs: Iterable[NamedNode]) -> list[str]:
        """The operations that take ``graphs`` off the registry (none where there is no registry)."""
        if self.merge_graph is None:
            return []
        return [f"DELETE DATA {{ GRAPH <{REGISTRY_GRAPH}> {{ {g} a <{GRAPH_CLASS}> }} }}" for g in graphs]


class _Write:
    """One write in progress: which graphs it replaces, each by a staging graph holding the whole
    content the graph will have (a graph that is added to, or loses some subjects, is first copied
    into its staging graph on the server, so the switch can drop and replace every graph it
    touches the same way)."""

    def __init__(self, store: RemoteStore, token: str, existing: list[str], merge: NamedNode | None) -> None:
        self.store = store
        self.token = token
        self.existing = set(existing)
        self.replaced: set[str] = set()
        self.merge = merge

    def name(self, graph: str) -> NamedNode:
        return NamedNode(graph + STAGING + self.token)

    def staging(self, graph: str) -> NamedNode:
        """The staging graph of ``graph``, holding its current content if it was not replaced yet."""
        if graph not in self.replaced:
            self._mark(graph)
            if graph in self.existing:
                self.store.update(f"ADD SILENT {NamedNode(graph)} TO {self.name(graph)}")
        return self.name(graph)

    def _mark(self, graph: str) -> None:
        """``graph`` is replaced by this write; where the store keeps a registry, its staging graph
        is listed there first, so a killed write's leftovers are found and dropped."""
        if graph in self.replaced:
            return
        self.replaced.add(graph)
        if self.merge is not None:
            self.store.update(f"INSERT DATA {{ GRAPH <{REGISTRY_GRAPH}> {{ {self.name(graph)} a <{GRAPH_CLASS}> }} }}")

    def replace(self, remove: list[NamedNode], remove_subjects: list[tuple[NamedNode, NamedNode]]) -> None:
        """Empty the graphs ``remove`` and drop the (subject, graph) statements, in staging."""
        operations = []
        for graph in remove:
            operations.append(f"DROP SILENT GRAPH {self.name(graph.value)}")
            self._mark(graph.value)
        for subject, graph in remove_subjects:
            operations.append(f"DELETE WHERE {{ GRAPH {self.staging(graph.value)} {{ {subject} ?p ?o }} }}")
        if operations:
            self.store.update(" ;\n".join(operations))

    def graphs(self) -> dict[str, NamedNode]:
        """Every named graph as the switch will leave it: its name -> where its content is now."""
        final = {graph: NamedNode(graph) for graph in self.existing if graph not in self.replaced}
        final.update({graph: self.name(graph) for graph in self.replaced})
        return final

    def switch_operations(self) -> list[str]:
        """The one update request: drop every replaced graph (and its triples from the merge unless
        another graph, staging included, still asserts them), then move each staging graph to its
        name and into the merge."""
        removed = set(self.replaced)
        operations: list[str] = []
        for graph in sorted(self.replaced & self.existing):
            operations.append(_forget_from_merge(f"GRAPH {NamedNode(graph)} {{ ?s ?p ?o }}", removed, self.merge))
            operations.append(f"DROP SILENT GRAPH {NamedNode(graph)}")
        for graph in sorted(self.replaced):
            operations.append(f"ADD SILENT {self.name(graph)} TO {self.merge or 'DEFAULT'}")
            operations.append(f"ADD SILENT {self.name(graph)} TO {NamedNode(graph)}")
            operations.append(f"DROP SILENT GRAPH {self.name(graph)}")
        if self.merge is not None:  # the registry: a replaced graph is listed when it holds something
            for graph in sorted(self.replaced):
                operations.extend(self.store.unregister_operations([NamedNode(graph), self.name(graph)]))
                listed = f"GRAPH <{REGISTRY_GRAPH}> {{ {NamedNode(graph)} a <{GRAPH_CLASS}> }}"
                holds = f"SELECT ?s WHERE {{ GRAPH {NamedNode(graph)} {{ ?s ?p ?o }} }} LIMIT 1"
                operations.append(f"INSERT {{ {listed} }} WHERE {{ {{ {holds} }} }}")
        return operations


class _StagedView:
    """The knowledge base as a write in progress will leave it, read on the server before the
    switch (for ``derive`` steps). Queries are ours: each names graphs by IRI, and the view rewrites
    a replaced graph's IRI to its staging graph and gives the dataset (``FROM`` / ``FROM NAMED``)
    explicitly, so the default graph is the merge of the graphs as they will be."""

    #: A ``FROM`` list's default graph repeats a triple once per graph stating it (``queries.class_counts``).
    merge_is_a_set = False

    def __init__(self, store: RemoteStore, write: _Write) -> None:
        self.store = store
        self.location = store.location
        self.final = write.graphs()

    def query(
        self, sparql: str, *, bindings: Mapping[str, Term] | None = None, timeout: float | None = None
    ) -> QueryResult:
        for graph, actual in self.final.items():
            if actual.value != graph:
                sparql = sparql.replace(str(NamedNode(graph)), str(actual))
        dataset = "".join(f"FROM {g} FROM NAMED {g} " for g in self.final.values())
        where = re.search(r"\bWHERE\b", sparql, re.IGNORECASE)
        if where is None:
            raise StoreError("a derive query needs a WHERE clause")
        sparql = sparql[: where.start()] + dataset + sparql[where.start() :]
        return self.store.query(sparql, bindings=bindings, timeout=timeout)

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        for graph in graphs if graphs is not None else self.named_graphs():
            actual = self.final.get(graph.value)
            if actual is None:
                continue
            for row in solutions(self.store.query(f"SELECT ?s ?p ?o WHERE {{ GRAPH {actual} {{ ?s ?p ?o }} }}")):
                yield Quad(row["s"], row["p"], row["o"], graph)

    def named_graphs(self) -> list[NamedNode]:
        return [NamedNode(graph) for graph in sorted(self.final)]


def _has_blank(quad: Quad) -> bool:
    return isinstance(quad.subject, BlankNode) or isinstance(quad.object, BlankNode)


def _pieces(quads: list[Quad], size: int) -> Iterator[list[Quad]]:
    """``quads`` in pieces of about ``size``, cut only before a statement without blank nodes, so a
    blank-node structure (an RDF list) is never split between two requests."""
    piece: list[Quad] = []
    for quad in quads:
        if len(piece) >= size and not _has_blank(quad):
            yield piece
            piece = []
        piece.append(quad)
    if piece:
        yield piece


def _forget_from_merge(pattern: str, removed: set[str], merge: NamedNode | None = None) -> str:
    """Delete from the merge (the default graph, or ``merge``) the triples ``pattern`` finds that no
    graph outside ``removed`` (staging graphs included: they hold the new content) still asserts."""
    kept_apart = sorted(removed | ({merge.value} if merge else set()))
    others = " && ".join(f"?other != {NamedNode(graph)}" for graph in kept_apart)  # IRIs written by pyoxigraph
    keep = f"FILTER NOT EXISTS {{ GRAPH ?other {{ ?s ?p ?o }} {f'FILTER({others})' if others else ''} }}"
    target = f"GRAPH {merge} {{ ?s ?p ?o }}" if merge else "?s ?p ?o"
    return f"DELETE {{ {target} }} WHERE {{ {pattern} {keep} }}"


def _oxigraph_graph_store(location: str) -> str | None:
    """Oxigraph's server answers queries at ``/query`` and the Graph Store Protocol at ``/store``."""
    return location[: -len("/query")] + "/store" if location.rstrip("/").endswith("/query") else None


def _valid_blank_labels(body: bytes) -> bytes:
    """The JSON results with blank node labels a parser takes: Virtuoso labels them ``nodeID://b10006``
    (a label only names a node within one result, so any one-to-one relabelling says the same)."""
    if b'"bnode"' not in body:
        return body
    document = json.loads(body)
    for row in document.get("results", {}).get("bindings", ()):
        for term in row.values():
            if term.get("type") == "bnode":
                term["value"] = "b" + term["value"].encode().hex()
    return json.dumps(document).encode()


def _is_virtuoso(location: str) -> bool:
    """Whether the server at ``location`` is Virtuoso (its ``Server`` header says so on any answer)."""
    request = urllib.request.Request(
        location + ("&" if "?" in location else "?") + "query=ASK%7B%7D",
        headers={"Accept": "application/sparql-results+json"},
    )
    server: str
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            server = response.headers.get("Server", "")
    except urllib.error.HTTPError as exc:
        server = exc.headers.get("Server", "")
    except (urllib.error.URLError, OSError) as exc:
        raise StoreError(f"the SPARQL server at {location} does not answer: {_server_message(exc)}") from exc
    return server.startswith("Virtuoso")


def _timed_out(exc: BaseException) -> bool:
    """Whether the HTTP request stopped at its timeout (raised as is, or as a URLError's reason)."""
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError)


def _server_message(exc: BaseException) -> str:
    text = str(exc)
    return " ".join(text.split())[:500] or type(exc).__name__
