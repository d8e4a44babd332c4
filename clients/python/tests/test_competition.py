"""Competitive RFQs (design.md section 18) against a live exchange: a panel of two makers, the best
quote taken per side with ``accept_best``, the transcript checked with the exchange key, quotes
withdrawn, the maker profile; ``rfq.makers`` and ``rfq.maker.stats`` skip while the exchange does
not serve them, and their method names and params are checked against the scripted server."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from legwork import Keypair, LegworkClient, Maker, NoBestQuote, RfqError, Taker, TranscriptNotVerified, competition_params, parse_rfq_decimal

from .conftest import Exchange, Market
from .test_client import FakeExchange, fake, url
from .test_desk import served

__all__ = ["fake"]
MICRO = Decimal("0.000001")


@dataclass
class Panel:
    taker: Taker
    makers: list[Maker]

    @property
    def wallets(self) -> list[str]:
        return [m.keypair.wallet for m in self.makers]


async def panel(exchange: Exchange, stack: AsyncExitStack, makers: int = 2, **taker_options: Any) -> Panel:
    async def signed_in(roles: list[str], deposit: str) -> tuple[LegworkClient, Keypair]:
        account = exchange.account(roles, deposit)
        client = await stack.enter_async_context(await LegworkClient.open(exchange.ws_url))
        await client.sign_in(account.keypair)
        return client, account.keypair

    taker = Taker(*await signed_in(["taker"], "1000"), **taker_options)
    # The test's RFQs end with it: later tests run makers that quote whatever is pending.
    stack.push_async_callback(taker.cancel_all)
    return Panel(taker, [Maker(*await signed_in(["quoter"], "10000")) for _ in range(makers)])


async def mid_of(maker: Maker, symbol: str) -> Decimal:
    await maker.refresh()
    return parse_rfq_decimal(maker.instruments[symbol]["mark_price"] or "0")


@pytest.mark.parametrize("side", ["buy", "sell"])
async def test_accept_best_takes_the_best_ask_to_buy_and_the_best_bid_to_sell(exchange: Exchange, market: Market, side: str) -> None:
    async with AsyncExitStack() as stack:
        p = await panel(exchange, stack)
        symbol = market.symbol("150")
        rfq = await p.taker.create([(symbol, "1")], makers=p.wallets)
        assert rfq["competition"] == {"makers": p.wallets} and rfq["best"] == {"bid": None, "ask": None}
        with pytest.raises(NoBestQuote, match="no live"):
            await p.taker.accept_best(rfq["rfq_id"], "buy")
        mid = await mid_of(p.makers[0], symbol)
        narrow_ask = await p.makers[0].respond(rfq, mid - Decimal("0.5"), mid + Decimal("0.3"))  # the best ask
        high_bid = await p.makers[1].respond(rfq, mid - Decimal("0.2"), mid + Decimal("0.8"))  # the best bid
        view = await p.taker.client.get_rfq(rfq["rfq_id"])
        assert view["best"] == {"bid": high_bid.quote.quote_id, "ask": narrow_ask.quote.quote_id} and view["quote"] is None

        accepted = await p.taker.accept_best(rfq["rfq_id"], "buy" if side == "buy" else "sell")
        winner, loser = (narrow_ask, high_bid) if side == "buy" else (high_bid, narrow_ask)
        assert accepted["quote_id"] == winner.quote.quote_id and accepted["side"] == side and accepted.get("best") is True

        signed = await p.taker.transcript(rfq["rfq_id"])
        t = signed["transcript"]
        assert t["rfq_id"] == rfq["rfq_id"] and t["makers"] == p.wallets
        assert t["accepted"] is not None and t["accepted"]["quote_id"] == winner.quote.quote_id and t["accepted"]["side"] == side
        assert {q["quote_id"]: q["end"] for q in t["quotes"]} == {winner.quote.quote_id: "accepted", loser.quote.quote_id: "traded_away"}


async def test_accept_best_refuses_a_seed_rfq_and_the_transcript_must_verify(exchange: Exchange, market: Market) -> None:
    async with AsyncExitStack() as stack:
        p = await panel(exchange, stack, makers=1, exchange_key=Keypair.generate().wallet)
        seed = await p.taker.create([(market.symbol("150"), "1")])
        assert seed["competition"] is None and seed["best"] is None
        with pytest.raises(NoBestQuote, match="not competitive"):
            await p.taker.accept_best(seed["rfq_id"], "sell")
        rfq = await p.taker.create([(market.symbol("150"), "1")], makers=p.wallets)
        await p.taker.cancel(rfq["rfq_id"])
        with pytest.raises(TranscriptNotVerified) as caught:  # the desk was given another key than the exchange's
            await p.taker.transcript(rfq["rfq_id"])
        assert caught.value.check.fault == "key_id"
        checked = await Taker(p.taker.client, p.taker.keypair).transcript(rfq["rfq_id"])  # the key read from the exchange
        assert checked["transcript"]["quotes"] == [] and checked["transcript"]["accepted"] is None


async def test_a_maker_withdraws_its_quotes_and_names_itself(exchange: Exchange, market: Market) -> None:
    async with AsyncExitStack() as stack:
        p = await panel(exchange, stack, makers=1)
        maker, symbol = p.makers[0], market.symbol("150")
        mid = await mid_of(maker, symbol)
        first, second = [await p.taker.create([(symbol, "1")], competitive=True) for _ in range(2)]
        one = await maker.respond(first, mid - 1, mid + 1)
        two = await maker.respond(second, mid - 1, mid + 1)
        assert await maker.cancel_quote(one.quote.quote_id) == {"quote_id": one.quote.quote_id, "state": "cancelled"}
        assert await maker.cancel_quote(one.quote.quote_id) == {"quote_id": one.quote.quote_id, "state": "cancelled"}
        assert await maker.cancel_quotes() == [two.quote.quote_id]
        assert (await p.taker.client.get_rfq(second["rfq_id"]))["state"] == "pending"
        seed = await p.taker.create([(symbol, "1")])
        firm = await maker.respond(seed, mid - 1, mid + 1)
        with pytest.raises(RfqError) as caught:
            await maker.cancel_quote(firm.quote.quote_id)
        assert caught.value.error == "RFQ_STATE_CONFLICT"
        assert await maker.set_profile(listed=True, name="py desk") == {"listed": True, "name": "py desk", "cancel_on_disconnect": False}
        assert (await maker.set_profile(listed=False))["name"] == "py desk"


async def test_the_directory_and_the_makers_own_stats(exchange: Exchange, market: Market) -> None:
    async with AsyncExitStack() as stack:
        p = await panel(exchange, stack, makers=1)
        maker = p.makers[0]
        await maker.set_profile(listed=True, name="py stats")
        stats = await served(maker.stats(), "rfq.maker.stats", "the maker directory")
        assert set(stats) == {"rfqs", "quoted", "median_response_ms", "cancelled", "replaced", "won"}
        listed = (await served(p.taker.client.makers(), "rfq.makers", "the maker directory"))["makers"]
        mine = [m for m in listed if m["wallet"] == maker.keypair.wallet]
        assert mine and mine[0]["name"] == "py stats" and mine[0]["stats"] == stats


async def test_the_competition_calls_send_their_methods_and_params(fake: FakeExchange) -> None:
    async with await LegworkClient.open(url(fake), reconnect=False) as client:
        calls = [
            (client.makers(), "rfq.makers", {}),
            (client.maker_stats(), "rfq.maker.stats", {}),
            (client.cancel_quotes(), "rfq.maker.cancel_quotes", {}),
            (client.cancel_quote("q"), "rfq.maker.cancel_quote", {"quote_id": "q"}),
            (client.set_profile(name="n"), "rfq.maker.set_profile", {"name": "n"}),
            (client.transcript("r"), "rfq.transcript", {"rfq_id": "r"}),
            (client.create_rfq([], "ref", competition=competition_params()), "rfq.create", {"client_ref": "ref", "legs": [], "competition": {}}),
            (client.create_rfq([], "ref"), "rfq.create", {"client_ref": "ref", "legs": []}),
        ]
        for call, method, params in calls:
            answer: Any = await call
            assert answer == {"echo": method} and fake.requests[-1] == (method, params)
    assert competition_params() == {} and competition_params(("a", "b")) == {"makers": ["a", "b"]}
    with pytest.raises(TypeError):
        competition_params("a")
