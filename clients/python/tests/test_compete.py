"""The reference maker with ``--compete`` on an exchange of its own (market data older than 4 s is
stale there): it lists itself under its name, quotes a competitive RFQ of a panel naming it,
replaces that quote when the index moves the package mid, and withdraws it once the market data
goes stale; the transcript shows the quote replaced, then cancelled. And the quick start's
competitive trade: ``taker.py --compete`` against two competing reference makers takes the better
bid and checks the transcript."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from legwork import Keypair, LegworkClient, LegworkRpcError, Taker

from .conftest import ASSET, DAY, IV, Exchange, Market, build_if_stale
from .test_cross import PYTHON_DIR, Process


class Feed:
    """Posts the index every second while on (the price can be moved between posts)."""

    def __init__(self, exchange: Exchange, price: str) -> None:
        self.exchange, self.price, self.on = exchange, price, True
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def post(self) -> None:
        self.exchange.admin("POST", "/v1/admin/market-data", {"asset": ASSET, "index_price": self.price, "iv": IV})

    def run(self) -> None:
        while not self.stop.wait(1):
            if self.on:
                self.post()


@pytest.fixture(scope="module")
def fast_stale() -> Iterator[Exchange]:
    build_if_stale()
    workdir = Path(tempfile.mkdtemp(prefix="legwork-py-compete-"))
    exchange = Exchange(workdir)
    exchange.env["MARKET_DATA_MAX_AGE_SECONDS"] = "4"
    try:
        exchange.start()
        yield exchange
    finally:
        exchange.destroy()


async def live_quotes(client: LegworkClient, rfq_id: str, until: Any, timeout: float) -> list[Any]:
    """The RFQ's live quotes once ``until(quotes)`` holds. :raises TimeoutError:"""
    deadline = time.monotonic() + timeout
    while True:
        quotes = (await client.get_rfq(rfq_id))["quotes"] or []
        if until(quotes):
            return quotes
        if time.monotonic() > deadline:
            raise TimeoutError(f"rfq {rfq_id}: live quotes still {quotes}")
        await asyncio.sleep(0.1)


async def test_the_reference_maker_replaces_and_withdraws_its_competitive_quote(fast_stale: Exchange) -> None:
    exchange = fast_stale
    expiration = (int(time.time()) // DAY + 7) * DAY + 8 * 3600
    exchange.admin("POST", "/v1/admin/create-instruments", {"asset": ASSET, "expiration": expiration, "spot_price": "150"})
    feed = Feed(exchange, "150")
    feed.post()
    maker_account, taker_account = exchange.account(["quoter"], "10000"), exchange.account(["taker"], "1000")
    env = {**os.environ, "LEGWORK_URL": exchange.url, "LEGWORK_MAKER_SEED": maker_account.seed_hex, "PYTHONPATH": str(PYTHON_DIR)}
    args = ["--compete", "--name", "py compete", "--requote-bps", "10", "--lifetime", "60"]
    maker = Process([sys.executable, "clients/python/examples/maker.py", *args], env)
    try:
        await asyncio.to_thread(maker.wait_for, r"maker  listed as 'py compete'", 30)
        await asyncio.to_thread(maker.wait_for, r"maker  signed in as account", 30)
        await check_directory(exchange, taker_account.keypair, maker_account.keypair.wallet)
        async with await LegworkClient.open(exchange.ws_url) as client:
            await client.sign_in(taker_account.keypair)
            rfq = await Taker(client, taker_account.keypair).create([(symbol(expiration), "1")], makers=[maker_account.keypair.wallet])
            first = (await live_quotes(client, rfq["rfq_id"], lambda q: len(q) == 1, 10))[0]

            feed.price = "165"  # the call's mark moves by several USDC: far beyond 10 bps of the mid
            moved = await live_quotes(client, rfq["rfq_id"], lambda q: len(q) == 1 and q[0]["quote_id"] != first["quote_id"], 10)
            assert moved[0]["bid"] != first["bid"], moved
            await asyncio.to_thread(maker.wait_for, rf"requote  rfq {rfq['rfq_id'][:8]}…: mid ", 5)

            feed.on = False  # stale 4 s after the last post; the maker looks every second
            await live_quotes(client, rfq["rfq_id"], lambda q: q == [], 12)
            await asyncio.to_thread(maker.wait_for, rf"withdraw quote {moved[0]['quote_id'][:8]}….*stale_data", 5)
            assert (await client.get_rfq(rfq["rfq_id"]))["state"] == "pending"

            feed.on = True
            await client.cancel_rfq(rfq["rfq_id"])
            ends = [(q["quote_id"], q["end"]) for q in (await client.transcript(rfq["rfq_id"]))["transcript"]["quotes"]]
            assert ends[:2] == [(first["quote_id"], "replaced"), (moved[0]["quote_id"], "cancelled")], ends
    finally:
        feed.stop.set()
        maker.stop()


def symbol(expiration: int) -> str:
    from legwork import format_symbol

    return format_symbol(ASSET, expiration, "150", "call")


async def check_directory(exchange: Exchange, taker: Keypair, wallet: str) -> None:
    """The maker's name in ``rfq.makers``, where the exchange serves it."""
    async with await LegworkClient.open(exchange.ws_url) as client:
        await client.sign_in(taker)
        try:
            listed = (await client.makers())["makers"]
        except LegworkRpcError as error:
            if error.code == -32601:
                return
            raise
        assert [m["name"] for m in listed if m["wallet"] == wallet] == ["py compete"]


def test_the_taker_example_takes_the_best_of_two_competing_makers(exchange: Exchange, market: Market) -> None:
    narrow, wide, taker = exchange.account(["quoter"], "10000"), exchange.account(["quoter"], "10000"), exchange.account(["taker"], "1000")
    base = {**os.environ, "LEGWORK_URL": exchange.url, "PYTHONPATH": str(PYTHON_DIR)}
    makers = [
        Process([sys.executable, "clients/python/examples/maker.py", "--compete", "--spread-bps", bps], {**base, "LEGWORK_MAKER_SEED": account.seed_hex})
        for account, bps in ((narrow, "100"), (wide, "400"))
    ]
    try:
        for maker in makers:
            maker.wait_for(r"maker  signed in as account", 30)
        args = ["--compete", "--side", "sell", "--collect", "3", "--low", "150", "--high", "160", "--quantity", "1"]
        run = Process([sys.executable, "clients/python/examples/taker.py", *args], {**base, "LEGWORK_TAKER_SEED": taker.seed_hex})
        makers.append(run)  # stopped with them if it is still running
        run.wait_for(r"taker  done", 60)
        text = "\n".join(run.lines)
        assert run.wait_for(r"accept best sell at \S+, .*: accepted, best True", 1) and f"{narrow.keypair.wallet[:6]}… accepted" in text, text
        assert f"{wide.keypair.wallet[:6]}… traded_away" in text and "transcript verified" in text, text
    finally:
        for maker in makers:
            maker.stop()
