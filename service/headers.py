"""Security headers on every response of the service.

The Content-Security-Policy allows scripts from this site only (no inline script, no eval), lets
pages (the SPARQL editor included) talk to this site only, and forbids framing; with it, text from
the knowledge base or from a URL cannot run as script even where a template or a vendored library
(YASGUI's result views) would let markup through. Templates therefore keep their scripts in
``static/`` and pass data in ``<script type="application/json">`` blocks or ``data-`` attributes.
"""

from __future__ import annotations

from flask import Response

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # YASGUI and CodeMirror set style attributes
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",  # the editor may query this endpoint only
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def security_headers(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response
