"""The pricing of the reference maker (``maker.py``), the same as the TypeScript reference maker's:
priced from the exchange's own marks, with a price band that no quote leaves.

mid = Σ quantity × mark; the quote is mid ∓ max(|mid| × spread_bps / 20000, min_half_spread), bid
rounded down and ask up to the micro-unit. The band: the desk never sells (its ask) below the mark
by more than ``band_bps`` of |mid| (at least ``min_half_spread``), nor buys (its bid) above it by
more; a quote outside it is declined (``low_confidence``), never sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Mapping

from legwork import DeclineReason, parse_rfq_decimal

MICRO = Decimal("0.000001")


@dataclass(frozen=True)
class Policy:
    spread_bps: int = 200
    """Full width of the quote as a fraction of |mid|, in basis points."""
    min_half_spread: Decimal = Decimal("0.01")
    max_legs: int = 13
    max_leg_size: Decimal = Decimal("1000")
    quote_lifetime: int = 30
    near_expiry_seconds: int = 600
    band_bps: int = 500
    """The price band: at most this far (bps of |mid|) on the wrong side of the mark."""


@dataclass(frozen=True)
class Decision:
    action: str
    reason: DeclineReason = "low_confidence"
    detail: str = ""
    mid: Decimal = Decimal(0)
    bid: Decimal = Decimal(0)
    ask: Decimal = Decimal(0)
    expires_at: int = 0


def price_rfq(rfq: Mapping[str, Any], instruments: Mapping[str, Mapping[str, Any]], market: Mapping[str, Any] | None, now: int, policy: Policy) -> Decision:
    """The pricing of the TypeScript reference maker: mid = Σ quantity × mark; quote mid ∓ max(|mid| × bps / 20000, min half);
    bid rounds down and ask up to the micro-unit, so bid <= ask and the width is never below the one configured."""
    legs = rfq["legs"]
    if len(legs) > policy.max_legs:
        return Decision("decline", "size_limit", f"{len(legs)} legs, at most {policy.max_legs}")
    records = []
    for leg in legs:
        record = instruments.get(leg["instrument"])
        if record is None:
            return Decision("decline", "unlisted_instrument", f"{leg['instrument']} is not listed")
        if record.get("settled") or record.get("paused"):
            return Decision("decline", "unlisted_instrument", f"{leg['instrument']} is {'settled' if record.get('settled') else 'paused'}")
        records.append(record)
    expiry = min(int(r["expiry"]) for r in records)
    if expiry - now < policy.near_expiry_seconds:
        return Decision("decline", "near_expiry", f"the legs expire in {expiry - now} s")
    expires_at = min(now + policy.quote_lifetime, int(rfq["max_quote_expires_at"]))
    if expires_at <= now:
        return Decision("decline", "near_expiry", "no quote lifetime left before max_quote_expires_at")
    quantities = [parse_rfq_decimal(leg["quantity"]) for leg in legs]
    for leg, q in zip(legs, quantities):
        if abs(q) > policy.max_leg_size:
            return Decision("decline", "size_limit", f"{leg['instrument']}: |{leg['quantity']}| over the limit")
    marks = []
    for record in records:
        if record.get("mark_price") is None:
            return Decision("decline", "stale_data", f"no fresh mark for {record['symbol']}")
        marks.append(parse_rfq_decimal(record["mark_price"]))
    asset = records[0]["asset"]
    market = market or {}
    index = next((a for a in market.get("assets", []) if a.get("asset") == asset), None)
    updated = index.get("index_updated_at") if index else None
    max_age = int(market.get("rfq", {}).get("market_data_max_age_seconds", 30))
    if updated is None:
        return Decision("decline", "stale_data", f"no index price for {asset}")
    if now - int(updated) > max_age:
        return Decision("decline", "stale_data", f"the {asset} index is {now - int(updated)} s old (max {max_age} s)")
    mid = sum((q * m for q, m in zip(quantities, marks)), Decimal(0))
    half = max(abs(mid) * policy.spread_bps / Decimal(20000), policy.min_half_spread)
    bid = (mid - half).quantize(MICRO, rounding=ROUND_FLOOR)
    ask = (mid + half).quantize(MICRO, rounding=ROUND_CEILING)
    outside = outside_band(mid, bid, ask, policy)
    if outside:
        return Decision("decline", "low_confidence", outside)
    return Decision("quote", mid=mid.quantize(MICRO), bid=bid, ask=ask, expires_at=expires_at)


def outside_band(mid: Decimal, bid: Decimal, ask: Decimal, policy: Policy) -> str:
    """Why a quote leaves the price band around ``mid`` (empty when it does not)."""
    band = max(abs(mid) * policy.band_bps / Decimal(10000), policy.min_half_spread)
    if ask < mid - band:
        return f"ask {ask} is below the mark {mid} by more than the band {band}"
    if bid > mid + band:
        return f"bid {bid} is above the mark {mid} by more than the band {band}"
    return ""
