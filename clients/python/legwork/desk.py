"""Desk helpers: a maker and a taker on top of :class:`~legwork.client.LegworkClient`.

The maker builds and signs quotes from decimals, checks them without sending
(``rfq.maker.check``), declines, and sets, merges or zeroes its limits and protection
(the README's "Desks"), and withdraws or lists itself for competitive RFQs. The taker opens
RFQs, seed or competitive, checks a quote before trusting it, accepts with the signed payload
(the best live price of a competitive RFQ too), reads the checked transcript, and cancels.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Final, Mapping, Sequence, TypeVar, Union, cast

from .client import LegworkClient
from .competition import TranscriptReader, best_quote, competition_params, with_quote
from .decimals import DecimalInput, rfq_decimal
from .errors import LegworkConnectionError, PayloadError, RequestTimeout
from .quotes import BuiltQuote, build_quote, sign_accept, verify_quote
from .rpc import JsonObject
from .subscription import Subscription
from .transcript import ExchangeKey
from .verifier import ReceiptVerifier as ReceiptVerifier  # noqa: F401 (re-exported: it lived here)
from .verifier import payload_diff as payload_diff  # noqa: F401
from .wallet import Keypair
from .wire import (
    DeclineReason,
    InstrumentRecord,
    MakerLimits,
    MakerLimitsView,
    MakerStats,
    MarketConfig,
    OpenRfq,
    RfqAcceptResult,
    RfqCancelResult,
    RfqEventData,
    RfqMakerCancelQuoteResult,
    RfqMakerCheckResult,
    RfqMakerDeclineResult,
    RfqMakerNotificationData,
    RfqMakerRespondResult,
    RfqMakerSetProfileResult,
    RfqTranscriptResult,
    RfqView,
    Side,
)

T = TypeVar("T")

LegInput = Union[Mapping[str, Any], tuple[str, DecimalInput]]
"""A leg: ``{"instrument", "quantity"}`` or ``(symbol, quantity)`` with a Decimal or string quantity."""

DECLINE_REASONS: Final[tuple[DeclineReason, ...]] = ("unlisted_instrument", "near_expiry", "size_limit", "stale_data", "low_confidence", "queue_overflow")
_INTEGER_LIMITS = frozenset({"max_open_quotes", "price_band_bps", "window_seconds", "max_fills", "frozen_seconds"})


def now_seconds() -> int:
    return int(time.time())


def limits_to_wire(limits: Mapping[str, Any]) -> JsonObject:
    """Maker limits as ``rfq.maker.set_limits`` takes them: counts and basis points as integers,
    every other value (Decimal, str, int units; per-asset maps too) as an RFQ decimal string."""
    wire: JsonObject = {}
    for key, value in limits.items():
        if value is None:
            continue
        if key == "protection" and isinstance(value, Mapping):
            wire[key] = limits_to_wire(value)
        elif key in _INTEGER_LIMITS:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{key} is an integer >= 0")
            wire[key] = value
        elif isinstance(value, Mapping):
            wire[key] = {asset: rfq_decimal(v) for asset, v in value.items()}
        else:
            wire[key] = rfq_decimal(value)
    return wire


def merge_limits(held: MakerLimits | Mapping[str, Any], changes: Mapping[str, Any]) -> JsonObject:
    """``held`` (wire form) with ``changes`` applied, in wire form: None removes a field; ``protection`` merges by field."""
    merged: JsonObject = {**held}
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        elif key == "protection" and isinstance(value, Mapping):
            merged[key] = merge_limits(held.get("protection") or {}, value)
        else:
            merged[key] = value
    return limits_to_wire(merged)


def normalize_legs(legs: Sequence[LegInput]) -> list[JsonObject]:
    """Legs in wire form, quantities as canonical RFQ decimals."""
    out = []
    for leg in legs:
        if isinstance(leg, tuple):
            symbol, quantity = leg
        else:
            symbol, quantity = leg["instrument"], leg["quantity"]
        out.append({"instrument": str(symbol), "quantity": rfq_decimal(quantity)})
    return out


class _Desk:
    def __init__(self, client: LegworkClient, keypair: Keypair) -> None:
        self.client = client
        self.keypair = keypair
        self.instruments: dict[str, InstrumentRecord] = {}
        """Instrument records by symbol, with marks (refreshed by :meth:`refresh`)."""
        self.market_config: MarketConfig | None = None
        self.domain: str | None = None
        """``quote_domain`` of the market config: the signing domain of this deployment."""

    async def refresh(self) -> None:
        """Instruments (with marks) and the market config, in one batch frame."""
        instruments, config = await self.client.batch([("public/get_instruments", {}), ("public/get_market_config", {})])
        for outcome in (instruments, config):
            if outcome.error is not None:
                raise outcome.error
        records: list[InstrumentRecord] = instruments.result["instruments"]
        self.instruments = {i["symbol"]: i for i in records}
        self.market_config = cast(MarketConfig, config.result)
        self.domain = self.market_config.get("quote_domain")

    async def _known(self, legs: Sequence[Mapping[str, Any]]) -> None:
        if not self.market_config or any(leg["instrument"] not in self.instruments for leg in legs):
            await self.refresh()


@dataclass(frozen=True)
class SentQuote:
    """A quote the exchange took: its result (``{ rfq_id, quote_id, state }``) and what was signed."""

    result: RfqMakerRespondResult
    quote: BuiltQuote


class Maker(_Desk):
    """A quoter's desk: signs two-sided quotes from decimals with increasing nonces.

    ``start_nonce`` is the first quote nonce - 1 (default: unix time in microseconds,
    so a restarted desk stays above the exchange's durable high-water mark).
    """

    def __init__(self, client: LegworkClient, keypair: Keypair, *, start_nonce: int | None = None, quote_lifetime: int = 30) -> None:
        super().__init__(client, keypair)
        self._nonce = time.time_ns() // 1000 if start_nonce is None else start_nonce
        self.quote_lifetime = quote_lifetime
        self._before_kill: int | None = None

    def next_nonce(self) -> int:
        """Takes the next quote nonce (strictly increasing)."""
        self._nonce += 1
        return self._nonce

    async def subscribe(self, since: int | None = None) -> Subscription[RfqMakerNotificationData]:
        """A stream of ``rfq_maker`` events, subscribed (``since``: replay the stored events after it)."""
        events = self.client.notifications("rfq_maker")
        await self.client.subscribe_maker(since)
        return events

    async def build(
        self,
        rfq: Mapping[str, Any],
        bid: DecimalInput,
        ask: DecimalInput,
        *,
        expires_at: int | None = None,
        issued_at: int | None = None,
        quote_nonce: int | None = None,
    ) -> BuiltQuote:
        """Builds and signs a quote for an open RFQ; ``expires_at`` defaults to now + ``quote_lifetime``,
        clamped to the RFQ's ``max_quote_expires_at``. Takes a nonce unless ``quote_nonce`` is given."""
        await self._known(rfq["legs"])
        issued = now_seconds() if issued_at is None else issued_at
        until = expires_at if expires_at is not None else min(issued + self.quote_lifetime, int(rfq.get("max_quote_expires_at") or issued + self.quote_lifetime))
        return build_quote(
            self.keypair,
            rfq,
            quote_nonce=self.next_nonce() if quote_nonce is None else quote_nonce,
            bid=bid,
            ask=ask,
            issued_at=issued,
            expires_at=until,
            instruments=self.instruments,
            domain=self.domain,
        )

    async def respond(
        self, rfq: Mapping[str, Any], bid: DecimalInput, ask: DecimalInput, *, expires_at: int | None = None, issued_at: int | None = None
    ) -> SentQuote:
        """``rfq.maker.respond`` with a quote built from decimals (``bid <= ask``)."""
        built = await self.build(rfq, bid, ask, expires_at=expires_at, issued_at=issued_at)
        result = await self.client.respond(built.params)
        if result.get("quote_id") != built.quote_id:
            raise PayloadError(f"the exchange's quote_id {result.get('quote_id')} is not the SHA-256 {built.quote_id} of the payload signed")
        return SentQuote(result, built)

    async def check(
        self, rfq: Mapping[str, Any], bid: DecimalInput, ask: DecimalInput, *, expires_at: int | None = None, issued_at: int | None = None
    ) -> RfqMakerCheckResult:
        """``rfq.maker.check``: every check respond would run, nothing stored, no nonce consumed
        (on either side: the next respond takes the same nonce). ``{ ok, quote_id, payload }``.

        :raises RfqError: the error respond would give; for RFQ_INVALID_SIGNATURE it
            carries the exchange's ``payload`` (compare with :func:`payload_diff`)
        """
        built = await self.build(rfq, bid, ask, expires_at=expires_at, issued_at=issued_at, quote_nonce=self._nonce + 1)
        return await self.client.check(built.params)

    async def decline(self, rfq_id: str, reason: DeclineReason) -> RfqMakerDeclineResult:
        """``rfq.maker.decline`` with one of :data:`DECLINE_REASONS`."""
        return await self.client.decline(rfq_id, reason)

    async def pending(self) -> list[OpenRfq]:
        """Every pending RFQ not past its deadline and not the desk's own, page by page, oldest first."""
        items: list[OpenRfq] = []
        cursor: str | None = None
        while True:
            page = await self.client.poll(cursor=cursor)
            items.extend(page["items"])
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    async def set_limits(self, limits: Mapping[str, Any] | None = None, **fields: Any) -> MakerLimitsView:
        """``rfq.maker.set_limits``: REPLACES every limit of the desk: a field left out is no limit
        (``set_limits({})`` clears them). To change some and keep the rest: :meth:`update_limits`;
        to stop quoting: :meth:`kill_switch`.

        ``set_limits(max_open_quotes=5, max_open_notional=Decimal("100000"), max_open_delta={"SOL": Decimal("50")},
        protection={"window_seconds": 60, "max_fills": 10, "frozen_seconds": 0})``
        """
        return await self.client.set_limits(limits_to_wire({**(limits or {}), **fields}))

    async def update_limits(self, limits: Mapping[str, Any] | None = None, **fields: Any) -> MakerLimitsView:
        """Changes the fields given and keeps every other limit the desk holds (read with
        ``rfq.maker.get_limits`` first). A field set to None is removed (no limit); ``protection``
        merges field by field the same way. Two desks updating the same account at once may race.
        """
        held = (await self.client.get_limits())["limits"]
        return await self.client.set_limits(merge_limits(held, {**(limits or {}), **fields}))

    async def kill_switch(self, on: bool = True) -> MakerLimitsView:
        """On: ``max_open_quotes`` 0, every other limit kept: no new quote (live quotes stay firm;
        refusals say ``reason: "kill_switch"``). Off: the ``max_open_quotes`` held before (remembered
        by this desk object), or none."""
        if on:
            held = (await self.client.get_limits())["limits"].get("max_open_quotes")
            if held != 0:
                self._before_kill = held
            return await self.update_limits(max_open_quotes=0)
        return await self.update_limits(max_open_quotes=self._before_kill)

    async def get_limits(self) -> MakerLimitsView:
        """``rfq.maker.get_limits``: ``{ limits, admin_limits, usage, protection }``."""
        return await self.client.get_limits()

    async def reset_protection(self) -> MakerLimitsView:
        """``rfq.maker.reset_protection``: ends a freeze that has no ``frozen_seconds``."""
        return await self.client.reset_protection()

    async def cancel_quote(self, quote_id: str) -> RfqMakerCancelQuoteResult:
        """``rfq.maker.cancel_quote``: withdraws a live quote of a competitive RFQ (seed quotes stay firm)."""
        return await self.client.cancel_quote(quote_id)

    async def cancel_quotes(self) -> list[str]:
        """``rfq.maker.cancel_quotes``: the ids of the desk's live competitive quotes withdrawn, oldest first."""
        return list((await self.client.cancel_quotes())["cancelled"])

    async def set_profile(self, *, listed: bool | None = None, name: str | None = None, cancel_on_disconnect: bool | None = None) -> RfqMakerSetProfileResult:
        """``rfq.maker.set_profile``: in or out of the directory takers read, under ``name``; None keeps a field."""
        return await self.client.set_profile(listed=listed, name=name, cancel_on_disconnect=cancel_on_disconnect)

    async def stats(self) -> MakerStats:
        """``rfq.maker.stats``: the desk's own competition figures over the last 7 days."""
        return await self.client.maker_stats()


class QuoteNotVerified(PayloadError):
    """The quote an RFQ holds does not verify (quote id or maker signature): not accepted."""


class Taker(_Desk):
    """A taker's desk: opens RFQs (seed or competitive), checks quotes, accepts with the signed 105-byte
    payload (the best live price of a competitive RFQ with :meth:`accept_best`), cancels, and reads the
    signed transcript of a competition."""

    def __init__(self, client: LegworkClient, keypair: Keypair, *, exchange_key: ExchangeKey | None = None) -> None:
        super().__init__(client, keypair)
        self._transcripts = TranscriptReader(client, exchange_key)

    async def subscribe(self, since: int | None = None) -> Subscription[RfqEventData]:
        """A stream of ``rfq`` events, subscribed (``since``: replay the stored events after it)."""
        events = self.client.notifications("rfq")
        await self.client.subscribe_rfq(since)
        return events

    async def create(self, legs: Sequence[LegInput], client_ref: str | None = None, *, competitive: bool = False, makers: Sequence[str] | None = None) -> RfqView:
        """``rfq.create`` with quantities from Decimals or strings (taker-buy orientation).

        ``competitive`` (or a ``makers`` panel of wallets, which implies it): several makers quote and
        the view lists their live quotes and the ``best``; without a panel every quoter sees it.
        """
        competition = competition_params(makers) if competitive or makers is not None else None
        return await self.client.create_rfq(normalize_legs(legs), client_ref, competition=competition)

    async def verify_quote(self, rfq: Mapping[str, Any]) -> bool:
        """True when the RFQ's quote is the SHA-256 of the payload rebuilt from its fields and the maker's signature verifies."""
        await self._known(rfq["legs"])
        return verify_quote(rfq, self.instruments, domain=self.domain)

    async def accept(self, rfq: RfqView | Mapping[str, Any], side: Side, *, expires_in: int = 20, verify: bool = True, retries: int = 1) -> RfqAcceptResult:
        """Accepts one side of the quote an RFQ view holds (``buy`` pays the ask, ``sell`` receives the bid).

        Checks the quote first (unless ``verify`` is False). The accept is valid for
        ``expires_in`` seconds, at most until the quote's ``expires_at``. A timeout or a
        lost connection is retried with exactly the same params (the exchange answers
        an accept that already succeeded with its original result).

        :raises QuoteNotVerified | RfqError:
        """
        quote = rfq.get("quote")
        if not isinstance(quote, Mapping):
            raise QuoteNotVerified(f"rfq {rfq.get('rfq_id')} holds no quote")
        if verify and not await self.verify_quote(rfq):
            raise QuoteNotVerified(f"quote {quote.get('quote_id')} does not verify: not accepting it")
        expires_at = min(now_seconds() + expires_in, int(quote["expires_at"]))
        params = sign_accept(self.keypair, rfq_id=str(rfq["rfq_id"]), quote_id=str(quote["quote_id"]), side=side, expires_at=expires_at)
        for attempt in range(retries + 1):
            try:
                return await self.client.accept(params)
            except (RequestTimeout, LegworkConnectionError):
                if attempt == retries or self.client.closed:
                    raise
        raise AssertionError("unreachable")

    async def accept_best(self, rfq_id: str, side: Side, **options: Any) -> RfqAcceptResult:
        """Accepts the best live quote of a competitive RFQ as the exchange ranks it now: ``buy`` takes the
        lowest ask, ``sell`` the highest bid (reads the view, checks that quote, signs; options as :meth:`accept`).

        :raises NoBestQuote: a seed RFQ, or no live quote on that side
        :raises QuoteNotVerified | RfqError: RFQ_QUOTE_EXPIRED when the quote ended between the read and the accept
        """
        view = await self.client.get_rfq(rfq_id)
        return await self.accept(with_quote(view, best_quote(view, side)), side, **options)

    async def transcript(self, rfq_id: str) -> RfqTranscriptResult:
        """``rfq.transcript``, checked with the exchange key (fetched from ``GET /v1/exchange/keys`` unless
        the desk was given ``exchange_key``): the proof of every quote the RFQ received.

        :raises TranscriptNotVerified: it does not verify (``error.check.fault`` says which check failed)
        :raises RfqError: RFQ_NOT_FOUND while the competition runs or for a seed RFQ
        """
        return await self._transcripts.read(rfq_id)

    async def cancel(self, rfq_id: str) -> RfqCancelResult:
        """``rfq.cancel``: ``{ rfq_id, state: "expired", cancelled_at }`` (idempotent)."""
        return await self.client.cancel_rfq(rfq_id)

    async def cancel_all(self) -> list[str]:
        """``rfq.cancel_all``: the ids of the RFQs cancelled, oldest first."""
        return list((await self.client.cancel_all())["cancelled"])


async def wait_for_event(events: Subscription[T], rfq_id: str, wanted: Sequence[str], timeout: float) -> T:
    """The next event of one RFQ whose ``event`` is one of ``wanted`` (others of it and other RFQs are skipped).

    :raises TimeoutError:
    """
    async with asyncio.timeout(timeout):
        while True:
            n = await events.next()
            data = cast(Mapping[str, Any], n)  # protection events have no rfq
            if (data.get("rfq") or {}).get("rfq_id") == rfq_id and data.get("event") in wanted:
                return n
