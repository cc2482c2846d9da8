"""A server that is ready when it says so: ``chesskb serve`` prints its "serving" line only after
``warm_up``, so the first page a visitor (or ``demo.sh``'s user) opens answers at once.

Three costs used to fall on the first visitor: the query workers' start (a new interpreter importing
pyoxigraph and opening the store, about a second each on a loaded machine), the pages' first queries
(the home page's counts, term labels), and Python's own first imports of the page code. ``warm_up``
starts the workers, waits until each has opened the store, then asks for the pages in ``WARM_PAGES``
in-process, which fills the answer cache (``service.result_cache``) of the current store generation.
It also keeps waitress's "Task queue depth" warnings (logger ``waitress.queue``), which only say that
a request waited for a thread, out of the terminal.
"""

from __future__ import annotations

import logging
from typing import Any

from .executor import LANES, start_pools

#: Pages asked for before the server says it is serving (the home page is what a new user opens).
WARM_PAGES = ("/",)
#: Seconds ``warm_up`` waits for the workers to open the store; past it the first query waits instead.
WORKER_START_WAIT = 60.0


def quiet_server_logs() -> None:
    """Waitress's queue-depth warnings are operational noise, not errors: keep them off the terminal."""
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def warm_up(app: Any) -> None:
    """Start the pages' query workers, wait until they have opened the store, answer ``WARM_PAGES``
    once, then start the other lanes' workers (``/sparql``), which finish starting on their own: a
    new user opens a page first, and on two cores five interpreters starting at once took twice as
    long as the pages' two."""
    quiet_server_logs()
    start_pools(app, ("pages",))
    pool = app.extensions.get("chesskb.pool.pages")
    if pool is not None:
        pool.wait_ready(WORKER_START_WAIT)
    client = app.test_client()
    for path in WARM_PAGES:
        client.get(path, headers={"Accept": "text/html"})
    start_pools(app, tuple(lane for lane in LANES if lane != "pages"))
