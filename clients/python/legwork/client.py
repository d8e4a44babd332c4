"""The trading WebSocket client: sign-in and session, the typed methods of the exchange, and what a
reconnection restores.

On a fresh connection the client resumes the session with ``public/session_resume`` (or signs in
again with the remembered key) and re-subscribes each channel with ``since`` = the last
``account_seq`` handed to the application, dropping what was delivered already: the application
sees every event of its account exactly once, in order, across disconnects and server restarts
(the README's "The client").
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from typing import Any, Literal, Mapping, Sequence, overload

from .connection import RpcConnection
from .env import endpoints
from .errors import LegworkRpcError
from .rpc import JsonObject, Params
from .signin import DEFAULT_SERVICE_NAME, message_to_sign
from .subscription import Channel, Subscription
from .wallet import Keypair
from .wire import (
    SUBSCRIBE_METHODS,
    DeclineReason,
    InstrumentRecord,
    MakerLimits,
    MakerLimitsView,
    MakerStats,
    MarketConfig,
    RfqAcceptParams,
    RfqAcceptResult,
    RfqCancelAllResult,
    RfqCancelResult,
    RfqCreateParamsCompetition,
    RfqEventData,
    RfqLeg,
    RfqListResult,
    RfqMakerCheckParams,
    RfqMakerCancelQuoteResult,
    RfqMakerCancelQuotesResult,
    RfqMakerCheckResult,
    RfqMakerDeclineResult,
    RfqMakerNotificationData,
    RfqMakerPollResult,
    RfqMakerQuotesResult,
    RfqMakerRespondParams,
    RfqMakerRespondResult,
    RfqMakerSetProfileResult,
    RfqMakersResult,
    RfqMakerSubscribeResult,
    RfqState,
    RfqSubscribeResult,
    RfqTranscriptResult,
    RfqView,
    SessionNotificationData,
    SignInResult,
)

_log = logging.getLogger("legwork")


class LegworkClient(RpcConnection):
    """An asyncio client of the trading WebSocket; results and events are the TypedDicts of :mod:`legwork.wire`.

    Every ``rfq.*`` failure raises :class:`~legwork.errors.RfqError` (code 1200, with ``reason``), other
    error replies :class:`~legwork.errors.LegworkRpcError`; no reply in time:
    :class:`~legwork.errors.RequestTimeout`; connection lost with the request in
    flight: :class:`~legwork.errors.LegworkConnectionError`. ``url``: a URL (``http://host:3000``
    or ``ws://host:3000/client``), an environment name (``local``, ``sandbox``), or None for
    ``LEGWORK_URL`` (see :func:`~legwork.env.endpoints`).

    ::

        async with await LegworkClient.open() as client:      # LEGWORK_URL, else the local exchange
            await client.sign_in(Keypair.from_hex(seed_hex))
            events = client.notifications("rfq")
            await client.subscribe_rfq()
            async for n in events:
                print(n["account_seq"], n["event"], n["rfq"]["state"])
    """

    def __init__(self, url: str | None = None, *, service_name: str = DEFAULT_SERVICE_NAME, **options: Any) -> None:
        super().__init__(endpoints(url).ws_url, **options)
        self.service_name = service_name
        self._token: str | None = None
        self._keypair: Keypair | None = None
        self._session: SignInResult | None = None

    @classmethod
    async def open(cls, url: str | None = None, **options: Any) -> LegworkClient:
        """Creates a client and connects it (the first connection is not retried)."""
        client = cls(url, **options)
        await client.connect()
        return client

    async def __aenter__(self) -> LegworkClient:
        if not self._started:
            await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def session_token(self) -> str | None:
        """The session token of the last sign-in or resume (a bearer for :class:`~legwork.http.LegworkHttp` too)."""
        return self._token

    @property
    def session(self) -> SignInResult | None:
        """The result of the last sign-in or resume: ``{ wallet, account_id, roles, session_token }``."""
        return self._session

    @property
    def subscriptions(self) -> list[str]:
        """The channels subscribed (re-subscribed after a reconnection)."""
        return list(self._channels)

    def last_delivered(self, channel: Channel) -> int | None:
        """The last ``account_seq`` handed to the application on ``channel`` (keep it to resume a later process with ``since``)."""
        return self._last_account_seq.get(channel)

    @overload
    def notifications(self, channel: Literal["rfq"]) -> Subscription[RfqEventData]: ...

    @overload
    def notifications(self, channel: Literal["rfq_maker"]) -> Subscription[RfqMakerNotificationData]: ...

    @overload
    def notifications(self, channel: Literal["session"]) -> Subscription[SessionNotificationData]: ...

    def notifications(self, channel: Channel) -> Subscription[Any]:
        """A stream of the notifications of ``channel`` from now on. Make it before subscribing, so nothing is missed."""
        return self._sink(channel)

    # Sign-in and session

    async def sign_in(self, keypair: Keypair) -> SignInResult:
        """``public/get_nonce``, sign the message, ``public/auth``.

        Remembers the session token (to resume after a reconnection) and the key (to
        sign in again when the token can no longer be resumed).
        """
        return await self._sign_in(keypair, internal=False)

    async def _sign_in(self, keypair: Keypair, *, internal: bool) -> SignInResult:
        nonce = await self._call(internal, "public/get_nonce", {"wallet": keypair.wallet})
        message = message_to_sign(nonce, keypair.wallet, self.service_name)
        params = {"wallet": keypair.wallet, "signature": keypair.sign_base58(message), "message": message}
        result: SignInResult = await self._call(internal, "public/auth", params)
        self._keypair = keypair
        self._remember(result)
        return result

    async def resume_session(self, session_token: str) -> SignInResult:
        """``public/session_resume``: signs this connection in with a token kept from before."""
        result: SignInResult = await self.call("public/session_resume", {"session_token": session_token})
        self._remember(result)
        return result

    def _remember(self, result: SignInResult) -> None:
        self._session = result
        self._token = result.get("session_token")

    # Market

    async def get_market_config(self) -> MarketConfig:
        """``public/get_market_config``: service name, ``quote_domain``, decimals, RFQ limits, index prices."""
        result: MarketConfig = await self.call("public/get_market_config", {})
        return result

    async def get_instruments(self, *, asset: str | None = None, expiry: int | None = None, include_settled: bool | None = None) -> list[InstrumentRecord]:
        """``public/get_instruments``: instrument records with ``mark_price`` and ``iv``."""
        result = await self.call("public/get_instruments", _clean(asset=asset, expiry=expiry, include_settled=include_settled))
        return list(result["instruments"])

    # RFQ: taker

    async def create_rfq(
        self, legs: Sequence[RfqLeg | Mapping[str, Any]], client_ref: str | None = None, *, competition: RfqCreateParamsCompetition | None = None
    ) -> RfqView:
        """``rfq.create`` (taker role); idempotent by ``client_ref``, generated when omitted.

        ``competition``: None for a seed RFQ (one quote, first wins); ``{}`` for a competitive RFQ that
        every quoter sees, ``{"makers": [wallet, ...]}`` for one that only that panel sees
        (:func:`~legwork.competition.competition_params` builds either).
        """
        params: JsonObject = {"client_ref": client_ref or str(uuid.uuid4()), "legs": [dict(leg) for leg in legs]}
        if competition is not None:
            params["competition"] = dict(competition)
        result: RfqView = await self.call("rfq.create", params)
        return result

    async def get_rfq(self, rfq_id: str) -> RfqView:
        result: RfqView = await self.call("rfq.get", {"rfq_id": rfq_id})
        return result

    async def list_rfqs(self, *, states: Sequence[RfqState] | None = None, cursor: str | None = None, limit: int | None = None) -> RfqListResult:
        """``rfq.list``: ``{ items, next_cursor? }``, newest first."""
        result: RfqListResult = await self.call("rfq.list", _clean(states=list(states) if states else None, cursor=cursor, limit=limit))
        return result

    async def accept(self, params: RfqAcceptParams | Params) -> RfqAcceptResult:
        """``rfq.accept`` with params built by :func:`~legwork.quotes.sign_accept`; retrying the same params is safe."""
        result: RfqAcceptResult = await self.call("rfq.accept", params)
        return result

    async def cancel_rfq(self, rfq_id: str) -> RfqCancelResult:
        """``rfq.cancel``: a pending or quoted RFQ of the caller ends ``expired`` (idempotent)."""
        result: RfqCancelResult = await self.call("rfq.cancel", {"rfq_id": rfq_id})
        return result

    async def cancel_all(self) -> RfqCancelAllResult:
        """``rfq.cancel_all``: ``{ cancelled: [rfq_id] }``, oldest first."""
        result: RfqCancelAllResult = await self.call("rfq.cancel_all", {})
        return result

    async def transcript(self, rfq_id: str) -> RfqTranscriptResult:
        """``rfq.transcript``: the exchange-signed record of a competitive RFQ once its competition ended, unchecked
        (:meth:`~legwork.desk.Taker.transcript` checks it with the exchange key)."""
        result: RfqTranscriptResult = await self.call("rfq.transcript", {"rfq_id": rfq_id})
        return result

    async def makers(self) -> RfqMakersResult:
        """``rfq.makers`` (taker): the listed makers, each ``{ wallet, name, stats }`` over the last 7 days."""
        result: RfqMakersResult = await self.call("rfq.makers", {})
        return result

    async def subscribe_rfq(self, since: int | None = None) -> RfqSubscribeResult:
        """``rfq.subscribe``: taker events on channel ``rfq``, kept across reconnections (exactly once, in order).

        ``since`` (an ``account_seq`` kept by the application) replays the stored events after it first.
        """
        result: RfqSubscribeResult = await self._subscribe("rfq", since)
        return result

    # RFQ: quoter

    async def poll(self, *, cursor: str | None = None, limit: int | None = None) -> RfqMakerPollResult:
        """``rfq.maker.poll``: ``{ items, next_cursor? }``, pending RFQs oldest first."""
        result: RfqMakerPollResult = await self.call("rfq.maker.poll", _clean(cursor=cursor, limit=limit))
        return result

    async def respond(self, params: RfqMakerRespondParams | Params) -> RfqMakerRespondResult:
        """``rfq.maker.respond`` with params built by :func:`~legwork.quotes.build_quote`; sending the same params
        again returns the original result on an exchange with idempotent responds."""
        result: RfqMakerRespondResult = await self.call("rfq.maker.respond", params)
        return result

    async def check(self, params: RfqMakerCheckParams | Params) -> RfqMakerCheckResult:
        """``rfq.maker.check``: every check of respond, nothing stored: ``{ ok, quote_id, payload }``."""
        result: RfqMakerCheckResult = await self.call("rfq.maker.check", params)
        return result

    async def decline(self, rfq_id: str, reason: DeclineReason) -> RfqMakerDeclineResult:
        result: RfqMakerDeclineResult = await self.call("rfq.maker.decline", {"rfq_id": rfq_id, "reason": reason})
        return result

    async def maker_quotes(self, *, state: Literal["live", "all"] | None = None, after: str | None = None, limit: int | None = None) -> RfqMakerQuotesResult:
        """``rfq.maker.quotes``: the caller's own quotes, newest first, each with its ``state`` (for a
        reconciliation after a lost reply). An exchange without it raises ``LegworkRpcError`` METHOD_NOT_FOUND."""
        result: RfqMakerQuotesResult = await self.call("rfq.maker.quotes", _clean(state=state, after=after, limit=limit))
        return result

    async def cancel_quote(self, quote_id: str) -> RfqMakerCancelQuoteResult:
        """``rfq.maker.cancel_quote``: withdraws one live quote of a competitive RFQ (again: the same result).
        A seed RFQ's quote is firm: RFQ_STATE_CONFLICT."""
        result: RfqMakerCancelQuoteResult = await self.call("rfq.maker.cancel_quote", {"quote_id": quote_id})
        return result

    async def cancel_quotes(self) -> RfqMakerCancelQuotesResult:
        """``rfq.maker.cancel_quotes``: withdraws every live competitive quote of the caller, ``{ cancelled }`` oldest first."""
        result: RfqMakerCancelQuotesResult = await self.call("rfq.maker.cancel_quotes", {})
        return result

    async def set_profile(self, *, listed: bool | None = None, name: str | None = None, cancel_on_disconnect: bool | None = None) -> RfqMakerSetProfileResult:
        """``rfq.maker.set_profile``: a field left None keeps its value; the result is the whole profile."""
        result: RfqMakerSetProfileResult = await self.call("rfq.maker.set_profile", _clean(listed=listed, name=name, cancel_on_disconnect=cancel_on_disconnect))
        return result

    async def maker_stats(self) -> MakerStats:
        """``rfq.maker.stats``: the caller's own competition figures over the last 7 days, listed or not."""
        result: MakerStats = await self.call("rfq.maker.stats", {})
        return result

    async def subscribe_maker(self, since: int | None = None) -> RfqMakerSubscribeResult:
        """``rfq.maker.subscribe`` (quoter role): channel ``rfq_maker``, kept across reconnections like :meth:`subscribe_rfq`."""
        result: RfqMakerSubscribeResult = await self._subscribe("rfq_maker", since)
        return result

    async def set_limits(self, limits: MakerLimits | Params) -> MakerLimitsView:
        """``rfq.maker.set_limits { limits }``: REPLACES every limit (a field left out is no limit). Wire form
        (see :func:`~legwork.desk.limits_to_wire`); :meth:`~legwork.desk.Maker.update_limits` merges."""
        result: MakerLimitsView = await self.call("rfq.maker.set_limits", {"limits": dict(limits)})
        return result

    async def get_limits(self) -> MakerLimitsView:
        """``rfq.maker.get_limits``: ``{ limits, admin_limits, usage, protection }``."""
        result: MakerLimitsView = await self.call("rfq.maker.get_limits", {})
        return result

    async def reset_protection(self) -> MakerLimitsView:
        result: MakerLimitsView = await self.call("rfq.maker.reset_protection", {})
        return result

    async def _subscribe(self, channel: Literal["rfq", "rfq_maker"], since: int | None) -> Any:
        if since is not None:
            self._last_account_seq[channel] = since
        result: JsonObject = await self.call(SUBSCRIBE_METHODS[channel], {} if since is None else {"since": since})
        if channel not in self._channels:
            self._channels.append(channel)
        latest = result.get("account_seq")
        if since is None and isinstance(latest, int):
            self._last_account_seq[channel] = max(self._last_account_seq.get(channel, 0), latest)
        return result

    # What a reconnection restores

    async def _restore(self) -> SignInResult | None:
        """On a fresh connection: resume (or sign in again), then re-subscribe each channel from the last event delivered."""
        session = await self._restore_session() if self._token is not None else None
        for channel in list(self._channels):
            await self._resubscribe(channel)
        return session

    async def _restore_session(self) -> SignInResult | None:
        try:
            resumed: SignInResult = await self._internal("public/session_resume", {"session_token": self._token})
            self._remember(resumed)
            return resumed
        except LegworkRpcError as error:
            _log.warning("could not resume the session (%s)%s", error, ": signing in again" if self._keypair else "")
            failure = error
        if self._keypair is not None:
            try:
                return await self._sign_in(self._keypair, internal=True)
            except LegworkRpcError as again:
                failure = again
                _log.error("could not sign in again after a reconnection: %s", again)
        self._emit("resume_error", failure)
        self._token = None
        self._session = None
        return None

    async def _resubscribe(self, channel: str) -> None:
        since = self._last_account_seq.get(channel)
        try:
            await self._internal(SUBSCRIBE_METHODS[channel], {} if since is None else {"since": since})
            return
        except LegworkRpcError as error:
            _log.warning("could not resubscribe %s since account_seq %s: %s", channel, since, error)
            self._emit("resume_error", error)
        live: JsonObject | None = None
        if since is not None:
            # Older than the stored events (7 days): live from now; the application re-reads its state.
            with contextlib.suppress(LegworkRpcError):
                live = await self._internal(SUBSCRIBE_METHODS[channel], {})
        if live is not None and isinstance(live.get("account_seq"), int):
            _log.warning("%s resubscribed live from account_seq %d: events between were not replayed", channel, live["account_seq"])
            self._last_account_seq[channel] = live["account_seq"]
        elif live is None:
            _log.error("%s is no longer subscribed", channel)
            self._channels.remove(channel)


def _clean(**params: Any) -> JsonObject:
    return {k: v for k, v in params.items() if v is not None}
