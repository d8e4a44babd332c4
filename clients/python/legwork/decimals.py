"""Exact RFQ and HTTP decimals (the README's "Decimals and bytes").

Money, prices, strikes and quantities are fixed-point values of 10^-6 units. This
module holds them as :class:`decimal.Decimal` for the application and as ``int``
micro-units for the signed payloads; a ``float`` is never accepted.

RFQ decimals (``RfqDecimal``, ``RfqSignedDecimal``) travel as canonical text with at
most 6 fractional digits (``"1.5"``, ``"0"``, ``"-2"``, ``"0.000001"``); the HTTP API
writes amounts with exactly 8 fractional digits (``"12.50000000"``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Union

from .errors import DecimalError

MICRO = 1_000_000
"""Micro-units per unit (USDC and contracts have 6 decimals)."""
I64_MAX = (1 << 63) - 1
"""The largest RFQ decimal in micro-units (and the largest signed 64-bit value)."""
U64_MAX = (1 << 64) - 1

DecimalInput = Union[Decimal, str, int]
"""What the helpers accept as an amount: a Decimal, an RFQ decimal string or a whole
number of units (never a float)."""

_SIGNED = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?", re.ASCII)
_HTTP = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]{1,8}))?", re.ASCII)
_HTTP_TOO_PRECISE = re.compile(r"-?(0|[1-9][0-9]*)\.[0-9]{9,}", re.ASCII)


def _micro_of(negative: bool, whole: str, fraction: str | None, text: object) -> int:
    frac = fraction or ""
    if len(frac) > 6 and frac[6:].strip("0"):
        raise DecimalError("too_precise", text)
    micro = int(whole) * MICRO + int((frac[:6] + "000000")[:6])
    return -micro if negative else micro


def parse_rfq_signed_micro(text: object) -> int:
    """RfqSignedDecimal text to micro-units.

    Canonical text only: no sign but ``-``, no leading zero, no exponent, no
    whitespace, no negative zero, at most 6 fractional digits, within
    ``[-(2^63 - 1), 2^63 - 1]`` micro-units.

    :raises DecimalError: for anything else (a JSON number included)
    """
    if not isinstance(text, str):
        raise DecimalError("not_a_string", text)
    m = _SIGNED.fullmatch(text)
    if m is None:
        raise DecimalError("not_canonical", text)
    if m.group(3) is not None and len(m.group(3)) > 6:
        raise DecimalError("too_precise", text)
    value = _micro_of(m.group(1) == "-", m.group(2), m.group(3), text)
    if m.group(1) == "-" and value == 0:
        raise DecimalError("not_canonical", text)
    if value > I64_MAX or value < -I64_MAX:
        raise DecimalError("out_of_range", text)
    return value


def parse_rfq_unsigned_micro(text: object) -> int:
    """RfqDecimal text (no sign at all) to micro-units.

    :raises DecimalError: as :func:`parse_rfq_signed_micro`, and for a sign
    """
    if isinstance(text, str) and text.startswith("-"):
        raise DecimalError("not_canonical", text)
    return parse_rfq_signed_micro(text)


def parse_rfq_decimal(text: object) -> Decimal:
    """RfqSignedDecimal text to an exact :class:`~decimal.Decimal`."""
    return from_micro(parse_rfq_signed_micro(text))


def from_micro(micro: int) -> Decimal:
    """Micro-units to an exact Decimal (``1500000`` -> ``Decimal("1.5")``)."""
    if isinstance(micro, bool) or not isinstance(micro, int):
        raise TypeError("micro-units are an int")
    return Decimal(format_rfq(micro))


def to_micro(value: DecimalInput) -> int:
    """An amount to micro-units, exactly.

    A ``str`` must be a canonical RFQ decimal; a ``Decimal`` must have at most 6
    fractional digits (``Decimal("1.50")`` is fine); an ``int`` counts whole units.

    :raises DecimalError: for a float, NaN, infinity, more precision or a value
        outside the RFQ range
    """
    if isinstance(value, str):
        return parse_rfq_signed_micro(value)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise DecimalError("not_a_decimal", value)
    if isinstance(value, int):
        micro = value * MICRO
    else:
        if not value.is_finite():
            raise DecimalError("not_canonical", value)
        scaled = value.scaleb(6)
        if scaled != scaled.to_integral_value():
            raise DecimalError("too_precise", value)
        micro = int(scaled)
    if micro > I64_MAX or micro < -I64_MAX:
        raise DecimalError("out_of_range", value)
    return micro


def format_rfq(micro: int) -> str:
    """Shortest canonical RFQ form of micro-units: ``"1.5"``, ``"0"``, ``"-2"``."""
    negative = micro < 0
    whole, frac = divmod(-micro if negative else micro, MICRO)
    frac_text = f"{frac:06d}".rstrip("0")
    sign = "-" if negative else ""
    return f"{sign}{whole}.{frac_text}" if frac_text else f"{sign}{whole}"


def rfq_decimal(value: DecimalInput) -> str:
    """An amount as the canonical RFQ decimal text the exchange takes.

    ``rfq_decimal(Decimal("1.50")) == "1.5"``; a string is checked and returned in
    canonical form.

    :raises DecimalError: for a value that is not an exact RFQ decimal
    """
    return format_rfq(to_micro(value))


def format_http(micro: int) -> str:
    """HTTP form of micro-units: exactly 8 fractional digits (``"12.50000000"``)."""
    negative = micro < 0
    whole, frac = divmod(-micro if negative else micro, MICRO)
    return f"{'-' if negative else ''}{whole}.{frac:06d}00"


def parse_http_micro(text: object) -> int:
    """An HTTP decimal as the server writes it (``"-3.00000100"``) to micro-units.

    Up to 8 fractional digits, signed; a value not exact in micro-units is refused.

    :raises DecimalError:
    """
    if not isinstance(text, str):
        raise DecimalError("not_a_string", text)
    m = _HTTP.fullmatch(text)
    if m is None:
        if _HTTP_TOO_PRECISE.fullmatch(text):
            raise DecimalError("too_precise", text)
        raise DecimalError("not_canonical", text)
    micro = _micro_of(m.group(1) == "-", m.group(2), m.group(3), text)
    if m.group(1) == "-" and micro == 0:
        raise DecimalError("not_canonical", text)
    if micro > I64_MAX or micro < -I64_MAX:
        raise DecimalError("out_of_range", text)
    return micro


def parse_http_decimal(text: object) -> Decimal:
    """An HTTP decimal (``"12.50000000"``) to an exact Decimal (``Decimal("12.5")``)."""
    return from_micro(parse_http_micro(text))


def parse_any_micro(text: object) -> int:
    """A decimal of the wire in either form (RFQ or 8-place HTTP) to micro-units."""
    return parse_http_micro(text)
