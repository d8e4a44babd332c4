"""Types of methods the exchange adds after this package's ``wire.py`` was generated.

``rfq.maker.quotes`` (a maker's own quotes, for reconciling after a lost reply). When the contract
declares it, ``npm run protocol:python`` writes these into ``wire.py`` and this module re-exports them.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from .wire import QuoteId, RfqId, RfqSignedDecimal, UnixSeconds

MakerQuoteState = Literal["live", "accepted", "filled", "failed", "traded_away", "replaced", "cancelled", "expired"]


class MakerQuote(TypedDict):
    """One of the caller's quotes, as ``rfq.maker.quotes`` lists it."""

    quote_id: QuoteId
    rfq_id: RfqId
    quote_nonce: str
    bid: RfqSignedDecimal
    ask: RfqSignedDecimal
    issued_at: UnixSeconds
    expires_at: UnixSeconds
    received_at_ms: int
    state: MakerQuoteState


class RfqMakerQuotesResult(TypedDict):
    """result of rfq.maker.quotes: newest first."""

    items: list[MakerQuote]
    next_cursor: NotRequired[str]
