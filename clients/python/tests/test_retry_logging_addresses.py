"""The client's retry, logging and preset behaviour against the scripted server: a rate-limited request waits its
``retry_after_ms`` and goes through (or raises at once when turned off), the ``legwork`` logger
reports connects, disconnects, reconnections and failed resumes, and addresses resolve from
``LEGWORK_URL`` and the environment presets."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from legwork import LegworkClient, LegworkRpcError, RfqError, endpoints, untyped
from legwork.errors import rpc_error_from

from .test_client import FAST, FakeExchange, fake, url

__all__ = ["fake"]


async def test_a_rate_limited_request_waits_retry_after_ms_and_goes_through(fake: FakeExchange) -> None:
    async with await LegworkClient.open(url(fake), reconnect=False) as client:
        started = time.monotonic()
        assert await client.call(untyped("public/limited_once"), {}) == {"echo": "public/limited_once"}
        assert time.monotonic() - started >= 0.2


async def test_the_rate_limit_retry_can_be_turned_off(fake: FakeExchange) -> None:
    async with await LegworkClient.open(url(fake), reconnect=False, rate_limit=False) as client:
        with pytest.raises(LegworkRpcError) as limited:
            await client.call(untyped("public/limited_once"), {})
        assert limited.value.error == "RATE_LIMITED" and limited.value.retry_after_ms == 200


async def test_the_legwork_logger_reports_the_connection(fake: FakeExchange, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="legwork")
    client = await LegworkClient.open(url(fake), reconnect=FAST)
    reconnected = asyncio.Event()
    client.on("reconnected", lambda attempt, session: reconnected.set())
    try:
        fake.drop_all()
        await asyncio.wait_for(reconnected.wait(), 5)
    finally:
        await client.close()
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "legwork")
    for expected in ("connected to ws://", "disconnected from ws://", "reconnecting to ws://", "reconnected to ws://", "closed the connection"):
        assert expected in text, text


def test_addresses_resolve_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGWORK_URL", raising=False)
    monkeypatch.delenv("LEGWORK_ENV", raising=False)
    assert endpoints().ws_url == "ws://127.0.0.1:3000/client" and endpoints("local").http_url == "http://127.0.0.1:3000"
    assert endpoints("https://x.example/base/client").http_url == "https://x.example/base"
    assert endpoints("https://x.example/base").ws_url == "wss://x.example/base/client"
    monkeypatch.setenv("LEGWORK_URL", "http://10.0.0.5:4000")
    assert endpoints().ws_url == "ws://10.0.0.5:4000/client" and LegworkClient().url == "ws://10.0.0.5:4000/client"
    with pytest.raises(ValueError):
        endpoints("staging")


def test_rfq_errors_carry_a_typed_reason_and_name_the_method_once() -> None:
    data: dict[str, Any] = {"error": "RFQ_OPEN_LIMIT", "message": "rfq.maker.respond: the kill switch is on", "operation_id": "op", "retryable": False, "reason": "kill_switch"}
    error = rpc_error_from({"code": 1200, "message": "refused", "data": data}, "rfq.maker.respond")
    assert isinstance(error, RfqError) and error.reason == "kill_switch" and error.reason_text == "kill_switch"
    assert str(error) == "rfq.maker.respond: the kill switch is on"
    newer = rpc_error_from({"code": 1200, "message": "x", "data": {**data, "reason": "a_newer_word"}}, "rfq.maker.respond")
    assert isinstance(newer, RfqError) and newer.reason is None and newer.reason_text == "a_newer_word"
    assert str(newer) == "rfq.maker.respond: the kill switch is on"
    plain = rpc_error_from({"code": 1200, "message": "x", "data": {**data, "message": "no such RFQ"}}, "rfq.get")
    assert str(plain) == "rfq.get: no such RFQ"
