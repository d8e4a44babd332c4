"""Against a live exchange: sign in, create, quote, accept, fill, positions, balances and
receipts; typed errors; a server killed and restarted mid-stream with every event seen
exactly once."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest

from legwork import (
    LegworkClient,
    LegworkHttp,
    LegworkRpcError,
    Maker,
    ReceiptVerifier,
    ReconnectPolicy,
    RequestTimeout,
    RfqError,
    Taker,
    parse_http_decimal,
    parse_rfq_decimal,
    receipt_in_journal,
    to_micro,
    untyped,
    wait_for_event,
)

from legwork.wire import RfqView

from .conftest import Exchange, Market


async def desks(exchange: Exchange, **client_options: Any) -> tuple[Taker, Maker]:
    taker_account = exchange.account(["taker"], "1000")
    maker_account = exchange.account(["quoter"], "10000")
    taker_client = await LegworkClient.open(exchange.ws_url, **client_options)
    maker_client = await LegworkClient.open(exchange.ws_url, **client_options)
    await taker_client.sign_in(taker_account.keypair)
    await maker_client.sign_in(maker_account.keypair)
    return Taker(taker_client, taker_account.keypair), Maker(maker_client, maker_account.keypair)


async def test_trade_end_to_end(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        assert taker.client.session is not None and taker.client.session["roles"] == ["taker"]
        low, high = market.symbol("150"), market.symbol("160")
        rfq_events = await taker.subscribe()
        maker_events = await maker.subscribe()
        rfq = await taker.create([(low, Decimal("10")), (high, "-10")])
        assert rfq["state"] == "pending" and rfq["legs"] == [{"instrument": low, "quantity": "10"}, {"instrument": high, "quantity": "-10"}]

        created: Any = await wait_for_event(maker_events, rfq["rfq_id"], ["created"], 10)
        await maker.refresh()
        marks = [parse_rfq_decimal(maker.instruments[s]["mark_price"]) for s in (low, high)]
        mid = 10 * marks[0] - 10 * marks[1]
        sent = await maker.respond(created["rfq"], (mid - Decimal("0.5")).quantize(Decimal("0.000001")), mid + Decimal("0.5"))
        assert sent.result["state"] == "quoted" and len(sent.quote.payload) == 1050

        quoted: Any = await wait_for_event(rfq_events, rfq["rfq_id"], ["quoted"], 10)
        assert quoted["rfq"]["quote"]["quote_id"] == sent.quote.quote_id
        assert await taker.verify_quote(quoted["rfq"])
        accepted = await taker.accept(quoted["rfq"], "buy")
        assert accepted["state"] == "accepted"
        filled: Any = await wait_for_event(rfq_events, rfq["rfq_id"], ["filled", "failed"], 30)
        assert filled["event"] == "filled", filled
        fill = filled["rfq"]["fill"]
        assert parse_rfq_decimal(fill["price"]) == parse_rfq_decimal(quoted["rfq"]["quote"]["ask"])
        maker_filled: Any = await wait_for_event(maker_events, rfq["rfq_id"], ["filled"], 10)

        async with LegworkHttp(exchange.url, taker.client.session_token) as taker_http, LegworkHttp(exchange.url) as maker_http:
            await maker_http.sign_in(maker.keypair)
            verifier = await ReceiptVerifier.load(taker_http)
            decoded = verifier.verify(fill["receipt"], fill={**fill, "rfq_id": rfq["rfq_id"], "quote_id": sent.quote.quote_id, "legs": rfq["legs"]}, taker=taker.keypair.wallet)
            assert decoded.maker == maker.keypair.wallet and decoded.price == to_micro(sent.quote.params["ask"]) and decoded.side == "buy"
            m_fill = maker_filled["rfq"]["fill"]
            assert m_fill["receipt"]["hash"] == fill["receipt"]["hash"]
            verifier.verify(m_fill["receipt"], fill={**m_fill, "rfq_id": rfq["rfq_id"], "role": "maker"})

            positions = {r["instrument"]: parse_http_decimal(r["quantity"]) for r in (await taker_http.rfq_positions())["rows"]}
            assert positions == {low: Decimal(10), high: Decimal(-10)}
            maker_positions = {r["instrument"]: parse_http_decimal(r["quantity"]) for r in (await maker_http.rfq_positions())["rows"]}
            assert maker_positions == {low: Decimal(-10), high: Decimal(10)}
            price, fee = parse_rfq_decimal(fill["price"]), parse_rfq_decimal(fill["fee"])
            taker_balance = (await taker_http.balances())["rows"][0]
            assert parse_http_decimal(taker_balance["total"]) == Decimal(1000) - price - fee
            maker_balance = (await maker_http.balances())["rows"][0]
            assert parse_http_decimal(maker_balance["total"]) == Decimal(10000) + price

            rows = (await taker_http.rfq_fills())["rows"]
            assert [r["rfq_id"] for r in rows] == [rfq["rfq_id"]]
            verifier.verify_fill_row(rows[0], taker=taker.keypair.wallet)
            verifier.verify_fill_row((await maker_http.rfq_fills())["rows"][0])
            walk = await ReceiptVerifier.walk_journal(taker_http)
            assert walk.ok and walk.head is not None and walk.head.journal_seq >= fill["receipt"]["journal_seq"], walk
            journal = await taker_http.journal(after=fill["receipt"]["journal_seq"] - 1, limit=1)
            assert receipt_in_journal(fill["receipt"], journal["rows"][0])
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_typed_errors_batches_and_timeouts(exchange: Exchange, market: Market) -> None:
    taker, maker = await desks(exchange)
    try:
        with pytest.raises(RfqError) as caught:
            await taker.client.get_rfq("0" * 32)
        assert caught.value.error == "RFQ_NOT_FOUND" and caught.value.code == 1200
        assert caught.value.retryable is False and len(caught.value.operation_id) == 36
        with pytest.raises(RfqError) as caught:
            await maker.client.create_rfq([{"instrument": market.symbol("150"), "quantity": "1"}])
        assert caught.value.error == "RFQ_WRONG_ROLE"
        with pytest.raises(RfqError) as caught:
            await taker.client.create_rfq([{"instrument": market.symbol("150"), "quantity": "-0"}])
        assert caught.value.error == "RFQ_PRECISION_UNSUPPORTED"
        with pytest.raises(LegworkRpcError) as rpc:
            await taker.client.call(untyped("public/no_such_method"), {})
        assert rpc.value.code == -32601 and not isinstance(rpc.value, RfqError)
        outcomes = await taker.client.batch([("public/get_market_config", {}), ("rfq.get", {"rfq_id": "f" * 32}), ("public/get_instruments", {"asset": "SOL"})])
        assert [o.ok for o in outcomes] == [True, False, True]
        assert isinstance(outcomes[1].error, RfqError) and outcomes[1].error.error == "RFQ_NOT_FOUND"
        assert outcomes[0].result["quote_domain"] == maker.domain or maker.domain is None
        with pytest.raises(RequestTimeout):
            await taker.client.call("public/get_instruments", {}, timeout=0.0001)
        # The connection is still usable after a timed-out request.
        assert (await taker.client.get_market_config())["decimals"] == 6
    finally:
        await taker.client.close()
        await maker.client.close()


async def test_restart_mid_stream_every_event_once(exchange: Exchange, market: Market) -> None:
    """The exchange is SIGKILLed while quotes flow and started again on the same data; events committed
    while the taker was away come by replay, none twice, in account_seq order."""
    policy = ReconnectPolicy(initial_delay=0.5, max_delay=1.0, jitter=0)
    taker, maker = await desks(exchange, reconnect=policy, request_timeout=20)
    seen: list[Any] = []
    reconnected = asyncio.Event()
    taker.client.on("reconnected", lambda attempt, session: reconnected.set())
    try:
        events = await taker.subscribe()
        maker_events = await maker.subscribe()
        maker_seen: list[Any] = []

        async def collect() -> None:
            async for n in events:
                seen.append(n)

        async def collect_maker() -> None:
            async for n in maker_events:
                if "account_seq" in n:  # created and closed are broadcasts, not replayed
                    maker_seen.append(n)

        collector = asyncio.create_task(collect())
        maker_collector = asyncio.create_task(collect_maker())
        await maker.refresh()
        strikes = ["140", "145", "150", "155", "160"]
        rfqs = [await taker.create([(market.symbol(s), "1")]) for s in strikes]
        for rfq in rfqs[:3]:
            await maker.respond(rfq, Decimal("1"), Decimal("2"))
        exchange.kill()  # mid-stream: the last quotes' notifications may or may not have gone out
        await asyncio.sleep(0.5)
        exchange.start()
        exchange.feed()
        await quote_and_decline_while_away(exchange, maker, rfqs[3], rfqs[4])
        await asyncio.wait_for(reconnected.wait(), 30)
        quoted = (await taker.client.get_rfq(rfqs[3]["rfq_id"]))
        await taker.accept(quoted, "sell")
        await wait_until(lambda: any(n["event"] in ("filled", "failed") for n in seen), 30)
        await wait_until(lambda: any(n["event"] in ("filled", "failed") for n in maker_seen), 30)
        await asyncio.sleep(0.5)  # anything duplicated would arrive now
        collector.cancel()
        maker_collector.cancel()
        # The maker's own client came back too, and heard its quote's accept and fill once each.
        assert [(n["rfq"]["rfq_id"], n["event"]) for n in maker_seen] == [(rfqs[3]["rfq_id"], "accepted"), (rfqs[3]["rfq_id"], "filled")]
        maker_seqs = [n["account_seq"] for n in maker_seen]
        assert maker_seqs == sorted(set(maker_seqs)), maker_seqs

        seqs = [n["account_seq"] for n in seen]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
        assert seqs[0] == 1
        kinds = [(n["rfq"]["rfq_id"], n["event"]) for n in seen]
        expected = [(r["rfq_id"], "quoted") for r in rfqs[:4]] + [(rfqs[4]["rfq_id"], "declined")]
        expected += [(rfqs[3]["rfq_id"], e) for e in ("accepted", "submitting", "filled")]
        assert kinds == expected, kinds
    finally:
        await taker.client.close()
        await maker.client.close()


async def quote_and_decline_while_away(exchange: Exchange, maker: Maker, quoted: RfqView, declined: RfqView) -> None:
    """While the taker is still away: a fresh maker connection quotes one RFQ and declines another."""
    async with await LegworkClient.open(exchange.ws_url) as again:
        await again.sign_in(maker.keypair)
        fresh = Maker(again, maker.keypair)
        await fresh.respond(quoted, Decimal("1"), Decimal("2"))
        await fresh.decline(declined["rfq_id"], "low_confidence")


async def wait_until(predicate: Any, timeout: float) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)
