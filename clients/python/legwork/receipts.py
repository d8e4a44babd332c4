"""Fill receipts and the journal (verified by ``ReceiptVerifier``; the README's "Decimals and bytes").

Every fill and every revert gets a 1,072-byte StrategyFillReceipt signed by the
exchange; the receipts form one hash chain. Version 2 (new receipts) holds
``taker_commitment = SHA-256("LEGWORK_TAKER" || salt || taker key)`` at offset 136
instead of the taker's key; version 1 receipts already in a journal still verify.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .decimals import U64_MAX, parse_http_micro
from .errors import DecimalError, ReceiptError, WalletError
from .payloads import LEG_SLOT_SIZE, MAX_LEGS, PayloadLeg, _fixed, _i64, encode_leg_slots, hex_bytes, signing_domain
from .signin import DEFAULT_SERVICE_NAME
from .wallet import encode_wallet, parse_wallet, verify_ed25519

RECEIPT_SIZE = 1072
RECEIPT_VERSIONS = (1, 2)
ZERO_HASH = "0" * 64
_TAG = b"STRATEGY_FILL"
_LEGS_OFFSET = 240
_TAKER_TAG = b"LEGWORK_TAKER"


def taker_commitment(salt: bytes, taker: bytes) -> bytes:
    """``SHA-256("LEGWORK_TAKER" || salt || taker public key)``: what a version 2 receipt holds at offset 136."""
    return hashlib.sha256(_TAKER_TAG + _fixed(salt, 32, "taker_salt") + _fixed(taker, 32, "taker")).digest()


def key_id_of(public_key: bytes) -> str:
    """``key_id``: the first 8 bytes of SHA-256 of the exchange's public key, in hex."""
    return hashlib.sha256(public_key).digest()[:8].hex()


def receipt_hash(payload: bytes) -> str:
    """Hex SHA-256 of a receipt payload (the ``hash`` of the receipt and of its journal row)."""
    return hashlib.sha256(payload).hexdigest()


def encode_receipt(
    *,
    version: int,
    kind: int,
    domain: bytes,
    journal_seq: int,
    prev_hash: bytes,
    rfq_id: str,
    quote_id: str,
    taker: bytes,
    maker: bytes,
    side: str,
    price: int,
    fee: int,
    at: int,
    fill_id: int,
    legs: Sequence[PayloadLeg],
) -> bytes:
    """The 1,072 bytes of a receipt (the exchange writes them; a client uses this to rebuild one).

    ``taker`` is the taker's public key for version 1 and the 32-byte taker
    commitment for version 2.
    """
    if version not in RECEIPT_VERSIONS:
        raise ReceiptError(f"version {version} is not 1 or 2")
    if not 1 <= len(legs) <= MAX_LEGS:
        raise ReceiptError(f"leg count {len(legs)} is not 1 to {MAX_LEGS}")
    if kind not in (0, 1):
        raise ReceiptError("kind must be 0 (fill) or 1 (revert)")
    if not 1 <= journal_seq <= U64_MAX or not 0 <= fill_id <= U64_MAX:
        raise ReceiptError("journal_seq or fill_id is not a u64")
    out = bytearray(RECEIPT_SIZE)
    out[0:13] = _TAG
    out[13] = version
    out[14] = kind
    out[15] = len(legs)
    out[16:48] = _fixed(domain, 32, "domain")
    out[48:56] = struct.pack("<Q", journal_seq)
    out[56:88] = _fixed(prev_hash, 32, "prev_hash")
    out[88:104] = hex_bytes(rfq_id, 16, "rfq_id")
    out[104:136] = hex_bytes(quote_id, 32, "quote_id")
    out[136:168] = _fixed(taker, 32, "taker")
    out[168:200] = _fixed(maker, 32, "maker")
    out[200] = 0 if side == "buy" else 1
    out[208:216] = _i64(price, "price")
    out[216:224] = _i64(fee, "fee")
    out[224:232] = _i64(at, "at")
    out[232:240] = struct.pack("<Q", fill_id)
    encode_leg_slots(out, _LEGS_OFFSET, legs)
    return bytes(out)


@dataclass(frozen=True)
class DecodedLeg:
    instrument: str
    strike: int
    kind: str
    quantity: int


@dataclass(frozen=True)
class DecodedReceipt:
    """The fields of a receipt; money in micro-units.

    ``taker`` is the taker's wallet (version 1) or None; ``taker_commitment`` the hex
    commitment (version 2) or None.
    """

    version: int
    kind: int
    domain: str
    journal_seq: int
    prev_hash: str
    rfq_id: str
    quote_id: str
    taker: str | None
    taker_commitment: str | None
    maker: str
    side: str
    price: int
    fee: int
    at: int
    fill_id: int
    legs: tuple[DecodedLeg, ...]


def _zero(b: bytes) -> bool:
    return not any(b)


