"""The client's connection logic against a scripted JSON-RPC server (no exchange): replay
after a reconnect with every event once and in order, a dead peer cut by the heartbeat,
requests waiting through a reconnection, batches, timeouts and typed errors."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator

import pytest
import websockets.exceptions
import websockets.server

from legwork import Keypair, LegworkClient, LegworkConnectionError, LegworkRpcError, ReconnectPolicy, RequestTimeout, RfqError, untyped

FAST = ReconnectPolicy(initial_delay=0.05, max_delay=0.2, jitter=0)


class FakeExchange:
    """Sign-in, session resume, rfq.subscribe with replay (which also re-sends the event at
    ``since``, as an overlap the client must drop), live events, and faults on demand."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.connections: list[websockets.server.WebSocketServerProtocol] = []
        self.subscribes: list[dict[str, Any]] = []
        self.resumes = 0
        self.silent = False  # answer nothing (a hung peer)
        self.limited_once = False
        self.port = 0
        self.requests: list[tuple[str, dict[str, Any]]] = []

    async def handler(self, ws: websockets.server.WebSocketServerProtocol) -> None:
        self.connections.append(ws)
        seq = 0
        try:
            async for text in ws:
                if self.silent:
                    continue
                message = json.loads(text)
                batch = isinstance(message, list)
                replies = []
                for request in message if batch else [message]:
                    method, params, rid = request["method"], request.get("params") or {}, request["id"]
                    self.requests.append((method, params))
                    if method == "rfq.subscribe":
                        self.subscribes.append(params)
                        since = params.get("since")
                        if since is not None:
                            for event in self.events[max(since - 1, 0):]:  # from `since` itself: one overlap
                                seq += 1
                                await ws.send(json.dumps({"jsonrpc": "2.0", "method": "subscription", "params": {"channel": "rfq", "data": {**event, "seq": seq}}}))
                        replies.append({"jsonrpc": "2.0", "id": rid, "result": {"channel": "rfq", "subscribed": True, "account_seq": len(self.events)}})
                    elif method == "public/get_nonce":
                        replies.append({"jsonrpc": "2.0", "id": rid, "result": {"nonce": "0123456789abcdef0123456789abcdef"}})
                    elif method in ("public/auth", "public/session_resume"):
                        self.resumes += method == "public/session_resume"
                        replies.append({"jsonrpc": "2.0", "id": rid, "result": {"wallet": "w", "account_id": 1, "roles": ["taker"], "session_token": "token"}})
                    elif method == "rfq.get":
                        data = {"error": "RFQ_NOT_FOUND", "message": "no such RFQ", "operation_id": "op-1", "retryable": False}
                        replies.append({"jsonrpc": "2.0", "id": rid, "error": {"code": 1200, "message": "no such RFQ", "data": data}})
                    elif method == "public/slow":
                        await asyncio.sleep(1)
                        replies.append({"jsonrpc": "2.0", "id": rid, "result": {}})
                    elif method == "public/limited_once" and not self.limited_once:
                        self.limited_once = True
                        data = {"error": "RATE_LIMITED", "message": "slow down", "retry_after_ms": 200}
                        replies.append({"jsonrpc": "2.0", "id": rid, "error": {"code": 1005, "message": "slow down", "data": data}})
                    elif method == "public/limited":
                        data = {"error": "RATE_LIMITED", "message": "slow down", "retry_after_ms": 1500}
                        replies.append({"jsonrpc": "2.0", "id": rid, "error": {"code": 1005, "message": "slow down", "data": data}})
                    else:
                        replies.append({"jsonrpc": "2.0", "id": rid, "result": {"echo": method}})
                await ws.send(json.dumps(replies if batch else replies[0]))
        except websockets.exceptions.ConnectionClosed:
            pass

    async def publish(self, event: str) -> None:
        """A new account event, sent live to every open connection."""
        data = {"event": event, "account_seq": len(self.events) + 1, "rfq": {"rfq_id": f"{len(self.events) + 1:032x}"}}
        self.events.append(data)
        for ws in list(self.connections):
            with contextlib.suppress(websockets.exceptions.ConnectionClosed):
                await ws.send(json.dumps({"jsonrpc": "2.0", "method": "subscription", "params": {"channel": "rfq", "data": {**data, "seq": 0}}}))

    def commit_unsent(self, event: str) -> None:
        """An event committed while no broadcast reached the client (it comes by replay only)."""
        self.events.append({"event": event, "account_seq": len(self.events) + 1, "rfq": {"rfq_id": f"{len(self.events) + 1:032x}"}})

    def drop_all(self) -> None:
        for ws in self.connections:
            ws.transport.abort()
        self.connections.clear()


@pytest.fixture
async def fake() -> AsyncIterator[FakeExchange]:
    exchange = FakeExchange()
    server = await websockets.server.serve(exchange.handler, "127.0.0.1", 0)
    exchange.port = list(server.sockets)[0].getsockname()[1]
    yield exchange
    for ws in server.websockets:
        ws.transport.abort()
    server.close()
    await server.wait_closed()


