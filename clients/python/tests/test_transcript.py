"""The signed RFQ transcript against vectors/transcripts.json (design.md section 18), tampered copies included."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from legwork import Keypair, canonical_json, encode_wallet, key_id_of, transcript_hash, transcript_payload, verify_transcript
from legwork.transcript import ExchangeKey

VECTORS = json.loads((Path(__file__).resolve().parents[3] / "docs" / "spec" / "vectors" / "transcripts.json").read_text())
EXCHANGE = Keypair.from_hex(VECTORS["exchange_seed_hex"])
KEY: str = VECTORS["exchange_public_key"]
KEYS = [{"key_id": VECTORS["key_id"], "public_key": KEY, "from": 0}]
CASES: list[dict[str, Any]] = VECTORS["cases"]


def case_id(case: dict[str, Any]) -> str:
    return str(case["name"])[:40]


def signed_of(case: dict[str, Any]) -> dict[str, Any]:
    return {"transcript": case["transcript"], "payload": case["payload_base64"], "hash": case["hash"], "key_id": case["key_id"], "signature": case["signature"]}


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def test_the_key_is_that_of_receipts() -> None:
    assert encode_wallet(EXCHANGE.public_key) == KEY
    assert key_id_of(EXCHANGE.public_key) == VECTORS["key_id"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_payload_hash_and_signature_are_the_vectors(case: dict[str, Any]) -> None:
    payload = transcript_payload(case["transcript"])
    assert b64(payload) == case["payload_base64"]
    assert transcript_hash(payload) == case["hash"]
    assert b64(EXCHANGE.sign(payload)) == case["signature"]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_verifies_with_the_key_in_every_form(case: dict[str, Any]) -> None:
    keys: list[ExchangeKey] = [KEY, EXCHANGE.public_key, KEYS]
    for key in keys:
        check = verify_transcript(signed_of(case), key)
        assert check.ok and check.fault is None and check.transcript == case["transcript"]


def edit_price(t: Any) -> None:
    t["quotes"][0]["ask"] = "0.01"


def edit_drop_quote(t: Any) -> None:
    t["quotes"].pop()


def edit_end(t: Any) -> None:
    t["quotes"][0]["end"] = "accepted"


def edit_panel(t: Any) -> None:
    t["makers"] = None if t["makers"] else [t["quotes"][0]["maker"]]


def edit_time(t: Any) -> None:
    t["closed_at_ms"] += 1


EDITS: list[tuple[str, Callable[[Any], None]]] = [
    ("price", edit_price),
    ("quote dropped", edit_drop_quote),
    ("end", edit_end),
    ("panel", edit_panel),
    ("time", edit_time),
]


def edit_id(edit: tuple[str, Callable[[Any], None]]) -> str:
    return edit[0]


@pytest.mark.parametrize("case", CASES, ids=case_id)
@pytest.mark.parametrize("edit", EDITS, ids=edit_id)
def test_a_changed_transcript_under_the_same_signature_fails_on_the_payload(case: dict[str, Any], edit: tuple[str, Callable[[Any], None]]) -> None:
    transcript = copy.deepcopy(case["transcript"])
    edit[1](transcript)
    check = verify_transcript({**signed_of(case), "transcript": transcript}, KEY)
    assert not check.ok and check.fault == "payload"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_payload_that_is_not_canonical_fails_even_when_signed(case: dict[str, Any]) -> None:
    loose = json.dumps(case["transcript"], indent=1).encode()
    signed = {**signed_of(case), "payload": b64(loose), "hash": transcript_hash(loose), "signature": b64(EXCHANGE.sign(loose))}
    assert verify_transcript(signed, KEY).fault == "payload"
    assert verify_transcript({**signed_of(case), "payload": "not base64!"}, KEY).fault == "payload"
    assert verify_transcript({**signed_of(case), "payload": case["payload_base64"][:-4]}, KEY).fault == "payload"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hash_key_id_and_signature_faults(case: dict[str, Any]) -> None:
    wrong_hash = ("1" if case["hash"][0] == "0" else "0") + case["hash"][1:]
    assert verify_transcript({**signed_of(case), "hash": wrong_hash}, KEY).fault == "hash"
    other = Keypair.from_seed(bytes([7]) * 32)
    assert verify_transcript(signed_of(case), other.wallet).fault == "key_id"
    assert verify_transcript({**signed_of(case), "key_id": "0" * 16}, KEYS).fault == "key_id"
    assert verify_transcript(signed_of(case), "not-a-key").fault == "key_id"
    signature = bytearray(base64.b64decode(case["signature"]))
    signature[5] ^= 1
    by_other = b64(other.sign(base64.b64decode(case["payload_base64"])))
    for bad in (b64(bytes(signature)), by_other, "", "AAAA"):
        assert verify_transcript({**signed_of(case), "signature": bad}, KEY).fault == "signature"


def test_objects_that_are_not_transcripts() -> None:
    case = CASES[0]
    for key, value in (("kind", "legwork.receipt"), ("version", 2), ("closed_at_ms", 1.5)):
        transcript = {**case["transcript"], key: value}
        assert verify_transcript({**signed_of(case), "transcript": transcript}, KEY).fault == "transcript"
    assert verify_transcript({**signed_of(case), "transcript": None}, KEY).fault == "transcript"


def test_canonical_json_rfc8785() -> None:
    # The key order example of RFC 8785 section 3.2.3 (UTF-16 code units), and its string escapes.
    value = {"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew", "1": "One", "\U0001f600": "Emoji", "\u0080": "Control", "\u00f6": "o"}
    assert canonical_json(value) == '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"o","\u20ac":"Euro Sign","\U0001f600":"Emoji","\ufb33":"Hebrew"}'
    assert canonical_json("\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/") == '"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"'
    assert canonical_json({"b": [3, {"z": None, "a": True}], "a": {}, "c": [], "e": -12}) == '{"a":{},"b":[3,{"a":true,"z":null}],"c":[],"e":-12}'
    for bad in (1.5, 2**53, "\ud800x", b"bytes"):
        with pytest.raises(ValueError):
            canonical_json(bad)
