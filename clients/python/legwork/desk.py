"""Desk helpers: a maker and a taker on top of :class:`~legwork.client.LegworkClient`.

The maker builds and signs quotes from decimals, checks them without sending
(``rfq.maker.check``), declines, and sets its limits and protection (design.md
section 15). The taker opens RFQs, checks a quote before trusting it, accepts with
the signed payload, and cancels. :class:`ReceiptVerifier` checks fill receipts and
the journal against the exchange's published keys.
"""

from __future__ import annotations

import asyncio
import base64
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

from .client import JsonObject, LegworkClient, Subscription
from .decimals import DecimalInput, rfq_decimal
from .errors import LegworkConnectionError, PayloadError, ReceiptError, RequestTimeout
from .http import LegworkHttp
from .payloads import LEG_SLOT_SIZE
from .quotes import BuiltQuote, build_quote, sign_accept, verify_quote
from .receipts import DecodedReceipt, JournalCheck, JournalHead, verify_journal_segment, verify_receipt
from .signin import DEFAULT_SERVICE_NAME
from .wallet import Keypair

LegInput = Union[Mapping[str, Any], tuple[str, DecimalInput]]
"""A leg: ``{"instrument", "quantity"}`` or ``(symbol, quantity)`` with a Decimal or string quantity."""

DECLINE_REASONS = ("unlisted_instrument", "near_expiry", "size_limit", "stale_data", "low_confidence", "queue_overflow")
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


_QUOTE_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("tag", 0, 14),
    ("version", 14, 15),
    ("leg count", 15, 16),
    ("domain", 16, 48),
    ("rfq_id", 48, 64),
    ("maker", 64, 96),
    ("quote_nonce", 96, 104),
    ("bid", 104, 112),
    ("ask", 112, 120),
    ("issued_at", 120, 128),
    ("expires_at", 128, 136),
    ("asset", 136, 152),
    ("expiry", 152, 160),
    ("zero", 160, 218),
)


def payload_diff(ours: bytes, theirs: bytes | str) -> list[str]:
    """The fields where two quote payloads differ (e.g. ours against the ``payload`` of
    ``rfq.maker.check``'s RFQ_INVALID_SIGNATURE), named by the layout of design.md section 9."""
    other = base64.b64decode(theirs) if isinstance(theirs, str) else bytes(theirs)
    if len(other) != len(ours):
        return [f"size: ours {len(ours)} bytes, the exchange's {len(other)}"]
    fields = list(_QUOTE_FIELDS)
    for i in range(13):
        base = 218 + i * LEG_SLOT_SIZE
        fields += [(f"legs[{i}].symbol", base, base + 32), (f"legs[{i}].strike", base + 32, base + 40), (f"legs[{i}].kind", base + 40, base + 48)]
        fields += [(f"legs[{i}].quantity", base + 48, base + 56), (f"legs[{i}].zero", base + 56, base + 64)]
    return [f"{name} (bytes {a}..{b}): ours {ours[a:b].hex()}, the exchange's {other[a:b].hex()}" for name, a, b in fields if ours[a:b] != other[a:b]]


class _Desk:
    def __init__(self, client: LegworkClient, keypair: Keypair) -> None:
        self.client = client
        self.keypair = keypair
        self.instruments: dict[str, JsonObject] = {}
        """Instrument records by symbol, with marks (refreshed by :meth:`refresh`)."""
        self.market_config: JsonObject = {}
        self.domain: str | None = None
        """``quote_domain`` of the market config: the signing domain of this deployment."""

    async def refresh(self) -> None:
        """Instruments (with marks) and the market config, in one batch frame."""
        instruments, config = await self.client.batch([("public/get_instruments", {}), ("public/get_market_config", {})])
        for outcome in (instruments, config):
            if outcome.error is not None:
                raise outcome.error
        self.instruments = {i["symbol"]: i for i in instruments.result["instruments"]}
        self.market_config = config.result
        self.domain = config.result.get("quote_domain")

    async def _known(self, legs: Sequence[Mapping[str, Any]]) -> None:
        if not self.market_config or any(leg["instrument"] not in self.instruments for leg in legs):
            await self.refresh()


@dataclass(frozen=True)
class SentQuote:
    """A quote the exchange took: its result (``{ rfq_id, quote_id, state }``) and what was signed."""

    result: JsonObject
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

    def next_nonce(self) -> int:
        """Takes the next quote nonce (strictly increasing)."""
        self._nonce += 1
        return self._nonce

    async def subscribe(self, since: int | None = None) -> Subscription:
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
    ) -> JsonObject:
        """``rfq.maker.check``: every check respond would run, nothing stored, no nonce consumed
        (on either side: the next respond takes the same nonce). ``{ ok, quote_id, payload }``.

        :raises RfqError: the error respond would give; for RFQ_INVALID_SIGNATURE it
            carries the exchange's ``payload`` (compare with :func:`payload_diff`)
        """
        built = await self.build(rfq, bid, ask, expires_at=expires_at, issued_at=issued_at, quote_nonce=self._nonce + 1)
        return await self.client.check(built.params)

    async def decline(self, rfq_id: str, reason: str) -> JsonObject:
        """``rfq.maker.decline`` with one of :data:`DECLINE_REASONS`."""
        return await self.client.decline(rfq_id, reason)

    async def pending(self) -> list[JsonObject]:
        """Every pending RFQ not past its deadline and not the desk's own, page by page, oldest first."""
        items: list[JsonObject] = []
        cursor: str | None = None
        while True:
            page = await self.client.poll(cursor=cursor)
            items.extend(page["items"])
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    async def set_limits(self, limits: Mapping[str, Any] | None = None, **fields: Any) -> JsonObject:
        """``rfq.maker.set_limits``: replaces the desk's limits (``max_open_quotes=0`` is the kill switch).

        ``set_limits(max_open_quotes=5, max_open_notional=Decimal("100000"), max_open_delta={"SOL": Decimal("50")},
        protection={"window_seconds": 60, "max_fills": 10, "frozen_seconds": 0})``
        """
        return await self.client.set_limits(limits_to_wire({**(limits or {}), **fields}))

    async def get_limits(self) -> JsonObject:
        """``rfq.maker.get_limits``: ``{ limits, admin_limits, usage, protection }``."""
        return await self.client.get_limits()

    async def reset_protection(self) -> JsonObject:
        """``rfq.maker.reset_protection``: ends a freeze that has no ``frozen_seconds``."""
        return await self.client.reset_protection()