def _decode_leg(slot: bytes, i: int) -> DecodedLeg:
    end = slot.find(b"\0", 0, 32)
    symbol = slot[: 32 if end < 0 else end]
    if not symbol or not _zero(slot[len(symbol) : 32]) or slot[40] > 1 or not _zero(slot[41:48]) or not _zero(slot[56:64]):
        raise ReceiptError(f"leg slot {i} is off the layout")
    if any(c < 0x21 or c > 0x7E for c in symbol):
        raise ReceiptError(f"leg slot {i}: the symbol is not printable ASCII")
    (strike,) = struct.unpack_from("<Q", slot, 32)
    (quantity,) = struct.unpack_from("<q", slot, 48)
    return DecodedLeg(symbol.decode("ascii"), strike, "call" if slot[40] == 0 else "put", quantity)


def decode_receipt(payload: bytes) -> DecodedReceipt:
    """Decodes the 1,072 bytes, refusing anything off the layout (a byte that must be zero, a bad tag).

    :raises ReceiptError:
    """
    b = bytes(payload)
    if len(b) != RECEIPT_SIZE:
        raise ReceiptError(f"a receipt is {RECEIPT_SIZE} bytes, got {len(b)}")
    if b[0:13] != _TAG or b[13] not in RECEIPT_VERSIONS:
        raise ReceiptError("not a version 1 or 2 STRATEGY_FILL receipt")
    version, kind, count = b[13], b[14], b[15]
    if kind > 1:
        raise ReceiptError(f"kind {kind} is neither fill (0) nor revert (1)")
    if not 1 <= count <= MAX_LEGS:
        raise ReceiptError(f"leg count {count} is not 1 to {MAX_LEGS}")
    if b[200] > 1 or not _zero(b[201:208]):
        raise ReceiptError("side bytes off the layout")
    legs = []
    for i in range(MAX_LEGS):
        slot = b[_LEGS_OFFSET + i * LEG_SLOT_SIZE : _LEGS_OFFSET + (i + 1) * LEG_SLOT_SIZE]
        if i >= count:
            if not _zero(slot):
                raise ReceiptError(f"unused leg slot {i} is not zero")
            continue
        legs.append(_decode_leg(slot, i))
    taker_field = b[136:168]
    return DecodedReceipt(
        version=version,
        kind=kind,
        domain=b[16:48].hex(),
        journal_seq=struct.unpack_from("<Q", b, 48)[0],
        prev_hash=b[56:88].hex(),
        rfq_id=b[88:104].hex(),
        quote_id=b[104:136].hex(),
        taker=encode_wallet(taker_field) if version == 1 else None,
        taker_commitment=taker_field.hex() if version == 2 else None,
        maker=encode_wallet(b[168:200]),
        side="buy" if b[200] == 0 else "sell",
        price=struct.unpack_from("<q", b, 208)[0],
        fee=struct.unpack_from("<q", b, 216)[0],
        at=struct.unpack_from("<q", b, 224)[0],
        fill_id=struct.unpack_from("<Q", b, 232)[0],
        legs=tuple(legs),
    )


def _micro(value: object, field: str) -> int:
    try:
        return parse_http_micro(value if isinstance(value, str) else str(value))
    except DecimalError as error:
        raise ReceiptError(f"{field}: {error}") from error


def _b64(text: object, field: str) -> bytes:
    if not isinstance(text, str):
        raise ReceiptError(f"{field} is not base64 text")
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ReceiptError(f"{field} is not canonical base64") from error
    if base64.b64encode(raw).decode("ascii") != text:
        raise ReceiptError(f"{field} is not canonical base64")
    return raw


def _check_fill(decoded: DecodedReceipt, fill: Mapping[str, Any]) -> None:
    def differs(field: str) -> ReceiptError:
        return ReceiptError(f"{field} differs from the fill's")

    if decoded.fill_id != int(str(fill["fill_id"])):
        raise differs("fill_id")
    if decoded.side != fill.get("side"):
        raise differs("side")
    if decoded.price != _micro(fill.get("price"), "price"):
        raise differs("price")
    if fill.get("fee") is not None and fill.get("role") != "maker" and decoded.fee != _micro(fill["fee"], "fee"):
        raise differs("fee")
    if decoded.kind == 0 and decoded.at != int(str(fill.get("filled_at"))):
        raise differs("filled_at")
    for field in ("rfq_id", "quote_id"):
        if fill.get(field) is not None and getattr(decoded, field) != fill[field]:
            raise differs(field)
    legs = fill.get("legs")
    if legs is not None:
        if len(legs) != len(decoded.legs):
            raise differs("leg count")
        for i, leg in enumerate(legs):
            if leg["instrument"] != decoded.legs[i].instrument or _micro(leg["quantity"], f"legs[{i}]") != decoded.legs[i].quantity:
                raise differs(f"legs[{i}]")


def verify_taker(decoded: DecodedReceipt, taker_wallet: str, taker_salt: str | None) -> None:
    """Checks that ``taker_wallet`` was the taker: its key (version 1) or its commitment with ``taker_salt`` (version 2).

    :raises ReceiptError:
    """
    key = parse_wallet(taker_wallet)
    if decoded.version == 1:
        if decoded.taker != taker_wallet:
            raise ReceiptError("the taker differs from the receipt's")
        return
    if taker_salt is None:
        raise ReceiptError("a version 2 receipt needs the taker_salt to prove the taker")
    if taker_commitment(hex_bytes(taker_salt, 32, "taker_salt"), key).hex() != decoded.taker_commitment:
        raise ReceiptError("taker_commitment is not SHA-256(LEGWORK_TAKER || salt || taker key)")


