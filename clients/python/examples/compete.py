"""What ``maker.py --compete`` adds for competitive RFQs (design.md section 18): it keeps its live
quote in line with the market while the RFQ takes quotes.

Every ``interval`` seconds it prices each RFQ where it holds a live quote again from fresh marks:
- the market data is stale (or the RFQ is one it would no longer quote): the quote is withdrawn
  (``rfq.maker.cancel_quote``), so no taker takes a price made on old data;
- the package mid moved by more than ``requote_bps`` of |mid| since the quote, or the quote ends
  within ``renew_before`` seconds while the RFQ still takes quotes: it is quoted again, which
  replaces the live quote in one step. The new quote goes through the maker's queue, so quote
  nonces still reach the exchange in increasing order.
A quote that ended (taken, traded away, expired, cancelled) is forgotten.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Awaitable, Callable

from pricing import Decision

from legwork import Maker, RfqError
from legwork.wire import OpenRfq

MICRO = Decimal("0.000001")


@dataclass
class LiveQuote:
    rfq: OpenRfq
    quote_id: str
    mid: Decimal
    expires_at: int


class Competitor:
    def __init__(
        self,
        maker: Maker,
        decide: Callable[[OpenRfq], Awaitable[Decision]],
        requote: Callable[[OpenRfq], None],
        log: Callable[[str], None],
        *,
        requote_bps: int,
        interval: float = 1.0,
        renew_before: int = 3,
    ) -> None:
        self.maker = maker
        self.decide = decide
        self.requote = requote
        self.log = log
        self.requote_bps = requote_bps
        self.interval = interval
        self.renew_before = renew_before
        self.live: dict[str, LiveQuote] = {}
        self.requoting: set[str] = set()

    def quoted(self, rfq: OpenRfq, quote_id: str, decision: Decision) -> None:
        """A quote of a competitive RFQ the exchange took (it replaced any earlier one of the maker's)."""
        self.live[rfq["rfq_id"]] = LiveQuote(rfq, quote_id, decision.mid, decision.expires_at)
        self.requoting.discard(rfq["rfq_id"])

    def not_quoted(self, rfq_id: str) -> None:
        """A requote that was not sent or was refused: the earlier quote, if still live, is watched again."""
        self.requoting.discard(rfq_id)

    def ended(self, rfq_id: str, quote_id: str) -> None:
        held = self.live.get(rfq_id)
        if held is not None and held.quote_id == quote_id:
            del self.live[rfq_id]

    def moved(self, held: LiveQuote, mid: Decimal) -> bool:
        return abs(mid - held.mid) > max(abs(held.mid) * self.requote_bps / Decimal(10000), MICRO)

    async def watch(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            for rfq_id, held in list(self.live.items()):
                if rfq_id in self.requoting:
                    continue
                try:
                    await self.review(rfq_id, held)
                except Exception as error:  # noqa: BLE001 - the next round looks again
                    self.log(f"error reviewing quote {held.quote_id[:8]}… of rfq {rfq_id[:8]}…: {type(error).__name__}: {error}")

    async def review(self, rfq_id: str, held: LiveQuote) -> None:
        now = int(time.time())
        rfq_open = held.rfq["expires_at"] > now
        if held.expires_at <= now:
            del self.live[rfq_id]  # it ended at its own time
            if not rfq_open:
                return
        decision = await self.decide(held.rfq)
        if decision.action == "decline":
            if rfq_id in self.live:
                await self.withdraw(rfq_id, held, f"{decision.reason}: {decision.detail}")
            return
        if not rfq_open:
            return
        why = ""
        if rfq_id not in self.live:
            why = "the quote expired"
        elif self.moved(held, decision.mid):
            why = f"mid {held.mid.normalize():f} → {decision.mid.normalize():f}"
        elif held.expires_at - now <= self.renew_before:
            why = f"the quote ends in {held.expires_at - now} s"
        if why:
            self.log(f"requote  rfq {rfq_id[:8]}…: {why}")
            self.requoting.add(rfq_id)
            self.requote(held.rfq)

    async def withdraw(self, rfq_id: str, held: LiveQuote, why: str) -> None:
        try:
            await self.maker.cancel_quote(held.quote_id)
            self.log(f"withdraw quote {held.quote_id[:8]}… of rfq {rfq_id[:8]}…: {why}")
        except RfqError as error:  # it ended meanwhile (taken, traded away, expired)
            self.log(f"withdraw quote {held.quote_id[:8]}… of rfq {rfq_id[:8]}…: already ended ({error.error})")
        self.ended(rfq_id, held.quote_id)
