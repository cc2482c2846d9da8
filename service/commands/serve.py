"""``chesskb serve``: the web service through waitress, a production WSGI server.

Flask's development server is single-purpose and warns against production use; waitress is a
pure-Python multi-threaded server, so slow clients and long queries do not block each other (the
queries themselves run in worker processes, see ``service.query_runner``).
"""

from __future__ import annotations

import click

from service.cli import CliContext


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="TCP port.")
@click.option("--threads", type=click.IntRange(min=1), default=8, show_default=True,
              help="Request threads (waitress).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes running SPARQL queries (setting QUERY_WORKERS, default 2).")
@click.option("--query-timeout", type=float, default=None,
              help="Seconds before a SPARQL query is stopped with 503 (setting QUERY_TIMEOUT, default 20).")
@click.option("--row-limit", type=int, default=None,
              help="Rows returned before a result is cut with a notice (setting ROW_LIMIT, default 10000).")
@click.pass_obj
def command(obj: CliContext, host: str, port: int, threads: int, workers: int | None,
            query_timeout: float | None, row_limit: int | None) -> None:
    """Serve the SPARQL endpoint, the canned queries and the pages over HTTP."""
    from waitress import create_server

    from service.app import create_app

    config: dict = {"STORE": obj.store_location, "UPDATE_ENDPOINT": obj.update_endpoint,
                    "GRAPH_STORE": obj.graph_store,
                    "BASE_IRI": obj.base_iri}
    if workers is not None:
        config["QUERY_WORKERS"] = workers
    if query_timeout is not None:
        config["QUERY_TIMEOUT"] = query_timeout
    if row_limit is not None:
        config["ROW_LIMIT"] = row_limit
    app = create_app(config)
    server = create_server(app, host=host, port=port, threads=threads, ident="chesskb")
    click.echo(f"serving {obj.store_location} on http://{server.effective_host}:{server.effective_port}/ "
               f"(SPARQL at /sparql; Ctrl-C stops)", err=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        pool = app.extensions.get("chesskb.query_pool")
        if pool is not None:
            pool.close()
