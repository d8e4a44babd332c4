"""The types of ``rfq.maker.quotes`` (a maker's own quotes, for reconciling after a lost reply), kept
importable from here; the contract declares them and ``wire.py`` holds them."""

from __future__ import annotations

from .wire import MakerQuote as MakerQuote
from .wire import MakerQuoteState as MakerQuoteState
from .wire import RfqMakerQuotesResult as RfqMakerQuotesResult

__all__ = ["MakerQuote", "MakerQuoteState", "RfqMakerQuotesResult"]
