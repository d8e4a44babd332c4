"""Competitive RFQs on the taker's side (design.md section 18): the ``competition`` of ``rfq.create``,
the best live quote of an RFQ view, and the transcript checked against the exchange key.

A competitive RFQ's view keeps ``quote`` null until an accept; its live quotes are in ``quotes``
and ``best`` names the highest bid and the lowest ask. A taker buys at the best ask and sells at
the best bid, so :func:`best_quote` picks by side.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .client import LegworkClient
from .env import endpoints
from .errors import LegworkError
from .http import LegworkHttp
from .transcript import ExchangeKey, TranscriptCheck, verify_transcript
from .wire import RfqCreateParamsCompetition, RfqLiveQuote, RfqTranscriptResult, RfqView, Side


class NoBestQuote(LegworkError):
    """The RFQ has no live quote on the side asked for (or is not competitive): nothing to accept."""


class TranscriptNotVerified(LegworkError):
    """An ``rfq.transcript`` result that does not verify: ``check`` names the check that failed."""

    def __init__(self, rfq_id: str, check: TranscriptCheck) -> None:
        self.rfq_id = rfq_id
        self.check = check
        super().__init__(f"the transcript of rfq {rfq_id} does not verify ({check.fault}: {check.problem})")


def competition_params(makers: Sequence[str] | None = None) -> RfqCreateParamsCompetition:
    """``competition`` of ``rfq.create``: a panel of makers' wallets, or None for every quoter."""
    if makers is None:
        return {}
    if isinstance(makers, str):
        raise TypeError("makers is a list of wallets, not one wallet")
    return {"makers": list(makers)}


def best_quote(rfq: RfqView | Mapping[str, Any], side: Side) -> RfqLiveQuote:
    """The live quote a taker on ``side`` takes: the best ask to buy, the best bid to sell.

    :raises NoBestQuote: a seed RFQ, or no live quote on that side
    """
    best = rfq.get("best")
    rfq_id = rfq.get("rfq_id")
    if not isinstance(best, Mapping):
        raise NoBestQuote(f"rfq {rfq_id} is not competitive: it has no best quote (accept its quote with accept)")
    wanted = best.get("ask" if side == "buy" else "bid")
    if wanted is None:
        raise NoBestQuote(f"rfq {rfq_id} has no live {'ask to buy at' if side == 'buy' else 'bid to sell at'} (state {rfq.get('state')})")
    for quote in rfq.get("quotes") or []:
        if quote.get("quote_id") == wanted:
            live: RfqLiveQuote = quote
            return live
    raise NoBestQuote(f"rfq {rfq_id} names {wanted} as its best {'ask' if side == 'buy' else 'bid'} but does not list it among its live quotes")


def with_quote(rfq: RfqView | Mapping[str, Any], quote: Mapping[str, Any]) -> dict[str, Any]:
    """The RFQ view holding ``quote`` as its quote, the form :func:`~legwork.quotes.verify_quote` and an accept read."""
    return {**rfq, "quote": dict(quote)}


class TranscriptReader:
    """Reads ``rfq.transcript`` and checks it with the exchange key (``GET /v1/exchange/keys`` at the
    client's address, kept and read again when the transcript names a key not yet seen)."""

    def __init__(self, client: LegworkClient, exchange_key: ExchangeKey | None = None) -> None:
        self._client = client
        self._key: ExchangeKey | None = exchange_key
        self._fixed = exchange_key is not None

    async def _keys(self) -> ExchangeKey:
        async with LegworkHttp(endpoints(self._client.url).http_url) as http:
            return await http.exchange_keys()

    async def read(self, rfq_id: str) -> RfqTranscriptResult:
        """The signed transcript of an RFQ whose competition has ended, verified.

        :raises TranscriptNotVerified: the payload, hash, key or signature does not check out, or it is another RFQ's
        :raises RfqError: RFQ_NOT_FOUND while the competition runs, for a seed RFQ, or for anyone but its taker
        """
        signed = await self._client.transcript(rfq_id)
        if self._key is None:
            self._key = await self._keys()
        check = verify_transcript(signed, self._key)
        if check.fault == "key_id" and not self._fixed:
            self._key = await self._keys()  # a key the exchange added since the list was read
            check = verify_transcript(signed, self._key)
        if check.ok and signed["transcript"]["rfq_id"] != rfq_id:
            check = TranscriptCheck(ok=False, fault="transcript", problem=f"it is the transcript of rfq {signed['transcript']['rfq_id']}")
        if not check.ok:
            raise TranscriptNotVerified(rfq_id, check)
        return signed
