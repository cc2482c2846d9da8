"""The import pipeline on a Dask cluster: ``process_unit`` on the cluster's workers instead of local processes.

``UnitProcessor`` (``kb.pipeline``) runs units in this machine's worker processes; mining a month of
lichess games is work for many machines. ``ClusterUnitProcessor`` has the same interface and sends
each unit to a Dask ``distributed`` scheduler (``--cluster tcp://HOST:8786``); its workers run the
very same ``process_unit`` and send back the same ``UnitResult``, so what the importer or
``convert`` writes does not depend on where a unit ran. This process stays the driver: it reads
the files into units (cheap: nothing is parsed), keeps results in file order, saves the claims
the workers decided into the verification cache, and writes links, counts and the sources'
descriptions as it does locally.

A worker process keeps, per run, what ``process_unit`` remembers between units (the analysis
memo and the statements already sent): a run's token makes a worker that served an earlier run
forget it first, because a worker outlives a run and a statement it sent to an earlier run must
be sent again. Those memories are one per process, so units in one worker process run one at a
time (a lock): start workers with ``--nthreads 1`` and as many processes as cores.

Workers need the ``chesskb[cluster]`` install (the same version as the driver), the engine when
the run needs one (``--mine``, long mate claims: ``$CHESSKB_ENGINE`` or Debian's stockfish on each
worker), and read the verification cache file only if it exists at the same path there.

With ``convert --parts`` (``PipelineSettings.parts``) a worker writes each unit's statements into a
part file in the shared folder itself and sends back only the small remainder (findings, counts,
digests, the naming statements links are computed from, the part's name and SHA-256): the driver's
network link and CPU then carry a few bytes per game instead of every statement.
"""

from __future__ import annotations

import secrets
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.verify import MateVerifier, VerifyCounts
from chesskb.kb.analysis.verify_cache import VerificationCache
from chesskb.kb.pipeline import IN_FLIGHT_PER_JOB, PipelineSettings, UnitResult, forget_earlier_runs, process_unit
from chesskb.kb.reading.units import WorkUnit

#: Seconds to wait for the scheduler to answer before giving up (a wrong address fails fast).
CONNECT_TIMEOUT = 30
INSTALL_HINT = "--cluster needs Dask: pip install 'chesskb[cluster]' (dask[distributed])"


class ClusterError(Exception):
    """The cluster cannot be used (Dask missing, scheduler unreachable); the message says why."""


class ClusterUnitProcessor:
    """``UnitProcessor``'s interface (``run``, ``cache``, ``counts``) over a Dask scheduler at ``address``."""

    def __init__(self, settings: PipelineSettings, address: str) -> None:
        self.settings = settings
        self.address = address
        self.token = secrets.token_hex(8)
        path = Path(settings.verify_cache) if settings.verify_cache else None
        self.cache = VerificationCache(path, writer=True)
        self.counts = VerifyCounts()
        self._client: Any = None

    def __enter__(self) -> ClusterUnitProcessor:
        if self._client is None:
            self.connect()
        return self

    def connect(self) -> None:
        """Reach the scheduler (``ClusterError`` when Dask is missing or nothing answers there)."""
        try:
            from distributed import Client
        except ImportError as exc:
            raise ClusterError(INSTALL_HINT) from exc
        try:
            self._client = Client(self.address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"no Dask scheduler answers at {self.address}: {exc}") from exc

    def __exit__(self, *exc_info: object) -> None:
        self.cache.close()
        if self._client is not None:
            self._client.close()
            self._client = None

    def workers(self) -> int:
        """Worker threads the scheduler has now (at least one, so a run waits for workers to come)."""
        info = self._client.scheduler_info()
        threads: int = sum(worker.get("nthreads", 1) for worker in info.get("workers", {}).values())
        return max(1, threads)

    def run(self, units: Iterable[WorkUnit]) -> Iterator[UnitResult]:
        """Results in the units' order; at most ``IN_FLIGHT_PER_JOB`` units per worker thread in flight."""
        pending: deque[Any] = deque()  # Dask futures (distributed is untyped)
        limit = self.workers() * IN_FLIGHT_PER_JOB
        try:
            for unit in units:
                pending.append(self.submit(unit))
                if len(pending) >= limit:
                    yield self._kept(pending.popleft().result())
            while pending:
                yield self._kept(pending.popleft().result())
        finally:
            for future in pending:  # an abandoned or failed run leaves nothing queued on the cluster
                future.cancel()

    def submit(self, unit: WorkUnit) -> Any:
        """One task for ``unit`` (a Dask future). Dask may run a task more than once (its worker lost
        after it finished): with ``parts`` the copy writes the same part, ``kb.store.nquads_parts``."""
        return self._client.submit(work_on_worker, unit, self.settings, self.token, pure=False)

    def _kept(self, result: UnitResult) -> UnitResult:
        self.cache.save(result.verified)
        self.counts.add(result.verify_counts)
        return result


class _WorkerState:
    """What one worker process keeps for the run it serves: the run's token and its verifier."""

    lock = threading.Lock()
    token: str | None = None
    verifier: MateVerifier | None = None
    engine: Engine | None = None


def work_on_worker(unit: WorkUnit, settings: PipelineSettings, token: str) -> UnitResult:
    """Run on a Dask worker: ``process_unit`` with this process's verifier for the run ``token``."""
    with _WorkerState.lock:
        if _WorkerState.token != token:
            _start_run(settings, token)
        return process_unit(unit, settings, _WorkerState.verifier)


def _start_run(settings: PipelineSettings, token: str) -> None:
    """Forget the previous run (its memo, the statements it sent, its engine) and set up for ``token``."""
    forget_earlier_runs()
    if _WorkerState.engine is not None:
        _WorkerState.engine.close()
    _WorkerState.engine = Engine(settings.engine) if settings.engine else None
    path = Path(settings.verify_cache) if settings.verify_cache else None
    cache = VerificationCache(path if path is not None and path.exists() else None, writer=False)
    _WorkerState.verifier = MateVerifier(cache, engine=_WorkerState.engine)
    _WorkerState.token = token
