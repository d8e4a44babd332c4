"""The blocking facade against a live exchange: a full lifecycle (create, quote, accept, fill, the
receipt), the limits a desk merges and zeroes (update_limits, kill_switch), and a competitive RFQ."""

from __future__ import annotations

from decimal import Decimal

import pytest

from legwork import ReceiptVerifier, RfqError, parse_rfq_decimal
from legwork.sync import SyncClient, SyncMaker, SyncTaker, wait_for_event

from .conftest import Exchange, Market


def test_a_lifecycle_through_the_sync_facade(exchange: Exchange, market: Market) -> None:
    taker_account, maker_account = exchange.account(["taker"], "1000"), exchange.account(["quoter"], "10000")
    with SyncClient(exchange.url) as taker_client, SyncClient(exchange.ws_url) as maker_client:
        assert taker_client.sign_in(taker_account.keypair)["roles"] == ["taker"]
        maker_client.sign_in(maker_account.keypair)
        taker, maker = SyncTaker(taker_client, taker_account.keypair), SyncMaker(maker_client, maker_account.keypair)
        events, maker_events = taker.subscribe(), maker.subscribe()
        rfq = taker.create([(market.symbol("150"), "2")])
        created = wait_for_event(maker_events, rfq["rfq_id"], ["created"], 10)
        assert created["event"] == "created"
        maker.refresh()
        mark = parse_rfq_decimal(maker.instruments[market.symbol("150")]["mark_price"] or "0")
        sent = maker.respond(created["rfq"], (2 * mark - 1).quantize(Decimal("0.000001")), (2 * mark + 1).quantize(Decimal("0.000001")))
        assert sent.result["state"] == "quoted"
        quoted = wait_for_event(events, rfq["rfq_id"], ["quoted"], 10)
        assert quoted["rfq"]["quote"] is not None and quoted["rfq"]["quote"]["quote_id"] == sent.quote.quote_id
        assert taker.verify_quote(quoted["rfq"])
        assert taker.accept(quoted["rfq"], "buy")["state"] == "accepted"
        filled = wait_for_event(events, rfq["rfq_id"], ["filled", "failed"], 30)
        assert filled["event"] == "filled" and filled["rfq"]["fill"] is not None
        fill = filled["rfq"]["fill"]
        assert parse_rfq_decimal(fill["price"]) == parse_rfq_decimal(sent.quote.params["ask"])
        keys = exchange.admin("GET", "/v1/exchange/keys")
        assert "receipt" in fill
        decoded = ReceiptVerifier(keys["keys"]).verify(
            fill["receipt"], fill={**fill, "rfq_id": rfq["rfq_id"], "quote_id": sent.quote.quote_id, "legs": rfq["legs"]}, taker=taker_account.keypair.wallet
        )
        assert decoded.maker == maker_account.keypair.wallet
    assert taker_client.aio.closed and maker_client.aio.closed


def test_update_limits_merges_and_the_kill_switch_keeps_the_other_limits(exchange: Exchange, market: Market) -> None:
    taker_account, maker_account = exchange.account(["taker"], "1000"), exchange.account(["quoter"], "10000")
    with SyncClient(exchange.url) as taker_client, SyncClient(exchange.url) as maker_client:
        taker_client.sign_in(taker_account.keypair)
        maker_client.sign_in(maker_account.keypair)
        taker, maker = SyncTaker(taker_client, taker_account.keypair), SyncMaker(maker_client, maker_account.keypair)
        maker.set_limits(max_open_quotes=7, max_open_notional=Decimal("100000"), max_open_delta={"SOL": Decimal("50")})
        held = maker.update_limits(price_band_bps=2000)["limits"]
        assert held == {"max_open_quotes": 7, "max_open_notional": "100000", "max_open_delta": {"SOL": "50"}, "price_band_bps": 2000}
        assert "max_open_notional" not in maker.update_limits(max_open_notional=None)["limits"]
        killed = maker.kill_switch()["limits"]
        assert killed == {"max_open_quotes": 0, "max_open_delta": {"SOL": "50"}, "price_band_bps": 2000}
        rfq = taker.create([(market.symbol("150"), "1")])
        with pytest.raises(RfqError) as caught:
            maker.respond(rfq, Decimal("1"), Decimal("2"))
        assert caught.value.error == "RFQ_OPEN_LIMIT" and caught.value.reason in (None, "kill_switch")
        assert maker.kill_switch(False)["limits"]["max_open_quotes"] == 7


def test_a_competitive_rfq_through_the_sync_facade(exchange: Exchange, market: Market) -> None:
    taker_account, maker_account = exchange.account(["taker"], "1000"), exchange.account(["quoter"], "10000")
    with SyncClient(exchange.url) as taker_client, SyncClient(exchange.url) as maker_client:
        taker_client.sign_in(taker_account.keypair)
        maker_client.sign_in(maker_account.keypair)
        taker, maker = SyncTaker(taker_client, taker_account.keypair), SyncMaker(maker_client, maker_account.keypair)
        assert maker.set_profile(name="sync desk")["name"] == "sync desk"
        rfq = taker.create([(market.symbol("150"), "1")], makers=[maker_account.keypair.wallet])
        maker.refresh()
        mark = parse_rfq_decimal(maker.instruments[market.symbol("150")]["mark_price"] or "0")
        withdrawn = maker.respond(rfq, mark - 1, mark + 1)
        assert maker.cancel_quote(withdrawn.quote.quote_id)["state"] == "cancelled" and maker.cancel_quotes() == []
        sent = maker.respond(rfq, mark - 1, mark + 1)
        accepted = taker.accept_best(rfq["rfq_id"], "sell")
        assert accepted["quote_id"] == sent.quote.quote_id and accepted["side"] == "sell"
        ends = {q["quote_id"]: q["end"] for q in taker.transcript(rfq["rfq_id"])["transcript"]["quotes"]}
        assert ends == {withdrawn.quote.quote_id: "cancelled", sent.quote.quote_id: "accepted"}
        assert taker_client.transcript(rfq["rfq_id"])["transcript"]["rfq_id"] == rfq["rfq_id"]
