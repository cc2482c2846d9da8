// The SPARQL editor (YASGUI) on /sparql. Its endpoint is the one the server wrote into the page
// (data-endpoint); an `endpoint` (or any other setting) in the page's URL is dropped before YASGUI
// reads it, and every tab is pointed back at this endpoint before each query. The page's
// Content-Security-Policy (connect-src 'self') stops any other endpoint anyway.
(function () {
  "use strict";
  const box = document.getElementById("yasgui");
  if (!box || typeof Yasgui === "undefined") return;
  const endpoint = new URL(box.dataset.endpoint, window.location.href).href;

  // Keep only the query text from a shared link (#query=… or ?query=…).
  let shared = false;
  for (const part of ["hash", "search"]) {
    const raw = window.location[part].replace(/^[#?]/, "");
    if (!raw) continue;
    const params = new URLSearchParams(raw);
    const kept = new URLSearchParams();
    if (params.has("query")) {
      kept.set("query", params.get("query"));
      shared = true;
    }
    const url = new URL(window.location.href);
    url[part] = kept.toString();
    window.history.replaceState(null, "", url.href);
  }

  // YASR's table writes each IRI into its link as it is (href='…'): an IRI holding a quote (allowed
  // in SPARQL) became an onmouseover attribute, and javascript:… a link that runs. Its result links are
  // built here instead: escaped text, and a link only for http(s) IRIs. (The CSP stops inline script
  // too; this keeps the markup clean without relying on it.)
  const Table = window.Yasr && window.Yasr.plugins && window.Yasr.plugins.table;
  if (Table) {
    const escapeHtml = (text) => String(text).replace(/[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
    Table.prototype.getUriLinkFromBinding = function (binding, prefixes) {
      const iri = String(binding.value);
      let shown = iri;
      let prefixed = false;
      for (const name of Object.keys(prefixes || {})) {
        if (iri.indexOf(prefixes[name]) === 0) {
          shown = name + ":" + iri.substring(prefixes[name].length);
          prefixed = true;
          break;
        }
      }
      const text = escapeHtml(shown);
      const newWindow = this.config && this.config.openIriInNewWindow;
      const link = /^https?:\/\//i.test(iri)
        ? '<a class="iri" href="' + escapeHtml(iri) + '"' +
          (newWindow ? ' target="_blank" rel="noopener noreferrer"' : "") + ">" + text + "</a>"
        : '<span class="iri">' + text + "</span>";
      const brackets = !(prefixed || (this.persistentConfig && this.persistentConfig.compact));
      return (brackets ? "&lt;" : "") + link + (brackets ? "&gt;" : "");
    };
  }

  const yasgui = new Yasgui(box, {
    requestConfig: { endpoint: endpoint, method: "POST" },
    copyEndpointOnNewTab: false,
    persistenceId: null,
    endpointCatalogueOptions: { getData: () => [] },
    // PREFIX completion from this site's own list (/prefixes.json), not prefix.cc: the CSP
    // (connect-src 'self') refused that request and logged an error on every load.
    yasqe: Object.assign({}, Yasgui.Yasqe.defaults, { prefixCcApi: box.dataset.prefixes }),
  });
  const hooked = new WeakSet();
  const pin = (tab) => {
    if (!tab || !tab.getEndpoint) return;
    if (!hooked.has(tab)) {  // an endpoint typed into the tab's field is put back at once
      hooked.add(tab);
      tab.on("endpointChange", () => pin(tab));
    }
    if (tab.getEndpoint() !== endpoint) tab.setEndpoint(endpoint);
  };
  for (const id of Object.keys(yasgui._tabs || {})) pin(yasgui.getTab(id));
  yasgui.on("tabAdd", (_, id) => pin(yasgui.getTab(id)));
  yasgui.on("tabSelect", (_, id) => pin(yasgui.getTab(id)));
  yasgui.on("query", (_, tab) => pin(tab));

  // An individual of this knowledge base in the results opens its page here, not its IRI
  // (https://w3id.org/... is not this server). Other links are left as they are.
  const base = box.dataset.base || "";
  const page = new URL(box.dataset.page || "/page", window.location.href);
  box.addEventListener("click", (event) => {
    const link = event.target.closest ? event.target.closest("a[href]") : null;
    if (!link || !base || !link.href.startsWith(base)) return;
    event.preventDefault();
    const target = new URL(page.href);
    target.searchParams.set("iri", link.href);
    window.location.assign(target.href);
  }, true);

  const tab = yasgui.getTab();
  pin(tab);
  if (tab && !shared && !tab.getQuery().includes("cp:")) {
    tab.setQuery("PREFIX cp: <http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#>\n" +
      "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n\n" +
      "SELECT ?position ?label WHERE {\n  ?position a cp:MateInOne ;\n            rdfs:label ?label .\n}\nLIMIT 20\n");
  }
})();