def url(fake: FakeExchange) -> str:
    return f"ws://127.0.0.1:{fake.port}/client"


async def test_replay_after_reconnect_delivers_each_event_once_in_order(fake: FakeExchange) -> None:
    client = await LegworkClient.open(url(fake), reconnect=FAST)
    reconnected = asyncio.Event()
    client.on("reconnected", lambda attempt, session: reconnected.set())
    try:
        await client.sign_in(Keypair.generate())
        events = client.notifications("rfq")
        await client.subscribe_rfq()
        await fake.publish("quoted")
        await fake.publish("accepted")
        assert [(await events.next(2))["account_seq"] for _ in range(2)] == [1, 2]
        fake.drop_all()
        fake.commit_unsent("submitting")  # while away
        fake.commit_unsent("filled")
        await asyncio.wait_for(reconnected.wait(), 5)
        await fake.publish("expired")
        got = [(await events.next(2)) for _ in range(3)]
        assert [n["account_seq"] for n in got] == [3, 4, 5] and [n["event"] for n in got] == ["submitting", "filled", "expired"]
        assert fake.subscribes[-1] == {"since": 2} and fake.resumes == 1  # resumed with the token, from the last event delivered
        assert client.last_delivered("rfq") == 5
        await asyncio.sleep(0.1)
        assert events.pending() == 0  # the overlap (account_seq 2 again) was dropped
    finally:
        await client.close()


async def test_subscribe_since_replays_what_the_application_kept(fake: FakeExchange) -> None:
    for name in ("quoted", "accepted", "submitting"):
        fake.commit_unsent(name)
    async with await LegworkClient.open(url(fake), reconnect=False) as client:
        events = client.notifications("rfq")
        result = await client.subscribe_rfq(since=1)
        assert result["account_seq"] == 3
        assert [(await events.next(1))["account_seq"] for _ in range(2)] == [2, 3]


async def test_a_silent_peer_is_cut_by_the_heartbeat_and_requests_wait_for_the_reconnection(fake: FakeExchange) -> None:
    client = await LegworkClient.open(url(fake), reconnect=FAST, heartbeat=0.2)
    disconnected = asyncio.Event()
    client.on("disconnected", lambda code, reason: disconnected.set())
    try:
        first = fake.connections[0]
        first.transport.pause_reading()  # the peer neither reads nor answers pings
        await asyncio.wait_for(disconnected.wait(), 3)
        # A request made while reconnecting waits and is answered on the new connection.
        assert await client.call("public/get_market_config", {}, timeout=5) == {"echo": "public/get_market_config"}
        assert len(fake.connections) >= 2
    finally:
        await client.close()


async def test_batches_timeouts_and_typed_errors(fake: FakeExchange) -> None:
    async with await LegworkClient.open(url(fake), reconnect=False) as client:
        outcomes = await client.batch([(untyped("public/a"), {}), ("rfq.get", {"rfq_id": "0" * 32}), (untyped("public/b"), None)])
        assert [o.ok for o in outcomes] == [True, False, True] and outcomes[2].result == {"echo": "public/b"}
        error = outcomes[1].error
        assert isinstance(error, RfqError) and error.error == "RFQ_NOT_FOUND" and error.operation_id == "op-1" and error.retryable is False
        with pytest.raises(RequestTimeout):
            await client.call(untyped("public/slow"), {}, timeout=0.1)
        with pytest.raises(LegworkRpcError) as limited:
            await client.call(untyped("public/limited"), {})
        assert limited.value.code == 1005 and limited.value.error == "RATE_LIMITED" and limited.value.retry_after_ms == 1500
        with pytest.raises(ValueError):
            await client.batch([])


async def test_in_flight_request_fails_on_a_lost_connection_and_close_ends_streams(fake: FakeExchange) -> None:
    client = await LegworkClient.open(url(fake), reconnect=False)
    events = client.notifications("rfq")
    call = asyncio.create_task(client.call(untyped("public/slow"), {}, timeout=5))
    await asyncio.sleep(0.1)
    fake.drop_all()
    with pytest.raises(LegworkConnectionError):
        await call
    await asyncio.sleep(0.1)
    assert client.closed  # without reconnection the client closes
    with pytest.raises(LegworkConnectionError):
        await events.next(1)
    with pytest.raises(LegworkConnectionError):
        await client.call(untyped("public/a"), {})


async def test_a_failing_listener_does_not_break_the_connection(fake: FakeExchange) -> None:
    async with await LegworkClient.open(url(fake), reconnect=False) as client:
        def broken(channel: str, data: dict[str, Any]) -> None:
            raise RuntimeError("application bug")

        client.on("notification", broken)
        events = client.notifications("rfq")
        await client.subscribe_rfq()
        await fake.publish("quoted")
        assert (await events.next(2))["event"] == "quoted"
        assert await client.call(untyped("public/a"), {}) == {"echo": "public/a"}
