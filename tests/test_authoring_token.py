"""Guessing the authoring token (issue 35 item 9), against a live ``chesskb serve``: each wrong token
makes its address wait (doubling), tries meanwhile are refused unchecked, other addresses are not
held up, and a short token is warned about when the server starts."""

from __future__ import annotations

import json
import time

from tests.live_server import http, start_server

TOKEN = "a-long-enough-teacher-token"
BODY = json.dumps({"fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "moves": ["a1a8"]}).encode()


def _check(base: str, token: str, source: str) -> tuple[int, dict[str, str]]:
    status, headers, _ = http(
        "POST",
        base + "/author/check",
        body=BODY,
        source=source,
        headers={"Content-Type": "application/json", "X-Author-Token": token},
    )
    return status, headers


def test_wrong_tokens_are_delayed_per_address(small_store):
    process, base = start_server(small_store, "--author-token-delay", "1", env={"CHESSKB_AUTHOR_TOKEN": TOKEN})
    try:
        started = time.monotonic()
        answers = [_check(base, f"guess-{n}", "127.0.0.3") for n in range(40)]
        took = time.monotonic() - started
        statuses = [status for status, _ in answers]
        assert statuses[0] == 403 and set(statuses[1:]) == {429}, statuses
        assert statuses.count(403) * 1.0 <= took + 1  # at most one checked guess per second of delay
        assert all(int(headers["retry-after"]) >= 1 for status, headers in answers if status == 429)
        # even the right token waits its turn from the guessing address (a locked try is not checked) …
        assert _check(base, TOKEN, "127.0.0.3")[0] == 429
        # … while a teacher elsewhere is not held up
        assert _check(base, TOKEN, "127.0.0.4")[0] == 200
        # the waits double: after the second wrong token the address waits 2 s
        time.sleep(1.2)
        assert _check(base, "guess-again", "127.0.0.3")[0] == 403
        status, headers = _check(base, TOKEN, "127.0.0.3")
        assert status == 429 and int(headers["retry-after"]) == 2, headers
        time.sleep(2.2)
        assert _check(base, TOKEN, "127.0.0.3")[0] == 200
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0].decode()
    assert "warning: the authoring token" not in output


def test_a_short_token_is_warned_about(small_store):
    process, _ = start_server(small_store, env={"CHESSKB_AUTHOR_TOKEN": "x"})
    process.terminate()
    output = process.communicate(timeout=20)[0].decode()
    assert "warning: the authoring token (AUTHOR_TOKEN) has 1 characters" in output, output
