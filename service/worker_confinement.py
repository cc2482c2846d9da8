"""What a query worker process may do, set by the worker on itself before it opens the store.

The store (Oxigraph) answers a SERVICE pattern by sending an HTTP request to whatever IRI the query
names. Whether a query text contains such a pattern is the store's parser's to decide, and no
filter of our own can promise to read every spelling as that parser does (issue 35 found four
escape families our lexer read differently). So the promise is made by construction instead: a
worker that must not federate cannot open a network socket at all.

Two independent locks, each enough alone:

* a new, empty network namespace (``unshare(CLONE_NEWUSER | CLONE_NEWNET)``, no privilege
  needed): there is no host to reach, not even loopback;
* a seccomp filter on the worker's own system calls: ``socket()`` of any family but ``AF_UNIX`` and
  ``io_uring_setup()`` (whose requests can open sockets too) fail with EACCES, as do system calls of
  a foreign ABI (i386, x32) that could reach ``socket`` by another number. Docker's default profile
  and Ubuntu's user-namespace restriction refuse the namespace, but allow a process to filter itself.

``confine`` reports which locks hold (``Isolation``); the server refuses to start, and the pool to
use a worker, when none does, unless the operator allowed it (setting ALLOW_UNISOLATED).

A worker also dies with its server however the server ends (``die_with_parent``: the kernel sends
SIGKILL when the parent goes, even by SIGKILL), may grow to at most a named address-space size
(``cap_memory``, setting WORKER_MEMORY), and carries a kernel alarm for each query
(``query_alarm``) so that no query outlives its time limit even when nobody is left to kill it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import resource
import signal
import struct
from dataclasses import dataclass

#: Linux flags for unshare(2): a new user namespace (needs no privilege) with a new, empty network
#: namespace inside it, so the process can reach no host at all, not even loopback.
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

_PR_SET_PDEATHSIG = 1
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2

# classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_EACCES = 0x00050000 | 13
_AF_UNIX = 1
#: offsets in struct seccomp_data: the system call's number, the ABI, the first argument's low word
_NR, _ARCH, _ARG0 = 0, 4, 16
_X32_BIT = 0x40000000

#: The ABIs the filter knows: machine -> (AUDIT_ARCH_*, socket's number, io_uring_setup's number).
_ABIS = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}


@dataclass(frozen=True)
class Isolation:
    """Which of the two network locks hold in a worker."""

    namespace: bool
    socket_filter: bool

    @property
    def on(self) -> bool:
        return self.namespace or self.socket_filter

    def describe(self) -> str:
        held = [
            name
            for name, holds in (("network namespace", self.namespace), ("socket filter", self.socket_filter))
            if holds
        ]
        return " + ".join(held) if held else "off"


def _libc() -> ctypes.CDLL:
    """The C library; its functions return untyped values to Python, so callers read the C int with ``int()``."""
    return ctypes.CDLL(None, use_errno=True)


def isolate_network() -> bool:
    """Move this process into a new, empty network namespace; False when the system refuses."""
    try:
        return int(_libc().unshare(_CLONE_NEWUSER | _CLONE_NEWNET)) == 0
    except (OSError, AttributeError):
        return False


def _filter_program(arch: int, socket_nr: int, io_uring_nr: int) -> bytes:
    """The seccomp program: each instruction is (code, jump-if-true, jump-if-false, k)."""
    deny, allow = _RET_EACCES, _RET_ALLOW
    program = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 1, 0, arch),  # this ABI: go on; another (i386 socketcall …): deny
        (_RET_K, 0, 0, deny),
        (_LD_W_ABS, 0, 0, _NR),
        (_JGE_K, 0, 1, _X32_BIT),  # x32 numbers: deny
        (_RET_K, 0, 0, deny),
        (_JEQ_K, 0, 1, io_uring_nr),
        (_RET_K, 0, 0, deny),
        (_JEQ_K, 1, 0, socket_nr),
        (_RET_K, 0, 0, allow),  # any other system call
        (_LD_W_ABS, 0, 0, _ARG0),  # socket(domain, …)
        (_JEQ_K, 0, 1, _AF_UNIX),
        (_RET_K, 0, 0, allow),
        (_RET_K, 0, 0, deny),
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)


def forbid_network_sockets() -> bool:
    """Install the socket filter on this process (and every thread and child it later has);
    False when the machine's ABI is not one the filter knows or the system refuses the filter."""
    abi = _ABIS.get(platform.machine())
    if abi is None:
        return False
    code = _filter_program(*abi)
    instructions = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = SockFprog(len(code) // 8, ctypes.cast(instructions, ctypes.c_void_p))
    try:
        libc = _libc()
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return int(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def confine_network() -> Isolation:
    """Both locks, each tried whatever the other did."""
    return Isolation(namespace=isolate_network(), socket_filter=forbid_network_sockets())


def die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent ends (any way, SIGKILL included), and
    end now if the parent already ended before the request was made."""
    with contextlib.suppress(OSError, AttributeError):
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def lower_priority(increment: int) -> None:
    """Lower this process's CPU priority by ``increment`` (WORKER_NICE). A query worker that computes
    for seconds then yields the cores to the server's own threads, which accept connections, read
    requests and render pages for every visitor: measured on two cores, a client asking for every row
    of canned questions took a visitor from 2x its idle latency to 1.3x (bench/README.md). A process
    may always lower its own priority; where the system refuses, the worker runs as before."""
    if increment > 0:
        with contextlib.suppress(OSError):
            os.nice(increment)


#: glibc's mallopt parameter for the number of malloc arenas.
M_ARENA_MAX = -8
#: Arenas a capped worker may have. glibc reserves 64 MiB of address space for each arena it makes, and it
#: makes one whenever threads contend for malloc: up to 8 per core, more when the machine is busy. Under
#: RLIMIT_AS these unused reservations counted against WORKER_MEMORY, so a fresh worker's first trivial
#: query measured 0.4 to 1 GiB, depending on load, and failed under a 768 MiB cap.
CAPPED_ARENAS = 2


def limit_malloc_arenas(arenas: int = CAPPED_ARENAS) -> None:
    """Keep glibc to ``arenas`` malloc arenas (nothing where the C library is not glibc); call it
    before the store starts its threads."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_ARENA_MAX, arenas)


def cap_memory(limit_bytes: int) -> None:
    """Bound this process's address space (0 = no bound): an allocation past it fails, and the
    store ends the process instead of taking the machine's memory. The cap counts what the process
    uses, not what malloc reserves for thread arenas (``limit_malloc_arenas``)."""
    if limit_bytes > 0:
        limit_malloc_arenas()
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))


def address_space_bytes() -> int:
    """This process's current address-space size (VmSize), for choosing and checking the cap."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def query_alarm(seconds: float) -> None:
    """Arm (or with 0, disarm) a kernel timer whose signal ends this process: SIGALRM keeps its
    default action in a worker, so a query still running when it fires ends with the process, even
    when the server that should have killed it is gone."""
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.0))
