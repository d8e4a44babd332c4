"""Checks of what the exchange sends: the fields where two quote payloads differ, and fill receipts and
the journal against the exchange's published keys."""

from __future__ import annotations

import base64
from typing import Any, Mapping, Sequence

from .errors import ReceiptError
from .http import LegworkHttp
from .payloads import LEG_SLOT_SIZE
from .receipts import DecodedReceipt, JournalCheck, JournalHead, verify_journal_segment, verify_receipt
from .signin import DEFAULT_SERVICE_NAME

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
    ``rfq.maker.check``'s RFQ_INVALID_SIGNATURE), named by the layout of the 1,050-byte quote payload (legwork.payloads)."""
    other = base64.b64decode(theirs) if isinstance(theirs, str) else bytes(theirs)
    if len(other) != len(ours):
        return [f"size: ours {len(ours)} bytes, the exchange's {len(other)}"]
    fields = list(_QUOTE_FIELDS)
    for i in range(13):
        base = 218 + i * LEG_SLOT_SIZE
        fields += [(f"legs[{i}].symbol", base, base + 32), (f"legs[{i}].strike", base + 32, base + 40), (f"legs[{i}].kind", base + 40, base + 48)]
        fields += [(f"legs[{i}].quantity", base + 48, base + 56), (f"legs[{i}].zero", base + 56, base + 64)]
    return [f"{name} (bytes {a}..{b}): ours {ours[a:b].hex()}, the exchange's {other[a:b].hex()}" for name, a, b in fields if ours[a:b] != other[a:b]]


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
