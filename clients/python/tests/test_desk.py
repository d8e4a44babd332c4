"""The desk methods of design.md section 15 against a live exchange.

Server side needed (written from the contract; each test skips, naming the branch,
while the exchange answers METHOD_NOT_FOUND for its method):
  - rfq.cancel, rfq.cancel_all, idempotent rfq.accept: branch d-cancel
  - rfq.maker.check, rfq.maker.set_limits / get_limits / reset_protection: branch d-limits
"""

from __future__ import annotations

import base64
import os
from decimal import Decimal
from typing import Any, Awaitable, TypeVar

import pytest

from legwork import LegworkRpcError, RfqError, payload_diff, sign_accept, wait_for_event

from .conftest import Exchange, Market
from .test_live import desks

T = TypeVar("T")


async def served(call: Awaitable[T], method: str, branch: str) -> T:
    """The result, or a skip naming the branch that brings the method while the exchange does not know it."""
    try:
        return await call
    except LegworkRpcError as error:
        if error.code == -32601:
            pytest.skip(f"the exchange does not serve {method} yet (server side: branch {branch})")
        raise


async def require(client: Any, method: str, params: dict[str, Any], branch: str) -> None:
    """Skips, naming the branch, while the exchange does not know ``method`` (any other answer will do)."""
    try:
        await client.call(method, params)
    except LegworkRpcError as error:
        if error.code == -32601:
            pytest.skip(f"the exchange does not serve {method} yet (server side: branch {branch})")


