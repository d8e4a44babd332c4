"""The reference maker reconciles a quote whose reply was lost: the exchange is SIGKILLed right after
a respond left the maker (the quote may or may not have landed), then started again; once the maker
is connected again, the RFQ is quoted by it within 2 s (it learnt the quote's fate: landed, or sent
again with the same params, or quoted anew)."""

from __future__ import annotations

import asyncio
import os
import sys
import time

from legwork import Keypair, LegworkClient, Taker

from .conftest import Exchange, Market
from .proxy import Relay
from .test_cross import PYTHON_DIR, Process


async def test_the_reference_maker_learns_the_fate_of_a_quote_in_flight_at_a_sigkill(exchange: Exchange, market: Market) -> None:
    maker_account, taker_account = exchange.account(["quoter"], "10000"), exchange.account(["taker"], "1000")
    relay = Relay(exchange.url, exchange.ws_url)
    await relay.start()
    killed = asyncio.Event()

    async def kill_and_restart() -> None:
        relay.open = False  # the maker cannot come back before the exchange has market data again
        await asyncio.to_thread(exchange.kill)
        killed.set()

    target: list[str] = []  # the RFQ of this test (the maker also quotes what earlier tests left pending)
    relay.on_request("rfq.maker.respond", lambda params: params.get("rfq_id") in target, kill_and_restart)
    env = {**os.environ, "LEGWORK_URL": relay.url, "LEGWORK_MAKER_SEED": maker_account.seed_hex, "PYTHONPATH": str(PYTHON_DIR)}
    maker = Process([sys.executable, "clients/python/examples/maker.py", "--spread-bps", "150"], env)
    try:
        # The relay runs on this event loop: every wait for the maker's output runs in a thread.
        await asyncio.to_thread(maker.wait_for, r"maker  signed in as account", 30)
        rfq_id = await create_rfq(exchange, taker_account.keypair, market, target)
        await asyncio.wait_for(killed.wait(), 30)
        await asyncio.to_thread(maker.wait_for, rf"lost     rfq {rfq_id[:8]}…", 15)
        await asyncio.to_thread(exchange.start)
        exchange.feed()
        relay.open = True
        await asyncio.to_thread(maker.wait_for, r"maker  reconnected", 30)
        back = time.monotonic()
        state = await wait_quoted(exchange, taker_account.keypair, rfq_id, back + 2)
        assert state == "quoted", f"rfq {rfq_id} is {state} 2 s after the maker came back:\n" + "\n".join(maker.lines)
        line = (await asyncio.to_thread(maker.wait_for, rf"reconciled .*rfq {rfq_id[:8]}….*", 5)).group(0)
        assert "landed" in line or "sent again" in line or "quoting it again" in line, line
    finally:
        maker.stop()
        await relay.close()
        if exchange.process is None:
            exchange.start()


async def create_rfq(exchange: Exchange, key: Keypair, market: Market, target: list[str]) -> str:
    async with await LegworkClient.open(exchange.ws_url) as client:
        await client.sign_in(key)
        rfq = await Taker(client, key).create([(market.symbol("150"), "1")])
        target.append(rfq["rfq_id"])  # at once: the maker's respond comes one round trip (its marks) after `created`
        return rfq["rfq_id"]


async def wait_quoted(exchange: Exchange, key: Keypair, rfq_id: str, deadline: float) -> str:
    """The RFQ's state once quoted, or at the deadline."""
    async with await LegworkClient.open(exchange.ws_url) as client:
        await client.sign_in(key)
        while True:
            state = (await client.get_rfq(rfq_id))["state"]
            if state == "quoted" or time.monotonic() > deadline:
                return state
            await asyncio.sleep(0.05)
