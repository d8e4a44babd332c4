"""A WebSocket relay between a client and the exchange, for the tests that need to act at the moment a
given request is in flight (e.g. SIGKILL the exchange right after a respond left the client).

JSON-RPC frames are relayed as they are, both ways; plain HTTP requests (the reference maker reads
``/v1/exchange/keys`` at start) are fetched from the exchange and answered. ``on_request(method,
when, callback)`` runs ``callback`` once, right after a request of that method (and params) was forwarded. While
``open`` is False, new connections are refused (the exchange is away).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import urllib.request
from typing import Any, Callable, Coroutine

import websockets.client
import websockets.datastructures
import websockets.exceptions
import websockets.server


class Relay:
    def __init__(self, upstream_http: str, upstream_ws: str) -> None:
        self.upstream_http = upstream_http
        self.upstream_ws = upstream_ws
        self.open = True
        self.port = 0
        self._hooks: dict[str, tuple[Callable[[dict[str, Any]], bool], Callable[[], Coroutine[Any, Any, None]]]] = {}
        self._server: Any = None
        self.connections = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await websockets.server.serve(self._handle, "127.0.0.1", 0, process_request=self._http)
        self.port = list(self._server.sockets)[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def on_request(self, method: str, when: Callable[[dict[str, Any]], bool], callback: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Runs ``callback`` once, after the first request of ``method`` whose params satisfy ``when`` was forwarded."""
        self._hooks[method] = (when, callback)

    async def close(self) -> None:
        self._server.close()
        await self._server.wait_closed()

    async def _http(self, path: str, headers: websockets.datastructures.Headers) -> Any:
        if headers.get("upgrade", "").lower() == "websocket":
            return None if self.open else (http.HTTPStatus.SERVICE_UNAVAILABLE, [], b"away")

        def fetch() -> bytes:
            with urllib.request.urlopen(self.upstream_http + path, timeout=10) as response:
                data: bytes = response.read()
                return data

        try:
            body = await asyncio.to_thread(fetch)
        except OSError:
            return (http.HTTPStatus.BAD_GATEWAY, [], b"")
        return (http.HTTPStatus.OK, [("content-type", "application/json")], body)

    async def _handle(self, client: websockets.server.WebSocketServerProtocol) -> None:
        try:
            upstream = await websockets.client.connect(self.upstream_ws, max_size=None)
        except (OSError, websockets.exceptions.WebSocketException):
            await client.close(1011, "upstream away")
            return
        self.connections += 1
        both = [asyncio.create_task(self._pipe(client, upstream, hooks=True)), asyncio.create_task(self._pipe(upstream, client, hooks=False))]
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        for task in both:
            task.cancel()
        for ws in (client, upstream):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)

    async def _pipe(self, source: Any, sink: Any, *, hooks: bool) -> None:
        with contextlib.suppress(websockets.exceptions.ConnectionClosed):
            async for message in source:
                await sink.send(message)
                if hooks:
                    await self._after(message)

    async def _after(self, message: str | bytes) -> None:
        try:
            parsed = json.loads(message)
        except ValueError:
            return
        method = parsed.get("method") if isinstance(parsed, dict) else None
        armed = self._hooks.get(method) if isinstance(method, str) else None
        if armed is None or not armed[0](parsed.get("params") or {}):
            return
        hook = self._hooks.pop(str(method))[1]
        if hook is not None:
            # A task of its own: the pipe that saw the request is cancelled when the exchange goes away.
            self._tasks.add(asyncio.create_task(hook()))