async def test_cancel_and_cancel_all(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        events = await taker.subscribe()
        maker_events = await maker.subscribe()
        pending = await taker.create([(market.symbol("150"), "1")])
        cancelled = await served(taker.cancel(pending["rfq_id"]), "rfq.cancel", "d-cancel")
        assert cancelled["rfq_id"] == pending["rfq_id"] and cancelled["state"] == "expired" and isinstance(cancelled["cancelled_at"], int)
        assert await taker.cancel(pending["rfq_id"]) == cancelled  # idempotent
        heard: Any = await wait_for_event(events, pending["rfq_id"], ["expired"], 10)
        assert heard["rfq"]["cancelled_at"] == cancelled["cancelled_at"]
        closed: Any = await wait_for_event(maker_events, pending["rfq_id"], ["closed"], 10)
        assert closed["rfq"]["state"] == "expired"

        quoted = await taker.create([(market.symbol("155"), "2")])
        other = await taker.create([(market.symbol("145"), "-1")])
        await maker.respond(quoted, Decimal("1"), Decimal("2"))
        await wait_for_event(events, quoted["rfq_id"], ["quoted"], 10)
        assert await taker.cancel_all() == [quoted["rfq_id"], other["rfq_id"]]
        expired: Any = await wait_for_event(maker_events, quoted["rfq_id"], ["expired"], 10)
        assert expired["rfq"]["quote_id"]
        with pytest.raises(RfqError) as caught:
            await taker.cancel("0" * 32)
        assert caught.value.error == "RFQ_NOT_FOUND"
        assert await taker.cancel_all() == []
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_cancel_of_a_filled_rfq_conflicts_and_accept_is_idempotent(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        await require(taker.client, "rfq.cancel", {"rfq_id": "0" * 32}, "d-cancel")
        events = await taker.subscribe()
        rfq = await taker.create([(market.symbol("150"), "1")])
        await maker.respond(rfq, Decimal("5"), Decimal("6"))
        quoted: Any = (await wait_for_event(events, rfq["rfq_id"], ["quoted"], 10))["rfq"]
        params = sign_accept(taker.keypair, rfq_id=rfq["rfq_id"], quote_id=quoted["quote"]["quote_id"], side="buy", expires_at=quoted["quote"]["expires_at"])
        first = await taker.client.accept(params)
        await wait_for_event(events, rfq["rfq_id"], ["filled"], 30)
        again = await taker.client.accept(params)
        assert again == first
        with pytest.raises(RfqError) as caught:
            await taker.cancel(rfq["rfq_id"])
        assert caught.value.error == "RFQ_STATE_CONFLICT"
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_check_agrees_on_every_byte_and_surfaces_a_signature_error(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        rfq = await taker.create([(market.symbol("150"), "3"), (market.symbol("160"), "-3")])
        ok = await served(maker.check(rfq, Decimal("10.5"), Decimal("11.25")), "rfq.maker.check", "d-limits")
        built = await maker.build(rfq, Decimal("10.5"), Decimal("11.25"), quote_nonce=maker.next_nonce())
        assert ok["ok"] is True
        # The exchange built the same 1,050 bytes from the params (the nonce differs: rebuild with check's).
        check_built = await maker.build(rfq, Decimal("10.5"), Decimal("11.25"), quote_nonce=built.params["quote_nonce"], issued_at=built.params["issued_at"])
        checked = await maker.client.check(check_built.params)
        assert base64.b64decode(checked["payload"]) == check_built.payload and checked["quote_id"] == check_built.quote_id

        tampered: dict[str, Any] = {**built.params, "bid": "10.4"}  # signed 10.5, sent 10.4
        with pytest.raises(RfqError) as caught:
            await maker.client.check(tampered)
        error = caught.value
        assert error.error == "RFQ_INVALID_SIGNATURE" and error.code == 1200 and not error.retryable and error.operation_id
        assert error.payload is not None and error.quote_id is not None
        diff = payload_diff(built.payload, error.payload)
        assert len(diff) == 1 and diff[0].startswith("bid (bytes 104..112)"), diff
        # check consumed no nonce: respond with the very params checked goes through.
        sent = await maker.client.respond(built.params)
        assert sent["quote_id"] == built.quote_id
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_limits_kill_switch_and_protection(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        result = await served(maker.set_limits(max_open_quotes=0, max_open_notional=Decimal("100000"), max_open_delta={"SOL": Decimal("50")}), "rfq.maker.set_limits", "d-limits")
        assert result["limits"]["max_open_quotes"] == 0 and result["limits"]["max_open_notional"] == "100000"
        assert result["limits"]["max_open_delta"] == {"SOL": "50"}
        rfq = await taker.create([(market.symbol("150"), "1")])
        with pytest.raises(RfqError) as caught:
            await maker.respond(rfq, Decimal("1"), Decimal("2"))
        # Retryable on an exchange before design.md section 19; there the kill switch says so and is not retryable.
        assert caught.value.error == "RFQ_OPEN_LIMIT" and (caught.value.retryable if caught.value.reason is None else caught.value.reason == "kill_switch")
        await maker.set_limits(max_open_quotes=5, price_band_bps=10)
        with pytest.raises(RfqError) as caught:
            await maker.respond(rfq, Decimal("0"), Decimal("1000"))  # far off the mark: the fat-finger stop
        assert caught.value.error == "RFQ_PRICE_TOLERANCE"
        await maker.set_limits({})
        sent = await maker.respond(rfq, Decimal("1"), Decimal("2"))
        limits = await maker.get_limits()
        assert limits["usage"]["open_quotes"] == 1 and "admin_limits" in limits and "protection" in limits
        assert sent.result["state"] == "quoted"
        reset = await served(maker.reset_protection(), "rfq.maker.reset_protection", "d-limits")
        assert isinstance(reset, dict)
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_reference_maker_sets_its_limits_from_flags(exchange: Exchange, market: Market) -> None:
    import sys

    from .test_cross import PYTHON_DIR, Process

    taker, maker = await desks(exchange)
    try:
        await require(maker.client, "rfq.maker.get_limits", {}, "d-limits")
        env = {**os.environ, "LEGWORK_URL": exchange.url, "LEGWORK_MAKER_SEED": maker.keypair.seed.hex(), "PYTHONPATH": str(PYTHON_DIR)}
        args = ["--max-open-quotes", "0", "--max-open-delta", "SOL:100", "--protect-window", "60", "--protect-max-fills", "5", "--protect-frozen", "0"]
        process = Process([sys.executable, "clients/python/examples/maker.py", *args], env)
        try:
            process.wait_for(r"maker  signed in as account", 30)
            held = (await maker.get_limits())["limits"]
            assert held["max_open_quotes"] == 0 and held["max_open_delta"] == {"SOL": "100"}
            assert held["protection"]["window_seconds"] == 60 and held["protection"]["max_fills"] == 5
            rfq = await taker.create([(market.symbol("150"), "1")])
            process.wait_for(rf"limit    rfq {rfq['rfq_id'][:8]}…: not quoted, RFQ_OPEN_LIMIT", 15)  # the kill switch
        finally:
            process.stop()
    finally:
        await taker.client.close()
        await maker.client.close()