class QuoteNotVerified(PayloadError):
    """The quote an RFQ holds does not verify (quote id or maker signature): not accepted."""


class Taker(_Desk):
    """A taker's desk: opens RFQs, checks quotes, accepts with the signed 105-byte payload, cancels."""

    async def subscribe(self, since: int | None = None) -> Subscription:
        """A stream of ``rfq`` events, subscribed (``since``: replay the stored events after it)."""
        events = self.client.notifications("rfq")
        await self.client.subscribe_rfq(since)
        return events

    async def create(self, legs: Sequence[LegInput], client_ref: str | None = None) -> JsonObject:
        """``rfq.create`` with quantities from Decimals or strings (taker-buy orientation)."""
        return await self.client.create_rfq(normalize_legs(legs), client_ref)

    async def verify_quote(self, rfq: Mapping[str, Any]) -> bool:
        """True when the RFQ's quote is the SHA-256 of the payload rebuilt from its fields and the maker's signature verifies."""
        await self._known(rfq["legs"])
        return verify_quote(rfq, self.instruments, domain=self.domain)

    async def accept(self, rfq: Mapping[str, Any], side: str, *, expires_in: int = 20, verify: bool = True, retries: int = 1) -> JsonObject:
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

    async def cancel(self, rfq_id: str) -> JsonObject:
        """``rfq.cancel``: ``{ rfq_id, state: "expired", cancelled_at }`` (idempotent)."""
        return await self.client.cancel_rfq(rfq_id)

    async def cancel_all(self) -> list[str]:
        """``rfq.cancel_all``: the ids of the RFQs cancelled, oldest first."""
        return list((await self.client.cancel_all())["cancelled"])


async def wait_for_event(events: Subscription, rfq_id: str, wanted: Sequence[str], timeout: float) -> JsonObject:
    """The next event of one RFQ whose ``event`` is one of ``wanted`` (others of it and other RFQs are skipped).

    :raises TimeoutError:
    """
    async with asyncio.timeout(timeout):
        while True:
            n = await events.next()
            if n.get("rfq", {}).get("rfq_id") == rfq_id and n.get("event") in wanted:
                return n


class ReceiptVerifier:
    """Verifies fill receipts against the exchange's keys (``GET /v1/exchange/keys``) and walks the journal."""

    def __init__(self, keys: Sequence[Mapping[str, Any]], service_name: str = DEFAULT_SERVICE_NAME) -> None:
        self.keys = list(keys)
        self.service_name = service_name

    @classmethod
    async def load(cls, http: LegworkHttp) -> ReceiptVerifier:
        return cls(await http.exchange_keys(), http.service_name)

    def verify(
        self, receipt: Mapping[str, Any], *, fill: Mapping[str, Any] | None = None, taker: str | None = None, taker_salt: str | None = None
    ) -> DecodedReceipt:
        """See :func:`~legwork.receipts.verify_receipt`."""
        return verify_receipt(receipt, self.keys, service_name=self.service_name, fill=fill, taker=taker, taker_salt=taker_salt)

    def verify_fill_row(self, row: Mapping[str, Any], *, taker: str | None = None) -> DecodedReceipt:
        """A ``/query/rfq-fills`` row: its receipt (and revert receipt) are this fill's."""
        receipt = row.get("receipt")
        if not isinstance(receipt, Mapping):
            raise ReceiptError(f"fill {row.get('fill_id')} carries no receipt")
        decoded = self.verify(receipt, fill=row, taker=taker if row.get("role") == "taker" else None)
        revert = row.get("revert_receipt")
        if isinstance(revert, Mapping):
            self.verify(revert, fill=row)
        return decoded

    @staticmethod
    async def walk_journal(http: LegworkHttp, page: int = 1000) -> JournalCheck:
        """Walks the whole journal from the start and checks every link; the head must be the server's."""
        after = JournalHead(0, "0" * 64)
        while True:
            chunk = await http.journal(after=after.journal_seq, limit=page)
            check = verify_journal_segment(chunk["rows"], after)
            if not check.ok or check.head is None:
                return check
            after = check.head
            if len(chunk["rows"]) < page:
                head = chunk.get("head") or {}
                if head and (head.get("journal_seq") != after.journal_seq or (after.journal_seq > 0 and head.get("hash") != after.hash)):
                    return JournalCheck(False, journal_seq=after.journal_seq, problem="the head the exchange states is not the last row walked")
                return check