def verify_receipt(
    receipt: Mapping[str, Any],
    keys: Sequence[Mapping[str, Any]],
    *,
    service_name: str = DEFAULT_SERVICE_NAME,
    fill: Mapping[str, Any] | None = None,
    taker: str | None = None,
    taker_salt: str | None = None,
) -> DecodedReceipt:
    """Verifies a receipt as the exchange sends it (``{ journal_seq, kind, payload, hash, key_id, signature }``).

    Checks that the payload is on the layout, its SHA-256 is ``hash``, the exchange
    key ``key_id`` (of ``keys``, from ``GET /v1/exchange/keys``) signed it,
    ``journal_seq`` and ``kind`` are the payload's and the domain is the service's.
    With ``fill`` (an ``rfq.fill`` of an event, or a ``/query/rfq-fills`` row, with
    ``rfq_id``/``quote_id``/``legs`` when known), that it is that fill's receipt;
    with ``taker`` (a wallet), that this wallet was the taker: for a version 2
    receipt with the salt given, else the receipt's own ``taker_salt``, else the
    fill's (only the taker's copies carry it).

    :returns: the decoded receipt
    :raises ReceiptError: naming the first mismatch
    """
    payload = _b64(receipt.get("payload"), "payload")
    decoded = decode_receipt(payload)
    if receipt_hash(payload) != receipt.get("hash"):
        raise ReceiptError("hash is not the SHA-256 of the payload")
    key = next((k for k in keys if k.get("key_id") == receipt.get("key_id")), None)
    if key is None:
        raise ReceiptError(f"key {receipt.get('key_id')} is not one of the exchange's keys")
    try:
        public_key = parse_wallet(key.get("public_key"))
    except WalletError as error:
        raise ReceiptError(f"exchange key: {error}") from error
    if key_id_of(public_key) != key.get("key_id"):
        raise ReceiptError("key_id is not the public key's")
    if not verify_ed25519(public_key, payload, _b64(receipt.get("signature"), "signature")):
        raise ReceiptError("signature does not verify with the exchange key")
    if decoded.journal_seq != receipt.get("journal_seq"):
        raise ReceiptError("journal_seq differs from the payload's")
    if decoded.kind != receipt.get("kind"):
        raise ReceiptError("kind differs from the payload's")
    if decoded.domain != signing_domain(service_name).hex():
        raise ReceiptError("the receipt is for another service (domain)")
    if fill is not None:
        _check_fill(decoded, fill)
    if taker is not None:
        salt = taker_salt or receipt.get("taker_salt") or (fill.get("taker_salt") if fill is not None else None)
        verify_taker(decoded, taker, salt if isinstance(salt, str) else None)
    return decoded


@dataclass(frozen=True)
class JournalHead:
    journal_seq: int
    hash: str


@dataclass(frozen=True)
class JournalCheck:
    """The outcome of :func:`verify_journal_segment`: ``ok`` with the ``head``, or the first broken link."""

    ok: bool
    head: JournalHead | None = None
    journal_seq: int | None = None
    problem: str | None = None


def verify_journal_segment(rows: Sequence[Mapping[str, Any]], after: JournalHead | None = None) -> JournalCheck:
    """Checks a journal segment (rows of ``GET /v1/exchange/journal``).

    Numbers continue ``after`` one by one and each row's ``prev_hash`` is the hash
    of the row before (``after.hash`` for the first; zero before journal_seq 1).
    """
    previous = after or JournalHead(0, ZERO_HASH)
    for row in rows:
        seq = row.get("journal_seq")
        if seq != previous.journal_seq + 1:
            return JournalCheck(False, journal_seq=previous.journal_seq + 1, problem=f"journal_seq {previous.journal_seq + 1} is missing (next is {seq})")
        if row.get("prev_hash") != previous.hash:
            return JournalCheck(False, journal_seq=seq, problem=f"prev_hash of {seq} is not the hash of journal_seq {previous.journal_seq}")
        digest = row.get("hash")
        if not isinstance(digest, str) or len(digest) != 64 or digest.strip("0123456789abcdef"):
            return JournalCheck(False, journal_seq=seq, problem="hash is not 64 hex characters")
        previous = JournalHead(seq, digest)
    return JournalCheck(True, head=previous)


def receipt_in_journal(receipt: Mapping[str, Any], row: Mapping[str, Any]) -> bool:
    """True when a journal row is this receipt's: same journal_seq, hash and prev_hash."""
    decoded = decode_receipt(_b64(receipt.get("payload"), "payload"))
    return row.get("journal_seq") == receipt.get("journal_seq") and row.get("hash") == receipt.get("hash") and row.get("prev_hash") == decoded.prev_hash
