"""Signed payloads (the README's "Decimals and bytes"): StrategyQuotePayload (1,050 bytes) and
StrategyAcceptPayload (105 bytes), quote ids and the canonical base64 signature text.

Little-endian integers; decimals as 64-bit micro-units; fixed size; every byte not
listed, and every unused leg slot, is zero. ``domain = SHA-256(UTF-8 SERVICE_NAME)``.
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
from dataclasses import dataclass
from typing import Sequence

from .decimals import I64_MAX, U64_MAX
from .errors import PayloadError
from .signin import DEFAULT_SERVICE_NAME

QUOTE_PAYLOAD_SIZE = 1050
ACCEPT_PAYLOAD_SIZE = 105
MAX_LEGS = 13
LEG_SLOT_SIZE = 64
_QUOTE_LEGS_OFFSET = 218
_PAYLOAD_VERSION = 1
_BASE64_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{86}==", re.ASCII)
_PRINTABLE = re.compile(r"[\x21-\x7e]+", re.ASCII)


@dataclass(frozen=True)
class PayloadLeg:
    """One leg slot: symbol, strike (micro-units), kind (``call``/``put``), quantity (micro-units, taker-buy orientation)."""

    symbol: str
    strike: int
    kind: str
    quantity: int


def signing_domain(service_name: str = DEFAULT_SERVICE_NAME) -> bytes:
    """SHA-256 of the UTF-8 service name: binds every signature to one service (``quote_domain`` of the market config)."""
    return hashlib.sha256(service_name.encode("utf-8")).digest()


def domain_bytes(domain: bytes | str | None = None, service_name: str = DEFAULT_SERVICE_NAME) -> bytes:
    """The signing domain from 32 bytes, 64 hex characters, or (when None) a service name."""
    if domain is None:
        return signing_domain(service_name)
    if isinstance(domain, str):
        return hex_bytes(domain, 32, "domain")
    if len(domain) != 32:
        raise PayloadError("domain must be 32 bytes")
    return bytes(domain)


def hex_bytes(text: str, size: int, field: str) -> bytes:
    """Exactly ``size`` bytes from ``2 * size`` lowercase hex characters."""
    if not isinstance(text, str) or not re.fullmatch(f"[0-9a-f]{{{size * 2}}}", text):
        raise PayloadError(f"{field} must be {size * 2} lowercase hex characters")
    return bytes.fromhex(text)


def quote_id(payload: bytes) -> str:
    """QuoteId: lowercase hex SHA-256 of the 1,050-byte payload."""
    if len(payload) != QUOTE_PAYLOAD_SIZE:
        raise PayloadError(f"a quote payload is {QUOTE_PAYLOAD_SIZE} bytes, got {len(payload)}")
    return hashlib.sha256(payload).hexdigest()


def encode_base64_signature(signature: bytes) -> str:
    """Canonical base64 (standard alphabet, padded, 88 characters) of a 64-byte signature."""
    if len(signature) != 64:
        raise PayloadError(f"a signature is 64 bytes, got {len(signature)}")
    return base64.b64encode(signature).decode("ascii")


def decode_base64_signature(text: object) -> bytes | None:
    """The 64 bytes of a canonical base64 signature; None for any other text."""
    if not isinstance(text, str) or not _BASE64_SIGNATURE.fullmatch(text):
        return None
    signature = base64.b64decode(text, validate=True)
    # Re-encoding refuses non-zero bits in the last character's unused low bits.
    if len(signature) != 64 or base64.b64encode(signature).decode("ascii") != text:
        return None
    return signature


def _i64(value: int, field: str) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int) or not -I64_MAX - 1 <= value <= I64_MAX:
        raise PayloadError(f"{field} is not a signed 64-bit integer")
    return struct.pack("<q", value)


def _u64(value: int, field: str) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= U64_MAX:
        raise PayloadError(f"{field} is not an unsigned 64-bit integer")
    return struct.pack("<Q", value)


def _ascii(text: str, size: int, field: str) -> bytes:
    if not isinstance(text, str) or not _PRINTABLE.fullmatch(text) or len(text) > size:
        raise PayloadError(f"{field} must be 1 to {size} printable ASCII characters")
    return text.encode("ascii")


def _fixed(value: bytes, size: int, field: str) -> bytes:
    if len(value) != size:
        raise PayloadError(f"{field} must be {size} bytes, got {len(value)}")
    return bytes(value)


def encode_leg_slots(out: bytearray, offset: int, legs: Sequence[PayloadLeg]) -> None:
    """Writes the leg slots (shared by the quote payload and the fill receipt)."""
    for i, leg in enumerate(legs):
        slot = offset + i * LEG_SLOT_SIZE
        symbol = _ascii(leg.symbol, 32, f"legs[{i}].symbol")
        out[slot : slot + len(symbol)] = symbol
        out[slot + 32 : slot + 40] = _u64(leg.strike, f"legs[{i}].strike")
        if leg.kind not in ("call", "put"):
            raise PayloadError(f"legs[{i}].kind must be call or put")
        out[slot + 40] = 0 if leg.kind == "call" else 1
        out[slot + 48 : slot + 56] = _i64(leg.quantity, f"legs[{i}].quantity")


def encode_quote_payload(
    *,
    domain: bytes,
    rfq_id: str,
    maker: bytes,
    quote_nonce: int,
    bid: int,
    ask: int,
    issued_at: int,
    expires_at: int,
    asset: str,
    expiry: int,
    legs: Sequence[PayloadLeg],
) -> bytes:
    """The 1,050-byte StrategyQuotePayload (amounts in micro-units, times in unix seconds).

    :raises PayloadError: when a field does not fit its slot
    """
    if not 1 <= len(legs) <= MAX_LEGS:
        raise PayloadError(f"leg count {len(legs)} is not 1 to {MAX_LEGS}")
    out = bytearray(QUOTE_PAYLOAD_SIZE)
    out[0:14] = b"STRATEGY_QUOTE"
    out[14] = _PAYLOAD_VERSION
    out[15] = len(legs)
    out[16:48] = _fixed(domain, 32, "domain")
    out[48:64] = hex_bytes(rfq_id, 16, "rfq_id")
    out[64:96] = _fixed(maker, 32, "maker")
    out[96:104] = _u64(quote_nonce, "quote_nonce")
    out[104:112] = _i64(bid, "bid")
    out[112:120] = _i64(ask, "ask")
    out[120:128] = _i64(issued_at, "issued_at")
    out[128:136] = _i64(expires_at, "expires_at")
    name = _ascii(asset, 16, "asset")
    out[136 : 136 + len(name)] = name
    out[152:160] = _i64(expiry, "expiry")
    encode_leg_slots(out, _QUOTE_LEGS_OFFSET, legs)
    return bytes(out)


def encode_accept_payload(*, rfq_id: str, quote_id: str, taker: bytes, side: str, expires_at: int) -> bytes:
    """The 105-byte StrategyAcceptPayload a taker signs to accept one side of a quote.

    :raises PayloadError: when a field does not fit its slot
    """
    out = bytearray(ACCEPT_PAYLOAD_SIZE)
    out[0:15] = b"STRATEGY_ACCEPT"
    out[15] = _PAYLOAD_VERSION
    out[16:32] = hex_bytes(rfq_id, 16, "rfq_id")
    out[32:64] = hex_bytes(quote_id, 32, "quote_id")
    out[64:96] = _fixed(taker, 32, "taker")
    if side not in ("buy", "sell"):
        raise PayloadError("side must be buy or sell")
    out[96] = 0 if side == "buy" else 1
    out[97:105] = _i64(expires_at, "expires_at")
    return bytes(out)
