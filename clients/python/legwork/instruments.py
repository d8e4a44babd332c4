"""Instrument symbols (the exchange's instrument names): ``<ASSET>-<DDMMMYY>-<STRIKE>-<C|P>``.

``SOL-27DEC26-152.5-C``: the UTC date of the expiry, month in upper case English,
the strike in the RFQ output form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone

from .decimals import DecimalInput, format_rfq, parse_rfq_unsigned_micro, to_micro

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_ASSET = re.compile(r"[A-Z][A-Z0-9]{1,7}", re.ASCII)
_SYMBOL = re.compile(r"([A-Z][A-Z0-9]{1,7})-([0-9]{2})([A-Z]{3})([0-9]{2})-([0-9.]+)-([CP])", re.ASCII)
MAX_SYMBOL_BYTES = 32


@dataclass(frozen=True)
class SymbolParts:
    """The terms a symbol spells: asset, UTC date of the expiry, strike (micro-units), kind."""

    asset: str
    expiry_date: date
    strike: int
    kind: str


def format_symbol(asset: str, expiry: int, strike: DecimalInput, kind: str) -> str:
    """The symbol of an instrument; ``expiry`` in unix seconds, ``kind`` ``call`` or ``put``.

    :raises ValueError: for an asset off ``^[A-Z][A-Z0-9]{1,7}$``, a bad kind or a symbol over 32 bytes
    """
    if not _ASSET.fullmatch(asset):
        raise ValueError(f"asset {asset!r} is not 2 to 8 of A-Z 0-9 starting with a letter")
    if kind not in ("call", "put"):
        raise ValueError("kind must be call or put")
    micro = to_micro(strike)
    if micro < 0:
        raise ValueError("a strike is not negative")
    day = datetime.fromtimestamp(expiry, tz=timezone.utc)
    text = f"{asset}-{day.day:02d}{_MONTHS[day.month - 1]}{day.year % 100:02d}-{format_rfq(micro)}-{'C' if kind == 'call' else 'P'}"
    if len(text) > MAX_SYMBOL_BYTES:
        raise ValueError(f"symbol {text} is over {MAX_SYMBOL_BYTES} bytes")
    return text


def parse_symbol(symbol: str) -> SymbolParts:
    """The terms of a symbol (the century of the year is taken as 20xx).

    :raises ValueError: for a text that is not a symbol in canonical form
    """
    m = _SYMBOL.fullmatch(symbol)
    if m is None or m.group(3) not in _MONTHS or len(symbol) > MAX_SYMBOL_BYTES:
        raise ValueError(f"{symbol!r} is not an instrument symbol")
    day = date(2000 + int(m.group(4)), _MONTHS.index(m.group(3)) + 1, int(m.group(2)))
    strike = parse_rfq_unsigned_micro(m.group(5))
    if format_rfq(strike) != m.group(5):
        raise ValueError(f"{symbol!r}: the strike is not in canonical form")
    return SymbolParts(m.group(1), day, strike, "call" if m.group(6) == "C" else "put")
