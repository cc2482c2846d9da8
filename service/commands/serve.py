"""``chesskb serve``: the web service through waitress, a production WSGI server.

Flask's development server is single-purpose and warns against production use; waitress is a
pure-Python multi-threaded server, so slow clients and long queries do not block each other (the
queries themselves run in worker processes, see ``service.executor``). Every bound a stranger could
exhaust is a named setting (``service.app.SETTINGS``) with an option here; waitress gets the
connection limit, the idle timeout and the body cap, so a large body is refused from its
Content-Length before anything is read or spooled to disk, and hundreds of idle sockets neither
lock other visitors out nor stay open long.
"""

from __future__ import annotations

import time
from typing import Any

import click
from waitress.channel import HTTPChannel

from chesskb.service.app import SETTINGS
from chesskb.service.commands.base import CliContext, UsageProblem
from chesskb.service.connection_filter import RefusedAddresses

#: Options of ``serve`` for the service's settings: option name -> (setting, click type).
SETTING_OPTIONS: dict[str, tuple[str, Any]] = {
    "--workers": ("QUERY_WORKERS", click.IntRange(min=1)),
    "--page-workers": ("PAGE_WORKERS", click.IntRange(min=1)),
    "--query-timeout": ("QUERY_TIMEOUT", click.FloatRange(min=0.1)),
    "--max-result-bytes": ("MAX_RESULT_BYTES", click.IntRange(min=1)),
    "--row-limit": ("ROW_LIMIT", click.IntRange(min=0)),
    "--query-max-nesting": ("QUERY_MAX_NESTING", click.IntRange(min=0)),
    "--client-queries": ("CLIENT_QUERIES", click.IntRange(min=1)),
    "--queue": ("QUERY_QUEUE", click.IntRange(min=0)),
    "--queue-wait": ("QUERY_QUEUE_WAIT", click.FloatRange(min=0)),
    "--max-body-bytes": ("MAX_BODY_BYTES", click.IntRange(min=1)),
    "--connection-limit": ("CONNECTION_LIMIT", click.IntRange(min=1)),
    "--client-connections": ("CLIENT_CONNECTIONS", click.IntRange(min=0)),
    "--client-refusal": ("CLIENT_REFUSAL", click.FloatRange(min=0, max=60)),
    "--channel-timeout": ("CHANNEL_TIMEOUT", click.IntRange(min=1)),
    "--play-engines": ("PLAY_ENGINES", click.IntRange(min=1)),
    "--play-movetime": ("PLAY_MOVETIME", click.FloatRange(min=0.01, max=10)),
    "--play-client-moves": ("PLAY_CLIENT_MOVES", click.IntRange(min=1)),
    "--play-queue": ("PLAY_QUEUE", click.IntRange(min=0)),
    "--play-wait": ("PLAY_WAIT", click.FloatRange(min=0)),
    "--play-engine-start": ("PLAY_ENGINE_START", click.FloatRange(min=0.1)),
    "--play-rate": ("PLAY_RATE", click.IntRange(min=1)),
    "--play-max-plies": ("PLAY_MAX_PLIES", click.IntRange(min=1)),
    "--play-seats": ("PLAY_SEATS", click.IntRange(min=1)),
    "--play-seat-idle": ("PLAY_SEAT_IDLE", click.FloatRange(min=1)),
    "--worker-memory": ("WORKER_MEMORY", click.IntRange(min=0)),
    "--worker-nice": ("WORKER_NICE", click.IntRange(min=0, max=19)),
    "--worker-demote-after": ("WORKER_DEMOTE_AFTER", click.FloatRange(min=0)),
    "--author-token-delay": ("AUTHOR_TOKEN_DELAY", click.FloatRange(min=0)),
    "--lane-reserve": ("LANE_RESERVE", click.IntRange(min=0)),
    "--query-backoff": ("QUERY_BACKOFF", click.FloatRange(min=0)),
    "--client-cost": ("CLIENT_COST", click.FloatRange(min=0)),
    "--failed-query-ttl": ("FAILED_QUERY_TTL", click.FloatRange(min=0)),
    "--canned-max-rows": ("CANNED_MAX_ROWS", click.IntRange(min=0)),
}


class DeadlineChannel(HTTPChannel):
    """A connection whose request must arrive whole within CHANNEL_TIMEOUT of its first byte.

    waitress closes a connection after CHANNEL_TIMEOUT without activity, but every byte counts as
    activity: a client sending one header byte every few seconds (slowloris) would hold its socket
    for ever. While a request is incomplete, its activity time stays at its first byte, so the
    server's regular sweep closes it once the request is CHANNEL_TIMEOUT old."""

    _request_started: float = 0.0
    #: waitress's (untyped) time of the channel's last byte, which its sweep measures idleness from
    last_activity: float

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        self.host = _host(addr)  # before waitress's __init__, which adds the channel (and sets addr after)
        super().__init__(server, sock, addr, adj, map=map)

    def received(self, data: bytes) -> bool:
        if self.request is None:
            self._request_started = time.time()
        result: bool = super().received(data)  # waitress is untyped: whether the data was taken
        if self.request is not None:
            self.last_activity = min(self.last_activity, self._request_started)
        return result

    # the server's table of connections per address (``share_connections``), kept as channels open and close
    def add_channel(self, map: Any = None) -> None:
        super().add_channel(map)
        _by_host(self.server).setdefault(self.host, set()).add(self)

    def del_channel(self, map: Any = None) -> None:
        table = _by_host(self.server)
        mine = table.get(self.host)
        if mine is not None:
            mine.discard(self)
            if not mine:
                del table[self.host]
        super().del_channel(map)


