"""The trading WebSocket: JSON-RPC 2.0 at ``{ws_url}/client`` over asyncio.

Request/response matching with a per-request timeout, batches, sign-in, typed RFQ
methods, notification streams with ``seq`` gap detection, heartbeats, and automatic
reconnection that resumes the session with ``public/session_resume`` (or signs in
again with the remembered key) and re-subscribes each channel with ``since`` = the
last ``account_seq`` handed to the application, dropping what was delivered already:
the application sees every event of its account exactly once, in order, across
disconnects and server restarts (design.md section 13, docs/events.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import uuid
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping, Sequence, Union

import websockets.client
import websockets.exceptions

from .errors import LegworkConnectionError, LegworkError, LegworkRpcError, RequestTimeout, rpc_error_from
from .signin import DEFAULT_SERVICE_NAME, message_to_sign
from .wallet import Keypair
from .wire import SUBSCRIBE_METHODS

_log = logging.getLogger("legwork")

JsonObject = dict[str, Any]
Listener = Callable[..., Union[None, Awaitable[None]]]

CHANNELS = tuple(SUBSCRIBE_METHODS)
MAX_BATCH = 20
EVENTS = ("notification", "gap", "disconnected", "reconnecting", "reconnected", "resume_error", "closed")


@dataclass(frozen=True)
class ReconnectPolicy:
    """Backoff: the delay of attempt n is ``min(max_delay, initial_delay * factor ** (n - 1))``, less up to ``jitter`` of it."""

    initial_delay: float = 0.25
    max_delay: float = 10.0
    factor: float = 2.0
    jitter: float = 0.2
    max_attempts: int | None = None
    """Attempts before giving up (the client then closes); None: no limit."""

    def delay(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * self.factor ** (attempt - 1))
        return base * (1 - self.jitter * random.random())


@dataclass(frozen=True)
class BatchOutcome:
    """The outcome of one request of a batch: ``result`` when ``ok``, else ``error``."""

    ok: bool
    result: Any = None
    error: LegworkError | None = None


class _End:
    pass


_END = _End()


class Subscription:
    """The notifications of one channel (``params.data``: ``{ seq, event, rfq, account_seq? }``), in order.

    An async iterator; :meth:`next` waits with a timeout. Notifications are buffered
    from the moment the subscription is made until read. Ends when the client closes.
    """

    def __init__(self, client: LegworkClient, channel: str) -> None:
        self.channel = channel
        self._client = client
        self._queue: asyncio.Queue[JsonObject | _End] = asyncio.Queue()
        self._done = False

    def _push(self, data: JsonObject) -> None:
        if not self._done:
            self._queue.put_nowait(data)

    def _end(self) -> None:
        if not self._done:
            self._done = True
            self._queue.put_nowait(_END)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> JsonObject:
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)
            raise StopAsyncIteration
        return item

    async def next(self, timeout: float | None = None) -> JsonObject:
        """The next notification.

        :raises TimeoutError: none within ``timeout`` seconds
        :raises LegworkConnectionError: the client closed
        """
        try:
            return await asyncio.wait_for(self.__anext__(), timeout)
        except StopAsyncIteration:
            raise LegworkConnectionError("the client is closed") from None

    def pending(self) -> int:
        """Notifications buffered and not read yet."""
        return self._queue.qsize()

    def close(self) -> None:
        """Stops buffering; the iterator ends."""
        self._client._drop(self)
        self._end()


@dataclass
class _Entry:
    method: str
    params: Mapping[str, Any] | None
    future: asyncio.Future[Any]
    id: int | None = None


class LegworkClient:
    """An asyncio client of the trading WebSocket.

    Every ``rfq.*`` failure raises :class:`~legwork.errors.RfqError` (code 1200), other
    error replies :class:`~legwork.errors.LegworkRpcError`; no reply in time:
    :class:`~legwork.errors.RequestTimeout`; connection lost with the request in
    flight: :class:`~legwork.errors.LegworkConnectionError`.

    ::

        async with await LegworkClient.open("ws://127.0.0.1:3000/client") as client:
            await client.sign_in(Keypair.from_hex(seed_hex))
            events = client.notifications("rfq")
            await client.subscribe_rfq()
            async for n in events:
                print(n["account_seq"], n["event"], n["rfq"]["state"])
    """

    def __init__(
        self,
        url: str,
        *,
        request_timeout: float = 10.0,
        reconnect: ReconnectPolicy | bool = True,
        heartbeat: float = 15.0,
        service_name: str = DEFAULT_SERVICE_NAME,
        connect_timeout: float = 10.0,
        extra_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.url = url
        self.request_timeout = request_timeout
        self.reconnect: ReconnectPolicy | None = ReconnectPolicy() if reconnect is True else (reconnect or None)
        self.heartbeat = heartbeat
        self.service_name = service_name
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
        self._sinks: dict[str, list[Subscription]] = {}
        self._listeners: dict[str, list[Listener]] = {name: [] for name in EVENTS}
        self._token: str | None = None
        self._keypair: Keypair | None = None
        self._session: JsonObject | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # Connection

    @classmethod
    async def open(cls, url: str, **options: Any) -> LegworkClient:
        """Creates a client and connects it (the first connection is not retried)."""
        client = cls(url, **options)
        await client.connect()
        return client

    async def connect(self) -> None:
        """Opens the connection. A failure raises :class:`LegworkConnectionError`."""
        if self._closed:
            raise LegworkConnectionError("the client is closed")
        if self._started:
            raise LegworkConnectionError("connect() was called already")
        await self._open()
        self._started = True
        self._ready.set()

    async def __aenter__(self) -> LegworkClient:
        if not self._started:
            await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        """True while connected and not restoring a session."""
        return self._ready.is_set() and not self._closed

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def session_token(self) -> str | None:
        """The session token of the last sign-in or resume (a bearer for :class:`~legwork.http.LegworkHttp` too)."""
        return self._token

    @property
    def session(self) -> JsonObject | None:
        """The result of the last sign-in or resume: ``{ wallet, account_id, roles, session_token }``."""
        return self._session

    @property
    def subscriptions(self) -> list[str]:
        """The channels subscribed (re-subscribed after a reconnection)."""
        return list(self._channels)

    def last_delivered(self, channel: str) -> int | None:
        """The last ``account_seq`` handed to the application on ``channel`` (keep it to resume a later process with ``since``)."""
        return self._last_account_seq.get(channel)

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
        self._emit("closed")

    # Events

    def on(self, event: str, listener: Listener) -> None:
        """Adds a listener: ``notification(channel, data)``, ``gap(info)``, ``disconnected(code, reason)``,
        ``reconnecting(attempt, delay)``, ``reconnected(attempt, session)``, ``resume_error(error)``, ``closed()``.
        A listener may be a coroutine function."""
        if event not in self._listeners:
            raise ValueError(f"unknown event {event!r}; one of {', '.join(EVENTS)}")
        self._listeners[event].append(listener)

    def off(self, event: str, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners[event].remove(listener)

    def _emit(self, event: str, *args: Any) -> None:
        # A listener's failure is logged, never raised into the connection's reader.
        for listener in list(self._listeners[event]):
            try:
                result = listener(*args)
            except Exception:
                _log.exception("listener of %s failed", event)
                continue
            if asyncio.iscoroutine(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._listener_done)

    def _listener_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("listener failed", exc_info=task.exception())

    # JSON-RPC

    async def call(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        """One JSON-RPC request; while reconnecting it waits for the connection (within its timeout).

        :raises RfqError | LegworkRpcError | RequestTimeout | LegworkConnectionError:
        """
        (outcome,) = await self._request([(method, params)], timeout, internal=False, batch=False)
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def batch(self, requests: Sequence[tuple[str, Mapping[str, Any] | None]], *, timeout: float | None = None) -> list[BatchOutcome]:
        """Sends 1 to 20 requests in one frame (a JSON-RPC batch); one outcome per request, in order."""
        if not 1 <= len(requests) <= MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} requests")
        return await self._request(list(requests), timeout, internal=False, batch=True)

    async def _call(self, internal: bool, method: str, params: Mapping[str, Any]) -> Any:
        return await (self._internal(method, params) if internal else self.call(method, params))

    async def _internal(self, method: str, params: Mapping[str, Any]) -> Any:
        (outcome,) = await self._request([(method, params)], None, internal=True, batch=False)
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def _request(self, requests: list[tuple[str, Mapping[str, Any] | None]], timeout: float | None, *, internal: bool, batch: bool) -> list[BatchOutcome]:
        limit = self.request_timeout if timeout is None else timeout
        loop = asyncio.get_running_loop()
        entries = [_Entry(method, params, loop.create_future()) for method, params in requests]
        try:
            async with asyncio.timeout(limit):
                ws = await self._socket(internal, entries[0].method)
                envelopes = []
                for entry in entries:
                    entry.id = next(self._ids)
                    self._pending[entry.id] = entry
                    envelope: JsonObject = {"jsonrpc": "2.0", "id": entry.id, "method": entry.method}
                    if entry.params is not None:
                        envelope["params"] = dict(entry.params)
                    envelopes.append(envelope)
                try:
                    await ws.send(json.dumps(envelopes if batch else envelopes[0], separators=(",", ":"), default=_json_default))
                except websockets.exceptions.ConnectionClosed as error:
                    raise LegworkConnectionError(f"send failed: {error}", entries[0].method) from error
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
        outcomes = []
        for entry in entries:
            failure = entry.future.exception()
            if failure is None:
                outcomes.append(BatchOutcome(True, entry.future.result()))
            elif isinstance(failure, LegworkError):
                outcomes.append(BatchOutcome(False, error=failure))
            else:
                raise failure
        return outcomes

    async def _socket(self, internal: bool, method: str) -> websockets.client.WebSocketClientProtocol:
        if not internal:
            if not self._started:
                raise LegworkConnectionError("not connected: call connect() first", method)
            await self._ready.wait()
        if self._closed:
            raise LegworkConnectionError("the client is closed", method)
        if self._ws is None:
            raise LegworkConnectionError("not connected", method)
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

    def notifications(self, channel: str) -> Subscription:
        """A stream of the notifications of ``channel`` from now on. Make it before subscribing, so nothing is missed."""
        sink = Subscription(self, channel)
        if self._closed:
            sink._end()
        else:
            self._sinks.setdefault(channel, []).append(sink)
        return sink

    def _drop(self, sink: Subscription) -> None:
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

    # Sign-in and session

    async def sign_in(self, keypair: Keypair) -> JsonObject:
        """``public/get_nonce``, sign the message, ``public/auth``.

        Remembers the session token (to resume after a reconnection) and the key (to
        sign in again when the token can no longer be resumed).
        """
        return await self._sign_in(keypair, internal=False)

    async def _sign_in(self, keypair: Keypair, *, internal: bool) -> JsonObject:
        nonce = await self._call(internal, "public/get_nonce", {"wallet": keypair.wallet})
        message = message_to_sign(nonce, keypair.wallet, self.service_name)
        result: JsonObject = await self._call(internal, "public/auth", {"wallet": keypair.wallet, "signature": keypair.sign_base58(message), "message": message})
        self._keypair = keypair
        self._remember(result)
        return result

    async def resume_session(self, session_token: str) -> JsonObject:
        """``public/session_resume``: signs this connection in with a token kept from before."""
        result: JsonObject = await self.call("public/session_resume", {"session_token": session_token})
        self._remember(result)
        return result

    def _remember(self, result: JsonObject) -> None:
        self._session = result
        self._token = result.get("session_token")

    # Market

    async def get_market_config(self) -> JsonObject:
        """``public/get_market_config``: service name, ``quote_domain``, decimals, RFQ limits, index prices."""
        result: JsonObject = await self.call("public/get_market_config", {})
        return result

    async def get_instruments(self, *, asset: str | None = None, expiry: int | None = None, include_settled: bool | None = None) -> list[JsonObject]:
        """``public/get_instruments``: instrument records with ``mark_price`` and ``iv``."""
        result = await self.call("public/get_instruments", _clean(asset=asset, expiry=expiry, include_settled=include_settled))
        return list(result["instruments"])

    # RFQ: taker

    async def create_rfq(self, legs: Sequence[Mapping[str, Any]], client_ref: str | None = None) -> JsonObject:
        """``rfq.create`` (taker role); idempotent by ``client_ref``, generated when omitted."""
        result: JsonObject = await self.call("rfq.create", {"client_ref": client_ref or str(uuid.uuid4()), "legs": [dict(leg) for leg in legs]})
        return result

    async def get_rfq(self, rfq_id: str) -> JsonObject:
        result: JsonObject = await self.call("rfq.get", {"rfq_id": rfq_id})
        return result

    async def list_rfqs(self, *, states: Sequence[str] | None = None, cursor: str | None = None, limit: int | None = None) -> JsonObject:
        """``rfq.list``: ``{ items, next_cursor? }``, newest first."""
        result: JsonObject = await self.call("rfq.list", _clean(states=list(states) if states else None, cursor=cursor, limit=limit))
        return result

    async def accept(self, params: Mapping[str, Any]) -> JsonObject:
        """``rfq.accept`` with params built by :func:`~legwork.quotes.sign_accept`; retrying the same params is safe."""
        result: JsonObject = await self.call("rfq.accept", params)
        return result

    async def cancel_rfq(self, rfq_id: str) -> JsonObject:
        """``rfq.cancel``: a pending or quoted RFQ of the caller ends ``expired`` (idempotent)."""
        result: JsonObject = await self.call("rfq.cancel", {"rfq_id": rfq_id})
        return result

    async def cancel_all(self) -> JsonObject:
        """``rfq.cancel_all``: ``{ cancelled: [rfq_id] }``, oldest first."""
        result: JsonObject = await self.call("rfq.cancel_all", {})
        return result

    async def subscribe_rfq(self, since: int | None = None) -> JsonObject:
        """``rfq.subscribe``: taker events on channel ``rfq``, kept across reconnections (exactly once, in order).

        ``since`` (an ``account_seq`` kept by the application) replays the stored events after it first.
        """
        return await self._subscribe("rfq", since)

    # RFQ: quoter

    async def poll(self, *, cursor: str | None = None, limit: int | None = None) -> JsonObject:
        """``rfq.maker.poll``: ``{ items, next_cursor? }``, pending RFQs oldest first."""
        result: JsonObject = await self.call("rfq.maker.poll", _clean(cursor=cursor, limit=limit))
        return result

    async def respond(self, params: Mapping[str, Any]) -> JsonObject:
        """``rfq.maker.respond`` with params built by :func:`~legwork.quotes.build_quote`."""
        result: JsonObject = await self.call("rfq.maker.respond", params)
        return result

    async def check(self, params: Mapping[str, Any]) -> JsonObject:
        """``rfq.maker.check``: every check of respond, nothing stored: ``{ ok, quote_id, payload }``."""
        result: JsonObject = await self.call("rfq.maker.check", params)
        return result

    async def decline(self, rfq_id: str, reason: str) -> JsonObject:
        result: JsonObject = await self.call("rfq.maker.decline", {"rfq_id": rfq_id, "reason": reason})
        return result

    async def subscribe_maker(self, since: int | None = None) -> JsonObject:
        """``rfq.maker.subscribe`` (quoter role): channel ``rfq_maker``, kept across reconnections like :meth:`subscribe_rfq`."""
        return await self._subscribe("rfq_maker", since)

    async def set_limits(self, limits: Mapping[str, Any]) -> JsonObject:
        """``rfq.maker.set_limits { limits }`` (wire form; see :func:`~legwork.desk.limits_to_wire`)."""
        result: JsonObject = await self.call("rfq.maker.set_limits", {"limits": dict(limits)})
        return result

    async def get_limits(self) -> JsonObject:
        """``rfq.maker.get_limits``: ``{ limits, admin_limits, usage, protection }``."""
        result: JsonObject = await self.call("rfq.maker.get_limits", {})
        return result

    async def reset_protection(self) -> JsonObject:
        result: JsonObject = await self.call("rfq.maker.reset_protection", {})
        return result

    async def _subscribe(self, channel: str, since: int | None) -> JsonObject:
        if since is not None:
            self._last_account_seq[channel] = since
        result: JsonObject = await self.call(SUBSCRIBE_METHODS[channel], {} if since is None else {"since": since})
        if channel not in self._channels:
            self._channels.append(channel)
        latest = result.get("account_seq")
        if since is None and isinstance(latest, int):
            self._last_account_seq[channel] = max(self._last_account_seq.get(channel, 0), latest)
        return result

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
                    self._reconnecting = None
                    await self.close()
                    return
                delay = policy.delay(attempt)
                self._emit("reconnecting", attempt, delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                if self._closed:
                    return
                try:
                    await self._open()
                    session = await self._restore()
                except (LegworkConnectionError, RequestTimeout):
                    ws, self._ws = self._ws, None
                    if ws is not None:
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(ws.close(), 1)
                    continue
                if self._closed:
                    return
                self._reconnecting = None
                self._ready.set()
                self._emit("reconnected", attempt, session)
                return
        finally:
            if self._reconnecting is asyncio.current_task():
                self._reconnecting = None

    async def _restore(self) -> JsonObject | None:
        """On a fresh connection: resume (or sign in again), then re-subscribe each channel from the last event delivered."""
        session: JsonObject | None = None
        if self._token is not None:
            try:
                resumed: JsonObject = await self._internal("public/session_resume", {"session_token": self._token})
                self._remember(resumed)
                session = resumed
            except LegworkRpcError as error:
                session = None
                if self._keypair is not None:
                    try:
                        session = await self._sign_in(self._keypair, internal=True)
                    except LegworkRpcError as again:
                        self._emit("resume_error", again)
                else:
                    self._emit("resume_error", error)
                if session is None:
                    self._token = None
                    self._session = None
        for channel in list(self._channels):
            since = self._last_account_seq.get(channel)
            try:
                await self._internal(SUBSCRIBE_METHODS[channel], {} if since is None else {"since": since})
            except LegworkRpcError as error:
                self._emit("resume_error", error)
                live: JsonObject | None = None
                if since is not None:
                    # Older than the stored events (7 days): live from now; the application re-reads its state.
                    with contextlib.suppress(LegworkRpcError):
                        live = await self._internal(SUBSCRIBE_METHODS[channel], {})
                if live is not None and isinstance(live.get("account_seq"), int):
                    self._last_account_seq[channel] = live["account_seq"]
                elif live is None:
                    self._channels.remove(channel)
        return session

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


def _clean(**params: Any) -> JsonObject:
    return {k: v for k, v in params.items() if v is not None}


def _json_default(value: object) -> Any:
    from decimal import Decimal

    if isinstance(value, Decimal):
        raise TypeError("a Decimal goes on the wire as an RFQ decimal string: use rfq_decimal()")
    raise TypeError(f"{type(value).__name__} is not JSON")
