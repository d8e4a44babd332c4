"""The signed RFQ transcript (design.md section 18).

When a competitive RFQ ends its competition, the exchange signs every quote the RFQ
received and how each ended: ``payload`` is the UTF-8 of the transcript as RFC 8785
canonical JSON, ``hash`` its SHA-256 and ``signature`` its ed25519 signature by the
exchange key ``key_id``. A taker keeps the ``rfq.transcript`` result as its proof of
what it was offered; :func:`verify_transcript` checks it with the exchange key alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from .errors import WalletError
from .receipts import key_id_of
from .wallet import parse_wallet, verify_ed25519

TRANSCRIPT_KIND = "legwork.rfq_transcript"
TRANSCRIPT_VERSION = 1
_MAX_SAFE_INTEGER = 2**53 - 1

TranscriptEnd = Literal["accepted", "traded_away", "replaced", "cancelled", "expired"]


class TranscriptLeg(TypedDict):
    instrument: str
    quantity: str


class TranscriptQuote(TypedDict):
    """One quote the RFQ received, in the order received (decimals as canonical strings, times integers)."""

    quote_id: str
    maker: str
    quote_nonce: str
    bid: str
    ask: str
    issued_at: int
    expires_at: int
    received_at_ms: int
    ended_at_ms: int
    end: TranscriptEnd


class TranscriptAccepted(TypedDict):
    quote_id: str
    side: Literal["buy", "sell"]
    price: str
    at_ms: int
    best: bool


class RfqTranscript(TypedDict):
    """The object the exchange signs, exactly as section 18 lists it."""

    kind: Literal["legwork.rfq_transcript"]
    version: Literal[1]
    service: str
    rfq_id: str
    legs: list[TranscriptLeg]
    created_at: int
    closed_at_ms: int
    makers: list[str] | None
    quotes: list[TranscriptQuote]
    accepted: TranscriptAccepted | None


TranscriptFault = Literal["transcript", "payload", "hash", "key_id", "signature"]
"""Which check failed, in the order they run: the object (not a transcript of version 1,
or no canonical JSON form), the payload (not the canonical bytes of the transcript),
the hash, the key_id (not the key's, or none of the exchange's keys), the signature."""

ExchangeKey = bytes | str | Sequence[Mapping[str, Any]]
"""The exchange's public key (32 bytes or base58), or ``GET /v1/exchange/keys`` (picked by key_id)."""


def _utf16_units(key: str) -> bytes:
    # RFC 8785 sorts keys by UTF-16 code units; big-endian UTF-16 bytes compare the same way.
    return key.encode("utf-16-be", "surrogatepass")


def _canonical(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) > _MAX_SAFE_INTEGER:
            raise ValueError(f"not an integer canonical JSON can hold: {value}")
        return str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError("a string with a lone surrogate has no UTF-8 form") from error
        # ensure_ascii=False escapes exactly what ECMAScript's JSON.stringify (RFC 8785) escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise ValueError("an object key is not a string")
        keys = sorted(value, key=_utf16_units)
        return "{" + ",".join(f"{_canonical(key)}:{_canonical(value[key])}" for key in keys) + "}"
    raise ValueError(f"a {type(value).__name__} has no canonical JSON form here (floats are refused)")


def canonical_json(value: object) -> str:
    """RFC 8785 for strings, integers, booleans, null, objects and arrays (never a float).

    :raises ValueError: a float, an integer beyond 2**53 - 1, a lone surrogate or another type
    """
    return _canonical(value)


def transcript_payload(transcript: Mapping[str, Any]) -> bytes:
    """The UTF-8 bytes of the transcript as canonical JSON: what the exchange hashes and signs."""
    return canonical_json(transcript).encode("utf-8")


def transcript_hash(payload: bytes) -> str:
    """Hex SHA-256 of the payload (the transcript's ``hash``)."""
    return hashlib.sha256(payload).hexdigest()


@dataclass(frozen=True)
class TranscriptCheck:
    """The result of :func:`verify_transcript`: ``ok``, else the ``fault`` and the ``problem``."""

    ok: bool
    fault: TranscriptFault | None = None
    problem: str | None = None
    transcript: Mapping[str, Any] = field(default_factory=dict)


def _fail(fault: TranscriptFault, problem: str) -> TranscriptCheck:
    return TranscriptCheck(ok=False, fault=fault, problem=problem)


def _b64(text: object) -> bytes | None:
    """Canonical base64 only: one text per byte string, as the exchange writes it."""
    if not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if base64.b64encode(raw).decode("ascii") == text else None


def _public_key(key: ExchangeKey, key_id: object) -> bytes | str:
    """The exchange key that ``key_id`` names, or why there is none."""
    chosen: object = key
    if not isinstance(key, (bytes, str)):
        found = next((k for k in key if k.get("key_id") == key_id), None)
        if found is None:
            return f"key {key_id} is not one of the exchange's keys"
        chosen = found.get("public_key")
    try:
        public_key = bytes(chosen) if isinstance(chosen, bytes) else parse_wallet(chosen)
    except WalletError as error:
        return f"the exchange key is not a public key: {error}"
    if key_id_of(public_key) != key_id:
        return f"key_id {key_id} is not the exchange key's ({key_id_of(public_key)})"
    return public_key


def _expected_payload(transcript: Mapping[str, Any]) -> bytes | str:
    if transcript.get("kind") != TRANSCRIPT_KIND or transcript.get("version") != TRANSCRIPT_VERSION:
        return f"not a {TRANSCRIPT_KIND} of version {TRANSCRIPT_VERSION}"
    try:
        return transcript_payload(transcript)
    except ValueError as error:
        return f"the transcript has no canonical JSON form: {error}"


def verify_transcript(signed: Mapping[str, Any], exchange_key: ExchangeKey) -> TranscriptCheck:
    """Checks an ``rfq.transcript`` result (``{ transcript, payload, hash, key_id, signature }``).

    The payload must be exactly the canonical bytes of ``transcript`` (what is read is
    what was signed), ``hash`` its SHA-256, ``key_id`` the exchange key's, and the
    ed25519 signature must verify. Never raises: the first check that fails, by name.
    """
    if not isinstance(signed, Mapping):
        return _fail("transcript", "not a signed transcript")
    transcript = signed.get("transcript")
    if not isinstance(transcript, Mapping):
        return _fail("transcript", "the transcript is not an object")
    expected = _expected_payload(transcript)
    if isinstance(expected, str):
        return _fail("transcript", expected)
    payload = _b64(signed.get("payload"))
    if payload is None:
        return _fail("payload", "payload is not canonical base64")
    if payload != expected:
        return _fail("payload", "payload is not the canonical JSON of the transcript")
    if signed.get("hash") != transcript_hash(payload):
        return _fail("hash", "hash is not the SHA-256 of the payload")
    public_key = _public_key(exchange_key, signed.get("key_id"))
    if isinstance(public_key, str):
        return _fail("key_id", public_key)
    signature = _b64(signed.get("signature"))
    if signature is None or not verify_ed25519(public_key, payload, signature):
        return _fail("signature", "signature does not verify with the exchange key")
    return TranscriptCheck(ok=True, transcript=transcript)
