"""A blocking facade of the asyncio client, for scripts, notebooks and engines without an event loop.

Each :class:`SyncClient` runs its :class:`~legwork.client.LegworkClient` on an event loop of its own
in a daemon thread; every method blocks until the exchange answers and returns the same typed
result (reconnection, replay, rate-limit retries and logging work as in the asyncio client)::

    with SyncClient() as client:                       # LEGWORK_URL, else the local exchange
        client.sign_in(Keypair.from_hex(seed_hex))
        taker = SyncTaker(client, client.keypair)
        events = taker.subscribe()
        rfq = taker.create([("SOL-5DEC26-150-C", "1")])
        quoted = wait_for_event(events, rfq["rfq_id"], ["quoted"], 10)
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Coroutine, Generic, Iterator, Literal, Mapping, Sequence, TypeVar, overload

from . import desk, wire
from .client import LegworkClient
from .decimals import DecimalInput
from .desk import LegInput, Maker, SentQuote, Taker
from .quotes import BuiltQuote
from .rpc import Method, Params
from .subscription import Subscription
from .wallet import Keypair

T = TypeVar("T")


class _LoopThread:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="legwork-sync", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        if threading.current_thread() is self.thread:
            raise RuntimeError("a SyncClient method was called from its own event loop: use the asyncio client there")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


class SyncSubscription(Generic[T]):
    """A blocking view of a :class:`~legwork.subscription.Subscription`: :meth:`next` with a timeout, or iterate."""

    def __init__(self, runner: _LoopThread, inner: Subscription[T]) -> None:
        self._runner = runner
        self.inner = inner

    def next(self, timeout: float | None = None) -> T:
        """The next notification. :raises TimeoutError: none in time; :raises LegworkConnectionError: the client closed."""
        return self._runner.run(self.inner.next(timeout))

    def __iter__(self) -> Iterator[T]:
        while True:
            try:
                yield self.next()
            except ConnectionError:
                return

    def pending(self) -> int:
        return self.inner.pending()


class SyncClient:
    """The blocking twin of :class:`~legwork.client.LegworkClient` (same arguments, same typed results)."""

    def __init__(self, url: str | None = None, **options: Any) -> None:
        self._runner = _LoopThread()
        try:
            self.aio: LegworkClient = self._runner.run(LegworkClient.open(url, **options))
            """The asyncio client underneath (its methods must run on :attr:`loop`)."""
        except BaseException:
            self._runner.stop()
            raise
        self.keypair: Keypair | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._runner.loop

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Runs a coroutine of the asyncio client (or a desk) on this client's loop and returns its result."""
        return self._runner.run(coro, timeout)

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if not self._runner.loop.is_closed():
            self._runner.run(self.aio.close())
            self._runner.stop()

    @property
    def session(self) -> wire.SignInResult | None:
        return self.aio.session

    def sign_in(self, keypair: Keypair) -> wire.SignInResult:
        self.keypair = keypair
        return self.run(self.aio.sign_in(keypair))

    def call(self, method: Method, params: Params | None = None, *, timeout: float | None = None) -> Any:
        return self.run(self.aio.call(method, params, timeout=timeout))

    def get_market_config(self) -> wire.MarketConfig:
        return self.run(self.aio.get_market_config())

    def get_instruments(self, *, asset: str | None = None) -> list[wire.InstrumentRecord]:
        return self.run(self.aio.get_instruments(asset=asset))

    def get_rfq(self, rfq_id: str) -> wire.RfqView:
        return self.run(self.aio.get_rfq(rfq_id))

    def maker_quotes(self, *, state: Literal["live", "all"] | None = None, after: str | None = None, limit: int | None = None) -> wire.RfqMakerQuotesResult:
        return self.run(self.aio.maker_quotes(state=state, after=after, limit=limit))

    # Competition (design.md 18): the same calls as the asyncio client's

    def create_rfq(
        self, legs: Sequence[Mapping[str, Any]], client_ref: str | None = None, *, competition: wire.RfqCreateParamsCompetition | None = None
    ) -> wire.RfqView:
        return self.run(self.aio.create_rfq(legs, client_ref, competition=competition))

    def transcript(self, rfq_id: str) -> wire.RfqTranscriptResult:
        """Unchecked; :meth:`SyncTaker.transcript` checks it with the exchange key."""
        return self.run(self.aio.transcript(rfq_id))

    def makers(self) -> wire.RfqMakersResult:
        return self.run(self.aio.makers())

    def maker_stats(self) -> wire.MakerStats:
        return self.run(self.aio.maker_stats())

    def cancel_quote(self, quote_id: str) -> wire.RfqMakerCancelQuoteResult:
        return self.run(self.aio.cancel_quote(quote_id))

    def cancel_quotes(self) -> wire.RfqMakerCancelQuotesResult:
        return self.run(self.aio.cancel_quotes())

    def set_profile(self, *, listed: bool | None = None, name: str | None = None, cancel_on_disconnect: bool | None = None) -> wire.RfqMakerSetProfileResult:
        return self.run(self.aio.set_profile(listed=listed, name=name, cancel_on_disconnect=cancel_on_disconnect))

    @overload
    def notifications(self, channel: Literal["rfq"]) -> SyncSubscription[wire.RfqEventData]: ...

    @overload
    def notifications(self, channel: Literal["rfq_maker"]) -> SyncSubscription[wire.RfqMakerNotificationData]: ...

    def notifications(self, channel: Literal["rfq", "rfq_maker"]) -> SyncSubscription[Any]:
        return SyncSubscription(self._runner, self.aio.notifications(channel))


