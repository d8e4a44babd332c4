"""Quotes and accepts as a maker and a taker build them.

Legs are resolved against instrument records (``public/get_instruments``) for their
strike, kind, asset and expiry, signed with a :class:`~legwork.wallet.Keypair` and
checked before accepting. Amounts are :class:`~decimal.Decimal` or RFQ decimal
strings, never floats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence, Union

from .decimals import U64_MAX, DecimalInput, format_rfq, parse_rfq_signed_micro, parse_rfq_unsigned_micro, to_micro
from .errors import LegworkError, PayloadError
from .payloads import (
    PayloadLeg,
    decode_base64_signature,
    domain_bytes,
    encode_accept_payload,
    encode_base64_signature,
    encode_quote_payload,
    quote_id,
)
from .signin import DEFAULT_SERVICE_NAME
from .wallet import Keypair, parse_wallet, verify_ed25519

InstrumentSource = Union[Sequence[Mapping[str, Any]], Mapping[str, Mapping[str, Any]]]
"""Instrument records as a list (``public/get_instruments``) or a mapping by symbol."""


@dataclass(frozen=True)
class ResolvedLegs:
    asset: str
    expiry: int
    legs: tuple[PayloadLeg, ...]


def _by_symbol(instruments: InstrumentSource) -> Mapping[str, Mapping[str, Any]]:
    if isinstance(instruments, Mapping):
        return instruments
    return {str(i["symbol"]): i for i in instruments}


def resolve_legs(legs: Sequence[Mapping[str, Any]], instruments: InstrumentSource) -> ResolvedLegs:
    """An RFQ's legs as payload legs, with the strike and kind of each instrument record.

    :raises PayloadError: for an unknown symbol, legs of mixed asset or expiry, or a bad quantity
    """
    records = _by_symbol(instruments)
    if not 1 <= len(legs) <= 13:
        raise PayloadError("an RFQ has 1 to 13 legs")
    asset: str | None = None
    expiry: int | None = None
    out = []
    for i, leg in enumerate(legs):
        record = records.get(str(leg["instrument"]))
        if record is None:
            raise PayloadError(f"legs[{i}]: instrument {leg['instrument']} is not among the instrument records given")
        if asset is None:
            asset, expiry = str(record["asset"]), int(record["expiry"])
        if record["asset"] != asset or record["expiry"] != expiry:
            raise PayloadError(f"legs[{i}]: legs of mixed asset or expiry")
        out.append(PayloadLeg(str(leg["instrument"]), parse_rfq_unsigned_micro(record["strike"]), str(record["kind"]), parse_rfq_signed_micro(leg["quantity"])))
    assert asset is not None and expiry is not None
    return ResolvedLegs(asset, expiry, tuple(out))


def _nonce(value: int | str) -> int:
    if isinstance(value, str):
        if not re.fullmatch(r"[1-9][0-9]*", value):
            raise PayloadError(f"quote_nonce {value!r} is not a positive integer")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= U64_MAX:
        raise PayloadError(f"quote_nonce {value!r} is not 1 to 2^64 - 1")
    return value


@dataclass(frozen=True)
class BuiltQuote:
    """A quote built and signed: the params of ``rfq.maker.respond`` (or ``check``), its QuoteId and the signed bytes."""

    params: dict[str, Any]
    quote_id: str
    payload: bytes


def build_quote(
    maker: Keypair,
    rfq: Mapping[str, Any],
    *,
    quote_nonce: int | str,
    bid: DecimalInput,
    ask: DecimalInput,
    issued_at: int,
    expires_at: int,
    instruments: InstrumentSource,
    domain: bytes | str | None = None,
    service_name: str = DEFAULT_SERVICE_NAME,
) -> BuiltQuote:
    """Builds and signs a two-sided quote for an open RFQ (``rfq_id`` and ``legs``).

    ``domain`` is ``quote_domain`` of the market config (hex) or 32 bytes; without
    it the domain of ``service_name``.

    :raises PayloadError | DecimalError: for a value that cannot be encoded
    """
    terms = resolve_legs(rfq["legs"], instruments)
    nonce = _nonce(quote_nonce)
    bid_micro, ask_micro = to_micro(bid), to_micro(ask)
    payload = encode_quote_payload(
        domain=domain_bytes(domain, service_name),
        rfq_id=str(rfq["rfq_id"]),
        maker=maker.public_key,
        quote_nonce=nonce,
        bid=bid_micro,
        ask=ask_micro,
        issued_at=issued_at,
        expires_at=expires_at,
        asset=terms.asset,
        expiry=terms.expiry,
        legs=terms.legs,
    )
    params: dict[str, Any] = {
        "rfq_id": rfq["rfq_id"],
        "quote_nonce": str(nonce),
        "bid": format_rfq(bid_micro),
        "ask": format_rfq(ask_micro),
        "issued_at": issued_at,
        "expires_at": expires_at,
        "maker_signature": encode_base64_signature(maker.sign(payload)),
    }
    return BuiltQuote(params, quote_id(payload), payload)


def sign_accept(taker: Keypair, *, rfq_id: str, quote_id: str, side: str, expires_at: int) -> dict[str, Any]:
    """Signs the 105-byte StrategyAcceptPayload and returns the params of ``rfq.accept``."""
    payload = encode_accept_payload(rfq_id=rfq_id, quote_id=quote_id, taker=taker.public_key, side=side, expires_at=expires_at)
    return {"quote_id": quote_id, "side": side, "expires_at": expires_at, "taker_signature": encode_base64_signature(taker.sign(payload))}


def rebuild_quote_payload(rfq: Mapping[str, Any], instruments: InstrumentSource, *, domain: bytes | str | None = None, service_name: str = DEFAULT_SERVICE_NAME) -> bytes:
    """The 1,050 bytes of the quote an RFQ view holds, rebuilt from its legs and the quote's fields.

    :raises LegworkError: when the RFQ has no quote or a field cannot be encoded
    """
    q = rfq.get("quote")
    if not isinstance(q, Mapping):
        raise PayloadError("the RFQ holds no quote")
    terms = resolve_legs(rfq["legs"], instruments)
    return encode_quote_payload(
        domain=domain_bytes(domain, service_name),
        rfq_id=str(rfq["rfq_id"]),
        maker=parse_wallet(q["maker"]),
        quote_nonce=_nonce(str(q["quote_nonce"])),
        bid=parse_rfq_signed_micro(q["bid"]),
        ask=parse_rfq_signed_micro(q["ask"]),
        issued_at=int(q["issued_at"]),
        expires_at=int(q["expires_at"]),
        asset=terms.asset,
        expiry=terms.expiry,
        legs=terms.legs,
    )


def verify_quote(rfq: Mapping[str, Any], instruments: InstrumentSource, *, domain: bytes | str | None = None, service_name: str = DEFAULT_SERVICE_NAME) -> bool:
    """Checks the quote an RFQ holds, as a careful taker does before accepting.

    Rebuilds the payload from the RFQ's legs and the quote's fields and checks that its
    SHA-256 is the ``quote_id`` and that the maker's signature verifies with the
    maker's wallet. False when the RFQ has no quote or any check fails.
    """
    try:
        payload = rebuild_quote_payload(rfq, instruments, domain=domain, service_name=service_name)
    except (LegworkError, KeyError, TypeError, ValueError):
        return False
    q = rfq["quote"]
    signature = decode_base64_signature(q.get("maker_signature"))
    return signature is not None and quote_id(payload) == q.get("quote_id") and verify_ed25519(parse_wallet(q["maker"]), payload, signature)
