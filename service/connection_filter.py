"""The kernel's share of refusing a connection flood: a socket filter on the listening socket that drops
new connections (their TCP SYN, and any later packet) from the IPv4 addresses the server refused lately.

Why in the kernel: an address over its connection share (``CLIENT_CONNECTIONS``) whose connections are
closed as they are accepted reconnects at once, thousands of times a second, and every reconnect costs
the server's loop an accept and a close while holding the interpreter lock, on cores the visitors'
requests need (issue 35 measured a visitor at 2-10x its idle latency during such a flood). A dropped SYN
costs the server nothing: the client's TCP retries it after its retransmission timeout (1 s on Linux),
so a reconnecting flood slows to about one attempt per second per pending connect, and other addresses'
connections meet an empty accept queue. The filter is classic BPF, which needs no privilege.

Only an IPv4 listener's clients are filtered (an IPv6 client has a /64 of addresses, so per-address
refusal means little there); other packets always pass, and where the system refuses the filter (or
the listener is IPv6) the server's own refusal (``share_connections``) still holds, one accept and
close per connection.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import socket
import struct
import threading
import time
from typing import Any

#: ``SO_ATTACH_FILTER`` (Linux ``asm-generic/socket.h``): the socket module does not name it.
SO_ATTACH_FILTER = 26
SO_DETACH_FILTER = 27
#: Where a filter reads the packet's network (IP) header, whatever the socket sees (``linux/filter.h``).
_NET = -0x100000
#: Addresses filtered at once: a compare each, all within the 255 instructions a conditional jump of
#: classic BPF can skip. More refused addresses than this are refused by the server alone.
MAX_FILTERED_ADDRESSES = 200

_LD_B_ABS, _LD_W_ABS, _RSH_K, _JEQ_K, _RET_K = 0x30, 0x20, 0x74, 0x15, 0x06
_ACCEPT, _DROP = 0xFFFFFFFF, 0


def _instruction(code: int, jump_true: int, jump_false: int, value: int) -> bytes:
    return struct.pack("HBBI", code, jump_true, jump_false, value & 0xFFFFFFFF)


def program(addresses: list[str]) -> bytes:
    """A classic BPF program that drops IPv4 packets from ``addresses`` and passes every other packet."""
    if len(addresses) > MAX_FILTERED_ADDRESSES:
        raise ValueError(f"{len(addresses)} addresses; at most {MAX_FILTERED_ADDRESSES} (MAX_FILTERED_ADDRESSES)")
    count = len(addresses)
    code = [
        _instruction(_LD_B_ABS, 0, 0, _NET),  # the IP version is the first byte's high nibble
        _instruction(_RSH_K, 0, 0, 4),
        _instruction(_JEQ_K, 1, 0, 4),
        _instruction(_RET_K, 0, 0, _ACCEPT),  # not IPv4
        _instruction(_LD_W_ABS, 0, 0, _NET + 12),  # the source address
    ]
    for index, address in enumerate(addresses):
        # on a match, jump over the remaining compares and the accept to the drop
        code.append(_instruction(_JEQ_K, count - index, 0, int(ipaddress.IPv4Address(address))))
    code += [_instruction(_RET_K, 0, 0, _ACCEPT), _instruction(_RET_K, 0, 0, _DROP)]
    return b"".join(code)


def attach(sock: socket.socket, addresses: list[str]) -> None:
    """Give ``sock`` the filter of ``addresses`` (replacing its filter). Raises ``OSError`` where the
    system has no socket filters."""
    code = program(addresses)
    buffer = ctypes.create_string_buffer(code, len(code))
    # struct sock_fprog { unsigned short len; struct sock_filter *filter; }: the kernel copies the program
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HP", len(code) // 8, ctypes.addressof(buffer)))


class RefusedAddresses:
    """The addresses whose new connections the kernel drops, each until its time, kept in the listening
    socket's filter. ``block`` adds one (a refusal), ``expire`` (called from the server's loop at each
    turn) lets the ones whose time is up through again. ``working`` is False where the system refused
    the filter: then nothing is filtered and the server refuses alone. ``block`` may also be called
    from request threads (an address that keeps asking while told to wait: ``service.admission``)."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._lock = threading.Lock()
        self._until: dict[str, float] = {}
        self._next_expiry = float("inf")
        self.working = getattr(sock, "family", None) == socket.AF_INET
        if self.working:
            self._apply()  # an empty list: does this system take socket filters at all?

    def block(self, host: str, until: float) -> None:
        with self._lock:
            if not self.working or host in self._until or len(self._until) >= MAX_FILTERED_ADDRESSES:
                return
            self._until[host] = until
            self._next_expiry = min(self._next_expiry, until)
            self._apply()

    def expire(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        if now < self._next_expiry:
            return
        with self._lock:
            self._until = {host: until for host, until in self._until.items() if until > now}
            self._next_expiry = min(self._until.values(), default=float("inf"))
            self._apply()

    def blocked(self) -> list[str]:
        return sorted(self._until)

    def _apply(self) -> None:
        try:
            attach(self._sock, sorted(self._until))
        except OSError:
            self.working = False
            self._until.clear()
            self._next_expiry = float("inf")
            with contextlib.suppress(OSError):  # no stale list left behind
                self._sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)