class _SyncDesk:
    def __init__(self, client: SyncClient) -> None:
        self.client = client

    @property
    def instruments(self) -> dict[str, wire.InstrumentRecord]:
        return self._desk.instruments

    @property
    def _desk(self) -> Maker | Taker:
        raise NotImplementedError

    def refresh(self) -> None:
        self.client.run(self._desk.refresh())


class SyncMaker(_SyncDesk):
    """The blocking twin of :class:`~legwork.desk.Maker`."""

    def __init__(self, client: SyncClient, keypair: Keypair, **options: Any) -> None:
        super().__init__(client)
        self.maker = Maker(client.aio, keypair, **options)

    @property
    def _desk(self) -> Maker:
        return self.maker

    def subscribe(self, since: int | None = None) -> SyncSubscription[wire.RfqMakerNotificationData]:
        return SyncSubscription(self.client._runner, self.client.run(self.maker.subscribe(since)))

    def pending(self) -> list[wire.OpenRfq]:
        return self.client.run(self.maker.pending())

    def build(self, rfq: Mapping[str, Any], bid: DecimalInput, ask: DecimalInput, **options: Any) -> BuiltQuote:
        return self.client.run(self.maker.build(rfq, bid, ask, **options))

    def respond(self, rfq: Mapping[str, Any], bid: DecimalInput, ask: DecimalInput, **options: Any) -> SentQuote:
        return self.client.run(self.maker.respond(rfq, bid, ask, **options))

    def respond_params(self, params: Params) -> wire.RfqMakerRespondResult:
        """``rfq.maker.respond`` with params built already (e.g. sent again after a lost reply)."""
        return self.client.run(self.client.aio.respond(params))

    def check(self, rfq: Mapping[str, Any], bid: DecimalInput, ask: DecimalInput) -> wire.RfqMakerCheckResult:
        return self.client.run(self.maker.check(rfq, bid, ask))

    def decline(self, rfq_id: str, reason: wire.DeclineReason) -> wire.RfqMakerDeclineResult:
        return self.client.run(self.maker.decline(rfq_id, reason))

    def get_limits(self) -> wire.MakerLimitsView:
        return self.client.run(self.maker.get_limits())

    def set_limits(self, limits: Mapping[str, Any] | None = None, **fields: Any) -> wire.MakerLimitsView:
        return self.client.run(self.maker.set_limits(limits, **fields))

    def update_limits(self, limits: Mapping[str, Any] | None = None, **fields: Any) -> wire.MakerLimitsView:
        return self.client.run(self.maker.update_limits(limits, **fields))

    def kill_switch(self, on: bool = True) -> wire.MakerLimitsView:
        return self.client.run(self.maker.kill_switch(on))

    def cancel_quote(self, quote_id: str) -> wire.RfqMakerCancelQuoteResult:
        return self.client.run(self.maker.cancel_quote(quote_id))

    def cancel_quotes(self) -> list[str]:
        return self.client.run(self.maker.cancel_quotes())

    def set_profile(self, *, listed: bool | None = None, name: str | None = None, cancel_on_disconnect: bool | None = None) -> wire.RfqMakerSetProfileResult:
        return self.client.run(self.maker.set_profile(listed=listed, name=name, cancel_on_disconnect=cancel_on_disconnect))

    def stats(self) -> wire.MakerStats:
        return self.client.run(self.maker.stats())


class SyncTaker(_SyncDesk):
    """The blocking twin of :class:`~legwork.desk.Taker`."""

    def __init__(self, client: SyncClient, keypair: Keypair, **options: Any) -> None:
        super().__init__(client)
        self.taker = Taker(client.aio, keypair, **options)

    @property
    def _desk(self) -> Taker:
        return self.taker

    def subscribe(self, since: int | None = None) -> SyncSubscription[wire.RfqEventData]:
        return SyncSubscription(self.client._runner, self.client.run(self.taker.subscribe(since)))

    def create(self, legs: Sequence[LegInput], client_ref: str | None = None, *, competitive: bool = False, makers: Sequence[str] | None = None) -> wire.RfqView:
        return self.client.run(self.taker.create(legs, client_ref, competitive=competitive, makers=makers))

    def accept_best(self, rfq_id: str, side: wire.Side, **options: Any) -> wire.RfqAcceptResult:
        return self.client.run(self.taker.accept_best(rfq_id, side, **options))

    def transcript(self, rfq_id: str) -> wire.RfqTranscriptResult:
        """Checked with the exchange key, as :meth:`~legwork.desk.Taker.transcript`."""
        return self.client.run(self.taker.transcript(rfq_id))

    def verify_quote(self, rfq: Mapping[str, Any]) -> bool:
        return self.client.run(self.taker.verify_quote(rfq))

    def accept(self, rfq: wire.RfqView | Mapping[str, Any], side: wire.Side, **options: Any) -> wire.RfqAcceptResult:
        return self.client.run(self.taker.accept(rfq, side, **options))

    def cancel(self, rfq_id: str) -> wire.RfqCancelResult:
        return self.client.run(self.taker.cancel(rfq_id))

    def cancel_all(self) -> list[str]:
        return self.client.run(self.taker.cancel_all())


def wait_for_event(events: SyncSubscription[T], rfq_id: str, wanted: Sequence[str], timeout: float) -> T:
    """The next event of one RFQ whose ``event`` is one of ``wanted``. :raises TimeoutError:"""
    return events._runner.run(desk.wait_for_event(events.inner, rfq_id, wanted, timeout))
