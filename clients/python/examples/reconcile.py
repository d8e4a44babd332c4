"""The reference maker's reconciliation of a respond whose reply was lost to a disconnect.

After the reconnection (section "Reconciling a lost quote" of the package README):

1. ``rfq.maker.quotes`` lists the desk's own quotes: the lost one is there (it landed: its state
   says what became of it) or not (it never landed).
2. Not there: the same params are sent again. An exchange with idempotent responds returns the
   original result for a quote that landed, and takes one that did not (its nonce was never used).
3. Still refused: the RFQ is handed back to the maker, which quotes it again with a new nonce if
   ``rfq.maker.poll`` still lists it as pending.

An exchange without ``rfq.maker.quotes`` (METHOD_NOT_FOUND, remembered) goes to step 2 at once;
there a replayed respond is refused (RFQ_STATE_CONFLICT) whether it landed or not, so step 3 and
the replayed quote events (``accepted``, ``filled``, ``expired``) are what tell.
"""

from __future__ import annotations

from typing import Callable

from legwork import LegworkClient, LegworkConnectionError, LegworkRpcError, MakerQuote, RequestTimeout, RfqError
from legwork.quotes import BuiltQuote

METHOD_NOT_FOUND = -32601


class Reconciler:
    def __init__(self, client: LegworkClient, log: Callable[[str], None]) -> None:
        self.client = client
        self.log = log
        self.in_flight: tuple[str, BuiltQuote] | None = None
        self.supported: bool | None = None
        """Whether the exchange serves rfq.maker.quotes (None: not asked yet)."""

    def sending(self, rfq_id: str, built: BuiltQuote) -> None:
        self.in_flight = (rfq_id, built)

    def answered(self) -> None:
        self.in_flight = None

    async def run(self) -> str | None:
        """The fate of the respond in flight at the disconnect; returns the RFQ to quote again, if any."""
        lost, self.in_flight = self.in_flight, None
        if lost is None:
            return None
        rfq_id, built = lost
        try:
            listed = await self.find(built.quote_id)
            if listed is not None:
                self.log(f"reconciled quote {built.quote_id[:8]}… of rfq {rfq_id[:8]}…: it landed, now {listed['state']}")
                return None
            result = await self.client.respond(built.params)
            self.log(f"reconciled quote {result['quote_id'][:8]}… of rfq {rfq_id[:8]}…: sent again with the same params, {result['state']}")
            return None
        except RfqError as error:
            self.log(f"reconciled rfq {rfq_id[:8]}…: the same quote is refused ({error.error}{'/' + error.reason_text if error.reason_text else ''}); quoting it again if it is pending")
        except (LegworkConnectionError, RequestTimeout) as error:
            self.in_flight = lost  # lost again: the next reconnection tries again
            self.log(f"reconcile of rfq {rfq_id[:8]}… interrupted: {error}")
            return None
        return rfq_id

    async def find(self, quote_id: str) -> MakerQuote | None:
        """The quote in ``rfq.maker.quotes`` (the newest 100 of the desk: one respond was in flight), or None."""
        if self.supported is False:
            return None
        try:
            page = await self.client.maker_quotes(state="all", limit=100)
        except LegworkRpcError as error:
            if error.code != METHOD_NOT_FOUND:
                raise
            self.supported = False
            self.log("this exchange has no rfq.maker.quotes: reconciling by sending the same quote again")
            return None
        self.supported = True
        return next((q for q in page["items"] if q["quote_id"] == quote_id), None)