#: Connections taken from the listening socket per wake-up of the server's loop: a flood of new
#: connections (each closed at once when its address is over its share) then costs one wake-up per
#: this many, and a visitor's connection does not wait behind the flood one loop turn each.
ACCEPTS_PER_WAKE = 64
#: How long a connection must have been idle (or its request stalled) before a new connection of the
#: same address may cut it: a stale keep-alive socket goes, while a flood that reopens what is cut
#: meets fresh connections only and has its new ones closed at once, which costs the server least.
QUIET_SECONDS = 2.0


def share_connections(server: Any, client_connections: int, refusal_seconds: float = 0.1) -> RefusedAddresses:
    """Give each client address at most ``client_connections`` of the server's connections.

    The global CONNECTION_LIMIT alone lets one address fill every slot with idle partial requests
    (and reopen each one as it is cut). An address at its share that opens another connection loses
    its oldest one that has been idle, or still sending its request, for QUIET_SECONDS (a browser's
    stale keep-alive socket, a slowloris's partial request): cut early, so the new one is served. When
    every one of its connections is being answered, the new one is closed as it is accepted, before a
    channel is made for it, and the address's next ones are refused for ``refusal_seconds``
    (CLIENT_REFUSAL): dropped by the kernel before the server sees them (``service.connection_filter``;
    the client's TCP tries again after a second), or closed as they are accepted without a look where
    the kernel cannot filter them. A flood that reconnects as fast as it is refused then costs the
    server's loop (which holds the interpreter lock the visitors' request threads need) next to
    nothing. Either way other addresses always find room. The count per address is kept as channels
    open and close (``DeadlineChannel``), so a refusal never walks the server's connections."""

    refused_until: dict[str, float] = {}
    in_kernel = RefusedAddresses(getattr(server, "socket", None))
    if not in_kernel.working:
        click.echo(
            "note: no kernel filter on this listener (IPv4 only, and the system must allow socket "
            "filters): connections over CLIENT_CONNECTIONS are refused by the server alone",
            err=True,
        )
    server_readable = server.readable

    def readable() -> bool:  # asked at every turn of the server's loop
        in_kernel.expire()
        return bool(server_readable())

    def open_channel(server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> Any:
        if client_connections:
            host = _host(addr)
            mine = _by_host(server).get(host, ())
            if len(mine) >= client_connections:
                now = time.time()
                if refused_until.get(host, 0.0) > now:
                    sock.close()
                    return None
                quiet_since = now - QUIET_SECONDS
                waiting = [
                    channel
                    for channel in mine
                    if not channel.requests and not channel.total_outbufs_len and channel.last_activity <= quiet_since
                ]
                if not waiting:
                    if len(refused_until) > MAX_REFUSED_HOSTS:
                        refused_until.clear()
                    refused_until[host] = now + refusal_seconds
                    if refusal_seconds:
                        in_kernel.block(host, now + refusal_seconds)
                    sock.close()
                    return None
                min(waiting, key=lambda channel: channel.last_activity).handle_close()
        server.set_socket_options(sock)
        return DeadlineChannel(server, sock, addr, adj, map=map)

    def accept_many() -> None:
        for _ in range(ACCEPTS_PER_WAKE):
            try:
                accepted = server.accept()
                if accepted is None:
                    return
                sock, addr = accepted
            except OSError:
                return  # as waitress: a bogus socket from accept() never stops the server
            server.channel_class(server, sock, server.fix_addr(addr), server.adj, map=server._map)

    server.channel_class = open_channel
    server.handle_accept = accept_many
    server.readable = readable
    return in_kernel


#: Addresses remembered as refused (CLIENT_REFUSAL) before the memory is cleared: bounded
#: however many addresses a flood comes from.
MAX_REFUSED_HOSTS = 4096


def _host(addr: Any) -> str:
    return addr[0] if isinstance(addr, tuple) else str(addr)


def _by_host(server: Any) -> dict[str, set[DeadlineChannel]]:
    """The server's open connections per client host (at most CONNECTION_LIMIT in all), kept by
    ``DeadlineChannel`` as channels open and close."""
    table: dict[str, set[DeadlineChannel]] | None = server.__dict__.get("chesskb_by_host")
    if table is None:
        table = server.__dict__["chesskb_by_host"] = {}
    return table


def _report_isolation(app: Any) -> None:
    """Say whether the query workers are off the network; stop here when they cannot be and the
    operator has not accepted that (ALLOW_UNISOLATED): the SERVICE filter must never be the only guard
    unknowingly."""
    from chesskb.service.executor import close_pools, worker_isolation

    isolation = worker_isolation(app)
    if isolation is None:
        if app.config.get("ALLOW_SERVICE"):
            click.echo("query workers: network on (ALLOW_SERVICE: federated queries allowed)", err=True)
        return
    click.echo(f"query workers: network isolation {isolation.describe()}", err=True)
    if not isolation.on and not app.config.get("ALLOW_UNISOLATED"):
        close_pools(app)
        raise UsageProblem(
            "refusing to serve: this system allows query workers neither a network namespace nor a "
            "socket filter, so a SERVICE query the filter missed could reach other hosts; give "
            "--allow-unisolated (setting ALLOW_UNISOLATED) to serve anyway",
            show_usage=False,
        )
    if not isolation.on:
        click.echo(
            "warning: query workers keep the network (ALLOW_UNISOLATED); only the SERVICE filter "
            "guards against federated queries",
            err=True,
        )


def _warn_short_token(app: Any) -> None:
    from chesskb.service.authoring import SHORTEST_GOOD_TOKEN

    token = app.config.get("AUTHOR_TOKEN")
    if token and len(str(token)) < SHORTEST_GOOD_TOKEN:
        click.echo(
            f"warning: the authoring token (AUTHOR_TOKEN) has {len(str(token))} characters; use "
            f"{SHORTEST_GOOD_TOKEN} or more random ones, or a guesser may find it",
            err=True,
        )


def _setting_options(function: Any) -> Any:
    for option, (setting, kind) in reversed(SETTING_OPTIONS.items()):
        default, text = SETTINGS[setting]
        function = click.option(
            option,
            setting.lower(),
            type=kind,
            default=None,
            help=f"{text[0].upper()}{text[1:]} (setting {setting}, CHESSKB_{setting}; default {default}).",
        )(function)
    return function


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="TCP port.")
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="Request threads (waitress); queries wait in worker processes, not here.",
)
@click.option(
    "--allow-service",
    is_flag=True,
    default=None,
    help="Allow federated SERVICE queries to other hosts (setting ALLOW_SERVICE; default off).",
)
@click.option(
    "--allow-unisolated",
    is_flag=True,
    default=None,
    help="Serve even where query workers cannot be cut off from the network (setting "
    "ALLOW_UNISOLATED; default off: the server refuses to start).",
)
@_setting_options
@click.pass_obj
def command(
    obj: CliContext,
    /,
    host: str,
    port: int,
    threads: int,
    allow_service: bool | None,
    allow_unisolated: bool | None,
    **settings: Any,
) -> None:
    """Serve the SPARQL endpoint, the canned queries and the pages over HTTP."""
    from waitress import create_server

    from chesskb.service.app import create_app
    from chesskb.service.executor import close_pools
    from chesskb.service.warm import warm_up

    config: dict[str, Any] = {
        "STORE": obj.store_location,
        "UPDATE_ENDPOINT": obj.update_endpoint,
        "GRAPH_STORE": obj.graph_store,
        "BASE_IRI": obj.base_iri,
    }
    config.update({name.upper(): value for name, value in settings.items() if value is not None})
    if allow_service:
        config["ALLOW_SERVICE"] = True
    if allow_unisolated:
        config["ALLOW_UNISOLATED"] = True
    app = create_app(config)
    warm_up(app)  # workers started and the home page answered once: the first visitor does not wait
    _report_isolation(app)
    _warn_short_token(app)
    timeout = int(app.config["CHANNEL_TIMEOUT"])
    server = create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="chesskb",
        connection_limit=int(app.config["CONNECTION_LIMIT"]),
        channel_timeout=timeout,  # idle and stalled connections are closed
        cleanup_interval=max(1, min(timeout, 30) // 2),
        max_request_body_size=int(app.config["MAX_BODY_BYTES"]),  # 413 from Content-Length, before reading
        max_request_header_size=64 * 1024,
        asyncore_use_poll=True,
    )  # poll(): more than 1024 sockets
    refusal = float(app.config["CLIENT_REFUSAL"])
    in_kernel = share_connections(server, int(app.config["CLIENT_CONNECTIONS"]), refusal)
    if in_kernel.working and refusal:
        # an address answered 429 by a lane (in QUERY_BACKOFF, or beyond its share): its next connections
        # are dropped by the kernel for CLIENT_REFUSAL, so retries that ignore Retry-After cost nothing
        app.extensions["chesskb.refuse_connections"] = lambda host: in_kernel.block(host, time.time() + refusal)
    click.echo(
        f"serving {obj.store_location} on http://{server.effective_host}:{server.effective_port}/ "
        f"(SPARQL at /sparql; Ctrl-C stops)",
        err=True,
    )
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        close_pools(app)
