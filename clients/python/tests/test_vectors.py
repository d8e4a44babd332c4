"""Every vector of docs/spec/vectors, byte for byte."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from legwork import (
    DecimalError,
    Keypair,
    PayloadLeg,
    WalletError,
    build_quote,
    decode_base64_signature,
    decode_base58_signature,
    decode_receipt,
    encode_accept_payload,
    encode_base64_signature,
    encode_quote_payload,
    encode_receipt,
    format_http,
    format_symbol,
    is_small_order_key,
    key_id_of,
    parse_http_decimal,
    parse_rfq_decimal,
    parse_rfq_signed_micro,
    parse_rfq_unsigned_micro,
    parse_symbol,
    parse_wallet,
    quote_id,
    receipt_hash,
    rfq_decimal,
    sign_accept,
    sign_in_message,
    signing_domain,
    taker_commitment,
    to_micro,
    verify_ed25519,
    verify_journal_segment,
    verify_quote,
    verify_receipt,
)

VECTORS = Path(__file__).resolve().parents[3] / "docs" / "spec" / "vectors"


def load(name: str) -> Any:
    return json.loads((VECTORS / f"{name}.json").read_text())


def text_id(case: dict[str, Any]) -> str:
    return str(case["text"])


def repr_id(case: dict[str, Any]) -> str:
    return repr(case["text"])


def why_id(case: dict[str, Any]) -> str:
    return str(case["why"])


def name_id(case: dict[str, Any]) -> str:
    return str(case["name"])


def seq_id(case: dict[str, Any]) -> str:
    return str(case["input"]["journal_seq"])


def symbol_id(case: dict[str, Any]) -> str:
    return str(case["symbol"])


DECIMALS = load("decimals")
SIGNIN = load("signin")
PAYLOADS = load("payloads")
RECEIPTS = load("receipts")
INSTRUMENTS = load("instruments")


@pytest.mark.parametrize("case", DECIMALS["signed_valid"], ids=text_id)
def test_signed_valid(case: dict[str, str]) -> None:
    assert parse_rfq_signed_micro(case["text"]) == int(case["micro"])
    assert rfq_decimal(case["text"]) == case["canonical"]
    assert rfq_decimal(parse_rfq_decimal(case["text"])) == case["canonical"]
    assert parse_rfq_decimal(case["text"]) == Decimal(case["canonical"])


@pytest.mark.parametrize("case", DECIMALS["signed_invalid"], ids=repr_id)
def test_signed_invalid(case: dict[str, str]) -> None:
    with pytest.raises(DecimalError):
        parse_rfq_signed_micro(case["text"])


@pytest.mark.parametrize("value", DECIMALS["signed_invalid_json_values"], ids=repr)
def test_json_values_are_not_decimals(value: object) -> None:
    with pytest.raises(DecimalError):
        parse_rfq_signed_micro(value)


def test_unsigned() -> None:
    for case in DECIMALS["unsigned_valid"]:
        assert parse_rfq_unsigned_micro(case["text"]) == int(case["micro"])
    for case in DECIMALS["unsigned_invalid"]:
        with pytest.raises(DecimalError):
            parse_rfq_unsigned_micro(case["text"])


def test_http_8dp() -> None:
    for case in DECIMALS["http_8dp"]:
        assert format_http(parse_rfq_signed_micro(case["text"])) == case["http"]
        assert parse_http_decimal(case["http"]) == Decimal(case["text"])


def test_decimal_inputs_are_exact_and_never_floats() -> None:
    assert rfq_decimal(Decimal("1.50")) == "1.5"
    assert rfq_decimal(Decimal("-0")) == "0"
    assert rfq_decimal(Decimal("1E+3")) == "1000"
    assert rfq_decimal(7) == "7"
    assert to_micro(Decimal("0.000001")) == 1
    for bad in (Decimal("1.0000001"), Decimal("NaN"), Decimal("Infinity"), Decimal("9223372036854.775808")):
        with pytest.raises(DecimalError):
            to_micro(bad)
    with pytest.raises(DecimalError):
        to_micro(1.5)  # type: ignore[arg-type]
    with pytest.raises(DecimalError):
        to_micro(True)


def test_sign_in_vector() -> None:
    key = Keypair.from_hex(SIGNIN["wallet_seed_hex"])
    assert key.wallet == SIGNIN["wallet"]
    message = sign_in_message(SIGNIN["service_name"], SIGNIN["wallet"], SIGNIN["nonce"])
    assert message == SIGNIN["message"]
    assert key.sign_base58(message) == SIGNIN["signature_base58"]
    signature = decode_base58_signature(SIGNIN["signature_base58"])
    assert signature is not None
    assert verify_ed25519(parse_wallet(SIGNIN["wallet"]), message.encode(), signature)
    assert not verify_ed25519(parse_wallet(SIGNIN["wallet"]), (message + " ").encode(), signature)


@pytest.mark.parametrize("case", SIGNIN["invalid_wallets"], ids=why_id)
def test_invalid_wallets(case: dict[str, str]) -> None:
    with pytest.raises(WalletError):
        parse_wallet(case["text"])


def test_small_order_keys() -> None:
    for text in SIGNIN["small_order_public_keys_hex"]:
        key = bytes.fromhex(text)
        assert is_small_order_key(key)
        high = key[:31] + bytes([key[31] | 0x80])
        assert is_small_order_key(high)
        # Anyone can forge with such a key: the verifier refuses it before looking at the signature.
        assert not verify_ed25519(key, b"m", bytes(64))
    assert not is_small_order_key(parse_wallet(SIGNIN["wallet"]))


def test_non_canonical_s_is_refused() -> None:
    key = Keypair.from_hex(SIGNIN["wallet_seed_hex"])
    signature = key.sign(b"payload")
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signature[32:], "little") + order
    forged = signature[:32] + s.to_bytes(32, "little")
    assert verify_ed25519(key.public_key, b"payload", signature)
    assert not verify_ed25519(key.public_key, b"payload", forged)


INSTRUMENT_RECORDS = {
    f"SOL-27DEC26-{strike}-{kind[0].upper()}": {
        "symbol": f"SOL-27DEC26-{strike}-{kind[0].upper()}",
        "asset": "SOL",
        "strike": str(strike),
        "kind": kind,
        "expiry": 1798358400,
    }
    for strike in range(100, 165, 5)
    for kind in ("call", "put")
}


def test_domain() -> None:
    assert signing_domain(PAYLOADS["service_name"]).hex() == PAYLOADS["domain_hex"]


@pytest.mark.parametrize("case", PAYLOADS["cases"], ids=name_id)
def test_quote_and_accept_payloads(case: dict[str, Any]) -> None:
    maker = Keypair.from_hex(PAYLOADS["maker_seed_hex"])
    taker = Keypair.from_hex(PAYLOADS["taker_seed_hex"])
    assert maker.wallet == PAYLOADS["maker_wallet"] and taker.wallet == PAYLOADS["taker_wallet"]
    q = case["quote"]
    built = build_quote(
        maker,
        {"rfq_id": q["rfq_id"], "legs": q["legs"]},
        quote_nonce=q["quote_nonce"],
        bid=Decimal(q["bid"]),
        ask=q["ask"],
        issued_at=q["issued_at"],
        expires_at=q["expires_at"],
        instruments=INSTRUMENT_RECORDS,
        domain=PAYLOADS["domain_hex"],
    )
    assert built.payload.hex() == case["quote_payload_hex"]
    assert len(built.payload) == 1050
    assert built.quote_id == case["quote_id"] == quote_id(built.payload)
    assert built.params["maker_signature"] == case["maker_signature"]
    assert built.params["bid"] == q["bid"] and built.params["ask"] == q["ask"]
    view = {"rfq_id": q["rfq_id"], "legs": q["legs"], "quote": {**q, "quote_id": case["quote_id"], "maker_signature": case["maker_signature"]}}
    assert verify_quote(view, list(INSTRUMENT_RECORDS.values()))
    tampered = {**view, "quote": {**view["quote"], "ask": "99"}}
    assert not verify_quote(tampered, INSTRUMENT_RECORDS)
    for accept in case["accepts"]:
        payload = encode_accept_payload(rfq_id=q["rfq_id"], quote_id=case["quote_id"], taker=taker.public_key, side=accept["side"], expires_at=accept["expires_at"])
        assert payload.hex() == accept["payload_hex"]
        assert len(payload) == 105
        params = sign_accept(taker, rfq_id=q["rfq_id"], quote_id=case["quote_id"], side=accept["side"], expires_at=accept["expires_at"])
        assert params["taker_signature"] == accept["taker_signature"]


def test_encode_quote_payload_directly() -> None:
    case = PAYLOADS["cases"][0]
    q = case["quote"]
    payload = encode_quote_payload(
        domain=signing_domain(),
        rfq_id=q["rfq_id"],
        maker=parse_wallet(q["maker"]),
        quote_nonce=int(q["quote_nonce"]),
        bid=to_micro(q["bid"]),
        ask=to_micro(q["ask"]),
        issued_at=q["issued_at"],
        expires_at=q["expires_at"],
        asset=q["asset"],
        expiry=q["expiry"],
        legs=[PayloadLeg("SOL-27DEC26-150-C", 150_000_000, "call", 1_000_000)],
    )
    assert payload.hex() == case["quote_payload_hex"]


@pytest.mark.parametrize("case", PAYLOADS["non_canonical_base64"], ids=why_id)
def test_non_canonical_base64(case: dict[str, str]) -> None:
    assert decode_base64_signature(case["text"]) is None


def test_canonical_base64_round_trip() -> None:
    sig = PAYLOADS["cases"][0]["maker_signature"]
    raw = decode_base64_signature(sig)
    assert raw is not None and encode_base64_signature(raw) == sig


def receipt_fields(item: dict[str, Any]) -> dict[str, Any]:
    i = item["input"]
    return {
        "kind": i["kind"],
        "domain": signing_domain(),
        "journal_seq": i["journal_seq"],
        "prev_hash": bytes.fromhex(i["prev_hash"]),
        "rfq_id": i["rfq_id"],
        "quote_id": i["quote_id"],
        "maker": parse_wallet(i["maker"]),
        "side": i["side"],
        "price": to_micro(i["price"]),
        "fee": to_micro(i["fee"]),
        "at": i["at"],
        "fill_id": int(i["fill_id"]),
        "legs": [
            PayloadLeg(leg["instrument"], parse_symbol(leg["instrument"]).strike, parse_symbol(leg["instrument"]).kind, to_micro(leg["quantity"]))
            for leg in i["legs"]
        ],
    }


def exchange_keys() -> list[dict[str, Any]]:
    return [{"key_id": RECEIPTS["key_id"], "public_key": RECEIPTS["exchange_public_key"], "from": 0}]


@pytest.mark.parametrize("item", RECEIPTS["receipts"], ids=seq_id)
def test_receipts_v2(item: dict[str, Any]) -> None:
    exchange = Keypair.from_hex(RECEIPTS["exchange_seed_hex"])
    assert exchange.wallet == RECEIPTS["exchange_public_key"]
    assert key_id_of(exchange.public_key) == RECEIPTS["key_id"]
    i = item["input"]
    taker = parse_wallet(i["taker"])
    commitment = taker_commitment(bytes.fromhex(i["taker_salt"]), taker)
    assert commitment.hex() == i["taker_commitment"]
    payload = encode_receipt(version=2, taker=commitment, **receipt_fields(item))
    assert payload.hex() == item["payload_hex"]
    assert receipt_hash(payload) == item["hash"]
    assert encode_base64_signature(exchange.sign(payload)) == item["signature"]
    assert payload[136:168] == commitment
    receipt = {"journal_seq": i["journal_seq"], "kind": i["kind"], "payload": encode_b64(payload), "hash": item["hash"], "key_id": item["key_id"], "signature": item["signature"]}
    fill = {"fill_id": i["fill_id"], "side": i["side"], "price": i["price"], "fee": i["fee"], "filled_at": i["at"]}
    fill.update({"rfq_id": i["rfq_id"], "quote_id": i["quote_id"], "legs": i["legs"], "taker_salt": i["taker_salt"]})
    decoded = verify_receipt(receipt, exchange_keys(), fill=fill, taker=i["taker"])
    assert decoded.version == 2 and decoded.taker is None and decoded.taker_commitment == i["taker_commitment"]
    assert decoded.maker == i["maker"] and decoded.legs[0].instrument == i["legs"][0]["instrument"]


def test_receipt_v2_refuses_another_taker() -> None:
    from legwork import ReceiptError

    item = RECEIPTS["receipts"][0]
    i = item["input"]
    receipt = {"journal_seq": 1, "kind": 0, "payload": encode_b64(bytes.fromhex(item["payload_hex"])), "hash": item["hash"], "key_id": item["key_id"], "signature": item["signature"]}
    with pytest.raises(ReceiptError):
        verify_receipt(receipt, exchange_keys(), fill={"fill_id": "1", "side": "buy", "price": "13.25", "filled_at": i["at"], "taker_salt": i["taker_salt"]}, taker=PAYLOADS["maker_wallet"])
    with pytest.raises(ReceiptError):
        verify_receipt(receipt, exchange_keys(), fill={"fill_id": "1", "side": "buy", "price": "13.26", "filled_at": i["at"]})
    broken = {**receipt, "signature": RECEIPTS["receipts"][1]["signature"]}
    with pytest.raises(ReceiptError):
        verify_receipt(broken, exchange_keys())


def test_receipt_v1_still_verifies() -> None:
    v1 = RECEIPTS["version_1"]
    payload = bytes.fromhex(v1["payload_hex"])
    decoded = decode_receipt(payload)
    assert decoded.version == 1 and decoded.taker is not None and decoded.taker_commitment is None
    assert receipt_hash(payload) == v1["hash"]
    receipt = {"journal_seq": decoded.journal_seq, "kind": decoded.kind, "payload": encode_b64(payload), "hash": v1["hash"], "key_id": v1["key_id"], "signature": v1["signature"]}
    verify_receipt(receipt, exchange_keys(), taker=decoded.taker)
    legs = [PayloadLeg(leg.instrument, leg.strike, leg.kind, leg.quantity) for leg in decoded.legs]
    rebuilt = encode_receipt(
        version=1,
        kind=decoded.kind,
        domain=bytes.fromhex(decoded.domain),
        journal_seq=decoded.journal_seq,
        prev_hash=bytes.fromhex(decoded.prev_hash),
        rfq_id=decoded.rfq_id,
        quote_id=decoded.quote_id,
        taker=parse_wallet(decoded.taker),
        maker=parse_wallet(decoded.maker),
        side=decoded.side,
        price=decoded.price,
        fee=decoded.fee,
        at=decoded.at,
        fill_id=decoded.fill_id,
        legs=legs,
    )
    assert rebuilt == payload


def test_journal_chain() -> None:
    rows = [{"journal_seq": r["input"]["journal_seq"], "hash": r["hash"], "prev_hash": r["input"]["prev_hash"]} for r in RECEIPTS["receipts"]]
    check = verify_journal_segment(rows)
    assert check.ok and check.head is not None and check.head.journal_seq == 4 and check.head.hash == rows[-1]["hash"]
    broken = verify_journal_segment([rows[0], rows[2]])
    assert not broken.ok and broken.journal_seq == 2
    relinked = verify_journal_segment([rows[0], {**rows[1], "prev_hash": "0" * 64}])
    assert not relinked.ok and relinked.journal_seq == 2


@pytest.mark.parametrize("case", INSTRUMENTS["symbols"], ids=symbol_id)
def test_symbols(case: dict[str, Any]) -> None:
    assert format_symbol(case["asset"], case["expiry"], case["strike"], case["kind"]) == case["symbol"]
    assert format_symbol(case["asset"], case["expiry"], Decimal(case["strike"]), case["kind"]) == case["symbol"]
    parts = parse_symbol(case["symbol"])
    assert parts.asset == case["asset"] and parts.kind == case["kind"] and parts.strike == to_micro(case["strike"])


def encode_b64(payload: bytes) -> str:
    import base64

    return base64.b64encode(payload).decode()


def test_limits_to_wire_and_payload_diff() -> None:
    from legwork import limits_to_wire, payload_diff

    wire = limits_to_wire(
        {"max_open_quotes": 0, "max_open_notional": Decimal("100000.50"), "max_open_delta": {"SOL": "50"}, "price_band_bps": 25, "max_quote_notional": None}
    )
    assert wire == {"max_open_quotes": 0, "max_open_notional": "100000.5", "max_open_delta": {"SOL": "50"}, "price_band_bps": 25}
    protection = limits_to_wire({"protection": {"window_seconds": 60, "max_fills": 3, "max_fill_notional": 7, "frozen_seconds": 0}})
    assert protection == {"protection": {"window_seconds": 60, "max_fills": 3, "max_fill_notional": "7", "frozen_seconds": 0}}
    with pytest.raises(ValueError):
        limits_to_wire({"max_open_quotes": -1})
    with pytest.raises(DecimalError):
        limits_to_wire({"max_open_notional": 1.5})
    case = PAYLOADS["cases"][1]
    ours = bytes.fromhex(case["quote_payload_hex"])
    theirs = bytearray(ours)
    theirs[104] ^= 1  # bid
    theirs[218 + 64 + 48] ^= 1  # legs[1].quantity
    assert [d.split(" (")[0] for d in payload_diff(ours, bytes(theirs))] == ["bid", "legs[1].quantity"]
    assert payload_diff(ours, encode_b64(ours)) == []
