"""The trading WebSocket: JSON-RPC 2.0 at ``{ws_url}/client`` over asyncio.

Request/response matching with a per-request timeout, batches, notification streams
with ``seq`` gap detection, heartbeats, a wait-and-retry on rate-limit refusals, and
automatic reconnection (what a reconnection restores is :class:`~legwork.client.LegworkClient`'s).
Connects, disconnects, reconnections and failed resumes are logged on the ``legwork`` logger.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from typing import Any, Mapping, Sequence

import websockets.client
import websockets.exceptions

from .errors import LegworkConnectionError, LegworkError, LegworkRpcError, RequestTimeout, rpc_error_from
from .rpc import CHANNELS, MAX_BATCH, RATE_LIMITED, JsonObject, Method, Params, _Entry, _json_default, _outcome
from .events import EventEmitter
from .subscription import BatchOutcome, RateLimitPolicy, ReconnectPolicy, Subscription
from .wire import MethodName

_log = logging.getLogger("legwork")


class RpcConnection(EventEmitter):
    """The connection and JSON-RPC layer of :class:`~legwork.client.LegworkClient` (use that class)."""

    def __init__(
        self,
        url: str,
        *,
        request_timeout: float = 10.0,
        reconnect: ReconnectPolicy | bool = True,
        heartbeat: float = 15.0,
        connect_timeout: float = 10.0,
        extra_headers: Mapping[str, str] | None = None,
        rate_limit: RateLimitPolicy | bool = True,
    ) -> None:
        super().__init__()
        self.url = url
        self.request_timeout = request_timeout
        self.reconnect: ReconnectPolicy | None = ReconnectPolicy() if reconnect is True else (reconnect or None)
        self.rate_limit: RateLimitPolicy | None = RateLimitPolicy() if rate_limit is True else (rate_limit or None)
        """Wait ``retry_after_ms`` and send again on a rate-limit refusal (``rate_limit=False``: raise at once)."""
        self.heartbeat = heartbeat
        self.connect_timeout = connect_timeout
        self.extra_headers = dict(extra_headers or {})
        self.gaps = 0
        """Number of ``seq`` gaps seen on connections (each also a ``gap`` event)."""
        self.missed_notifications = 0
        self._ws: websockets.client.WebSocketClientProtocol | None = None
        self._ready = asyncio.Event()
        self._closed = False
        self._started = False
        self._reconnecting: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._ids = itertools.count(1)
        self._pending: dict[int, _Entry] = {}
        self._last_seq = 0
        self._last_account_seq: dict[str, int] = {}
        self._channels: list[str] = []
        self._sinks: dict[str, list[Subscription[Any]]] = {}

    # Connection

    async def connect(self) -> None:
        """Opens the connection. A failure raises :class:`LegworkConnectionError`."""
        if self._closed:
            raise LegworkConnectionError("the client is closed")
        if self._started:
            raise LegworkConnectionError("connect() was called already")
        await self._open()
        self._started = True
        self._ready.set()

    @property
    def connected(self) -> bool:
        """True while connected and not restoring a session."""
        return self._ready.is_set() and not self._closed

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Closes for good: pending requests raise :class:`LegworkConnectionError`, subscriptions end."""
        if self._closed:
            return
        self._closed = True
        self._ready.set()  # wakes waiters, which then see the client closed
        self._wake.set()
        ws, self._ws = self._ws, None
        self._fail_all("the client is closed")
        for sinks in self._sinks.values():
            for sink in sinks:
                sink._end()
        self._sinks.clear()
        if ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(1000, "client closed"), 2)
        for task in [self._reconnecting, self._reader, *self._tasks]:
            if task is not None and task is not asyncio.current_task():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        _log.info("closed the connection to %s", self.url)
        self._emit("closed")

    # JSON-RPC

    async def call(self, method: Method, params: Params | None = None, *, timeout: float | None = None) -> Any:
        """One JSON-RPC request; while reconnecting it waits for the connection (within its timeout).
        A rate-limit refusal is retried after its ``retry_after_ms`` (see :attr:`rate_limit`).

        :raises RfqError | LegworkRpcError | RequestTimeout | LegworkConnectionError:
        """
        for attempt in itertools.count(1):
            (outcome,) = await self._request([(method, params)], timeout, internal=False, batch=False)
            if outcome.error is None:
                return outcome.result
            wait = self._rate_limit_wait(outcome.error, attempt)
            if wait is None:
                raise outcome.error
            _log.info("%s was rate limited: sending it again in %.3f s (retry %d)", method, wait, attempt)
            await asyncio.sleep(wait)

    def _rate_limit_wait(self, error: LegworkError, attempt: int) -> float | None:
        policy = self.rate_limit
        if policy is None or attempt > policy.max_retries or not isinstance(error, LegworkRpcError):
            return None
        if error.error not in RATE_LIMITED or error.retry_after_ms is None:
            return None
        return min(error.retry_after_ms / 1000, policy.max_wait)

    async def batch(self, requests: Sequence[tuple[Method, Params | None]], *, timeout: float | None = None) -> list[BatchOutcome]:
        """Sends 1 to 20 requests in one frame (a JSON-RPC batch); one outcome per request, in order (no rate-limit retry)."""
        if not 1 <= len(requests) <= MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} requests")
        return await self._request(list(requests), timeout, internal=False, batch=True)

    async def _call(self, internal: bool, method: MethodName, params: Params) -> Any:
        return await (self._internal(method, params) if internal else self.call(method, params))

    async def _internal(self, method: str, params: Params) -> Any:
        (outcome,) = await self._request([(method, params)], None, internal=True, batch=False)
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def _request(self, requests: list[tuple[str, Params | None]], timeout: float | None, *, internal: bool, batch: bool) -> list[BatchOutcome]:
        limit = self.request_timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        entries = [_Entry(method, params, loop.create_future()) for method, params in requests]
        try:
            async with asyncio.timeout(limit):
                ws = await self._socket(internal, entries[0].method)
                envelopes = [self._envelope(entry) for entry in entries]
                try:
                    await ws.send(json.dumps(envelopes if batch else envelopes[0], separators=(",", ":"), default=_json_default))
                except websockets.exceptions.ConnectionClosed as error:
                    raise LegworkConnectionError(f"send failed: {error}") from error
                await asyncio.wait([e.future for e in entries])
        except TimeoutError:
            for entry in entries:
                if not entry.future.done():
                    entry.future.set_exception(RequestTimeout(entry.method, limit))
        except LegworkConnectionError as error:
            for entry in entries:
                if not entry.future.done():
                    entry.future.set_exception(LegworkConnectionError(str(error), entry.method))
        finally:
            for entry in entries:
                if entry.id is not None:
                    self._pending.pop(entry.id, None)
        return [_outcome(entry) for entry in entries]

    def _envelope(self, entry: _Entry) -> JsonObject:
        entry.id = next(self._ids)
        self._pending[entry.id] = entry
        envelope: JsonObject = {"jsonrpc": "2.0", "id": entry.id, "method": entry.method}
        if entry.params is not None:
            envelope["params"] = dict(entry.params)
        return envelope

    async def _socket(self, internal: bool, method: str) -> websockets.client.WebSocketClientProtocol:
        if not internal:
            if not self._started:
                raise LegworkConnectionError("not connected: call connect() first")
            await self._ready.wait()
        if self._closed:
            raise LegworkConnectionError("the client is closed")
        if self._ws is None:
            raise LegworkConnectionError("not connected")
        return self._ws

    def _on_message(self, text: str | bytes) -> None:
        try:
            value = json.loads(text)
        except ValueError:
            return
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, dict):
                continue
            if item.get("method") == "subscription":
                self._on_notification(item.get("params"))
                continue
            rid = item.get("id")
            entry = self._pending.pop(rid, None) if isinstance(rid, int) else None
            if entry is None or entry.future.done():
                continue
            if item.get("error") is not None:
                entry.future.set_exception(rpc_error_from(item["error"], entry.method))
            else:
                entry.future.set_result(item.get("result"))

    # Notifications

    def _sink(self, channel: str) -> Subscription[Any]:
        sink: Subscription[Any] = Subscription(self, channel)
        if self._closed:
            sink._end()
        else:
            self._sinks.setdefault(channel, []).append(sink)
        return sink

    def _drop(self, sink: Subscription[Any]) -> None:
        with contextlib.suppress(ValueError, KeyError):
            self._sinks[sink.channel].remove(sink)

    def _on_notification(self, params: object) -> None:
        if not isinstance(params, dict):
            return
        channel, data = params.get("channel"), params.get("data")
        if not isinstance(channel, str) or not isinstance(data, dict):
            return
        seq = data.get("seq")
        if isinstance(seq, int):
            expected = self._last_seq + 1
            if seq > expected:
                self.gaps += 1
                self.missed_notifications += seq - expected
                _log.warning("missed %d notification(s) on %s (seq %d, expected %d)", seq - expected, channel, seq, expected)
                self._emit("gap", {"channel": channel, "expected": expected, "received": seq, "missed": seq - expected})
            self._last_seq = max(self._last_seq, seq)
        account_seq = data.get("account_seq")
        if isinstance(account_seq, int) and channel in CHANNELS:
            last = self._last_account_seq.get(channel)
            if last is not None and account_seq <= last:
                return  # delivered already (a replay overlapping what came before the reconnection)
            self._last_account_seq[channel] = account_seq
        self._emit("notification", channel, data)
        for sink in self._sinks.get(channel, []):
            sink._push(data)

    # Connection internals

    async def _open(self) -> None:
        try:
            ws = await websockets.client.connect(
                self.url,
                open_timeout=self.connect_timeout,
                ping_interval=self.heartbeat or None,
                ping_timeout=self.heartbeat or None,
                # A peer that misses its pong is cut at once, not after a polite closing handshake.
                close_timeout=1,
                max_size=None,
                compression=None,
                extra_headers=self.extra_headers or None,
            )
        except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException) as error:
            raise LegworkConnectionError(f"cannot connect to {self.url}: {error}") from error
        if self._closed:
            await ws.close()
            raise LegworkConnectionError("the client is closed")
        self._ws = ws
        self._last_seq = 0  # seq counts per connection
        self._reader = asyncio.create_task(self._read(ws))
        _log.info("connected to %s", self.url)

    async def _read(self, ws: websockets.client.WebSocketClientProtocol) -> None:
        try:
            async for message in ws:
                if ws is self._ws:
                    self._on_message(message)
        except websockets.exceptions.ConnectionClosed:
            pass
        finally:
            self._on_close(ws)

    def _on_close(self, ws: websockets.client.WebSocketClientProtocol) -> None:
        if ws is not self._ws:
            return
        self._ws = None
        self._ready.clear()
        code, reason = ws.close_code or 1006, ws.close_reason or ""
        self._fail_all(f"connection closed ({code}) before the reply")
        _log.warning("disconnected from %s (%d%s)", self.url, code, f": {reason}" if reason else "")
        self._emit("disconnected", code, reason)
        if self._closed or self._reconnecting is not None:
            return
        if self.reconnect is None:
            task = asyncio.ensure_future(self.close())
            self._tasks.add(task)
            return
        self._reconnecting = asyncio.create_task(self._reconnect_loop(self.reconnect))

    async def _reconnect_loop(self, policy: ReconnectPolicy) -> None:
        try:
            for attempt in itertools.count(1):
                if self._closed:
                    return
                if policy.max_attempts is not None and attempt > policy.max_attempts:
                    _log.error("gave up reconnecting to %s after %d attempts", self.url, policy.max_attempts)
                    self._reconnecting = None
                    await self.close()
                    return
                if await self._reconnect_once(attempt, policy.delay(attempt)):
                    return
        finally:
            if self._reconnecting is asyncio.current_task():
                self._reconnecting = None

    async def _reconnect_once(self, attempt: int, delay: float) -> bool:
        """One attempt after ``delay``; True when the loop ends (reconnected or closed)."""
        _log.info("reconnecting to %s in %.2f s (attempt %d)", self.url, delay, attempt)
        self._emit("reconnecting", attempt, delay)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), delay)
        if self._closed:
            return True
        try:
            await self._open()
            session = await self._restore()
        except (LegworkConnectionError, RequestTimeout) as error:
            _log.info("reconnection attempt %d failed: %s", attempt, error)
            ws, self._ws = self._ws, None
            if ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(), 1)
            return False
        if self._closed:
            return True
        self._reconnecting = None
        self._ready.set()
        _log.info("reconnected to %s (attempt %d)", self.url, attempt)
        self._emit("reconnected", attempt, session)
        return True

    async def _restore(self) -> Any:
        """On a fresh connection, before requests flow again: what the subclass restores (session, subscriptions)."""
        return None

    def _fail_all(self, message: str) -> None:
        for entry in list(self._pending.values()):
            if not entry.future.done():
                entry.future.set_exception(LegworkConnectionError(message, entry.method))
        self._pending.clear()

    async def drop_connection(self) -> None:
        """Closes the current connection as a network fault would (the client reconnects): for tests and drills."""
        ws = self._ws
        if ws is not None:
            ws.transport.abort()
