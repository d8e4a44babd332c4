"""Where the exchange is: ``LEGWORK_URL``, named environments, and the two URLs of one exchange.

Every client, desk and example resolves its address the same way (:func:`endpoints`): an explicit
URL or environment name first, then ``LEGWORK_URL``, then ``LEGWORK_ENV`` (a name below), then
``local``. An address may be given as the HTTP base (``http://host:3000``), the trading WebSocket
(``ws://host:3000/client``) or a name; the other form is derived.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit, urlunsplit

EnvironmentName = Literal["local", "sandbox"]

ENVIRONMENTS: Final[dict[EnvironmentName, str]] = {
    "local": "http://127.0.0.1:3000",
    "sandbox": "http://127.0.0.1:3000",
}
"""``local``: ``npm start`` on this machine. ``sandbox``: ``npm run sandbox`` on this machine (its default
port; it prints the ``LEGWORK_URL`` to export when ``PORT`` moves it)."""

WS_PATH: Final = "/client"


@dataclass(frozen=True)
class Endpoints:
    """The two addresses of one exchange."""

    http_url: str
    """The HTTP base, e.g. ``http://127.0.0.1:3000`` (query API, keys, journal, admin)."""
    ws_url: str
    """The trading WebSocket, e.g. ``ws://127.0.0.1:3000/client``."""


def endpoints(url: str | None = None) -> Endpoints:
    """Resolves ``url`` (a URL or an environment name; None: ``LEGWORK_URL``, then ``LEGWORK_ENV``, then ``local``).

    :raises ValueError: an unknown environment name or a URL of another scheme
    """
    chosen = url or os.environ.get("LEGWORK_URL") or os.environ.get("LEGWORK_ENV") or "local"
    if chosen in ENVIRONMENTS:
        chosen = ENVIRONMENTS[chosen]  # type: ignore[index]
    parts = urlsplit(chosen)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
        raise ValueError(f"{chosen!r} is neither a URL (http, https, ws, wss) nor an environment ({', '.join(ENVIRONMENTS)})")
    secure = parts.scheme in ("https", "wss")
    path = parts.path.rstrip("/")
    base = path[: -len(WS_PATH)] if path.endswith(WS_PATH) else path
    http_url = urlunsplit(("https" if secure else "http", parts.netloc, base, "", ""))
    ws_url = urlunsplit(("wss" if secure else "ws", parts.netloc, base + WS_PATH, parts.query, ""))
    return Endpoints(http_url, ws_url)
