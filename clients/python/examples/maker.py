#!/usr/bin/env python3
"""The reference market maker in Python (the counterpart of ``npm run maker``).

    LEGWORK_URL=http://127.0.0.1:3000 LEGWORK_MAKER_SEED=<64 hex> \\
        PYTHONPATH=clients/python /usr/bin/python3 clients/python/examples/maker.py --spread-bps 150

Signs in with its wallet (the account must exist with the quoter role and hold USDC),
listens on ``rfq_maker``, catches up with ``rfq.maker.poll`` at start, after a
reconnection and after a notification gap, prices every RFQ around the exchange's own
marks, inside a price band around them, and answers with a signed two-sided quote or
a decline. A respond whose reply is lost to a disconnect is reconciled after the
reconnection (``reconcile.py``). One RFQ at a time, so
quote nonces reach the exchange in increasing order. Its own quote events (accepted,
filled, failed, expired) are replayed after a reconnection, each seen once; every
fill's receipt is verified against the exchange's published key. One log line per event.

With ``--compete`` it lists itself in the makers' directory under ``--name`` at start, and keeps its
quote on each competitive RFQ in line with the market (``compete.py``): withdrawn when the market
data goes stale, replaced when the package mid moves by more than ``--requote-bps``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import time
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Mapping, Sequence, cast

from compete import Competitor
from pricing import Decision, Policy, price_rfq
from reconcile import Reconciler

from legwork import (
    Keypair,
    LegworkClient,
    LegworkConnectionError,
    LegworkHttp,
    Maker,
    ReceiptError,
    ReceiptVerifier,
    RequestTimeout,
    RfqError,
    endpoints,
    payload_diff,
    rfq_decimal,
)
from legwork.wire import MakerQuoteEvent, OpenRfq, RfqFill
# What respond answers when one of the desk's own limits (or its protection) refuses a quote.
LIMIT_ERRORS = ("RFQ_OPEN_LIMIT", "RFQ_PRICE_TOLERANCE", "RFQ_SIZE_INVALID")


def log(line: str) -> None:
    print(f"{datetime.now(timezone.utc).strftime('%H:%M:%S.%f')[:12]} maker  {line}", flush=True)


def short(value: str) -> str:
    return f"{value[:8]}…" if len(value) > 9 else value


def clock(unix: int) -> str:
    return datetime.fromtimestamp(unix, timezone.utc).strftime("%H:%M:%S")


def describe_legs(legs: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{leg['instrument']}:{leg['quantity']}" for leg in legs)


class ReferenceMaker:
    def __init__(self, url: str | None, keypair: Keypair, policy: Policy, limits: dict[str, Any], verbose: bool, compete: argparse.Namespace | None = None) -> None:
        self.where = endpoints(url)
        self.keypair = keypair
        self.policy = policy
        self.limits = limits
        self.verbose = verbose
        self.client = LegworkClient(self.where.ws_url)
        self.maker = Maker(self.client, keypair, quote_lifetime=policy.quote_lifetime)
        self.verifier: ReceiptVerifier | None = None
        self.queue: asyncio.Queue[OpenRfq] = asyncio.Queue()
        self.seen: dict[str, float] = {}
        self.quotes: dict[str, tuple[Decimal, Decimal]] = {}
        self.refreshed_at = 0.0
        self.reconcile = Reconciler(self.client, log)
        self.name = compete.name if compete else None
        self.competitor = Competitor(self.maker, self.decide, self.queue.put_nowait, log, requote_bps=compete.requote_bps) if compete else None

    async def start(self) -> None:
        await self.client.connect()
        session = await self.client.sign_in(self.keypair)
        if session["account_id"] is None:
            raise SystemExit(f"wallet {self.keypair.wallet} has no account: an admin creates it with POST /v1/admin/accounts {{ wallet, roles: [\"quoter\"] }}")
        if "quoter" not in session["roles"]:
            raise SystemExit(f"account {session['account_id']} lacks the quoter role (roles: {', '.join(session['roles']) or 'none'})")
        await self.refresh()
        async with LegworkHttp(self.where.http_url) as http:
            self.verifier = await ReceiptVerifier.load(http)
        if self.name is not None:
            profile = await self.maker.set_profile(listed=True, name=self.name)
            log(f"listed as {profile['name']!r} in the makers' directory")
        if self.limits:
            applied = await self.maker.update_limits(self.limits)  # over the limits the account holds
            log(f"limits set: {applied['limits']}")
        self.client.on("reconnected", self.on_reconnected)
        self.client.on("gap", self.on_gap)
        self.client.on("disconnected", lambda code, reason: log(f"disconnected ({code}), reconnecting"))
        self.events = await self.maker.subscribe()
        log(
            f"signed in as account {session['account_id']} (wallet {session['wallet']}), spread {self.policy.spread_bps} bps, "
            f"band {self.policy.band_bps} bps, quotes live {self.policy.quote_lifetime} s"
        )
        await self.catch_up()

    def on_reconnected(self, attempt: int, session: Any) -> None:
        log(f"reconnected: quote events replayed after account_seq {self.client.last_delivered('rfq_maker')}; reconciling, then rfq.maker.poll")
        asyncio.ensure_future(self.after_reconnect())

    async def after_reconnect(self) -> None:
        lost = await self.reconcile.run()
        if lost is not None:
            self.seen.pop(lost, None)  # not quoted after all: quote it again if it is still pending
        await self.catch_up()

    def on_gap(self, info: Mapping[str, Any]) -> None:
        log(f"missed {info['missed']} notification(s): catching up with rfq.maker.poll")
        asyncio.ensure_future(self.catch_up())

    async def catch_up(self) -> None:
        try:
            for rfq in await self.maker.pending():
                self.enqueue(rfq)
        except Exception as error:  # noqa: BLE001 - logged; the next event or reconnection catches up again
            log(f"catch-up failed: {error}")

    def enqueue(self, rfq: OpenRfq) -> None:
        if rfq["rfq_id"] in self.seen:
            return
        self.seen[rfq["rfq_id"]] = time.time()
        self.queue.put_nowait(rfq)

    async def refresh(self) -> None:
        await self.maker.refresh()
        self.refreshed_at = time.monotonic()

    async def listen(self) -> None:
        async for n in self.events:
            # Narrowed by event: only created, closed and the quote events carry an rfq; protection carries none.
            if n["event"] == "protection":
                trip = n["protection"]
                until = trip["until"]
                log(f"protection tripped at {clock(trip['tripped_at'])}: {trip['reason']}; frozen {'until ' + clock(until) if until else 'until reset_protection'}")
            elif n["event"] == "created":
                self.enqueue(n["rfq"])
            elif n["event"] == "closed":
                self.seen[n["rfq"]["rfq_id"]] = time.time()
                if self.verbose:
                    log(f"closed   rfq {short(n['rfq']['rfq_id'])} → {n['rfq']['state']} (not ours)")
            elif n["event"] == "traded_away" or "state" not in n["rfq"]:
                # A competitive quote that lost or ended at its own time: { rfq_id, quote_id } only.
                log(f"{n['event']:<8} quote {short(n['rfq']['quote_id'])} of rfq {short(n['rfq']['rfq_id'])} (competitive)")
                self.quote_ended(n["rfq"]["rfq_id"], n["rfq"]["quote_id"])
            else:
                self.on_quote_event(n["event"], cast(MakerQuoteEvent, n["rfq"]))
                self.quote_ended(n["rfq"]["rfq_id"], n["rfq"]["quote_id"])

    def quote_ended(self, rfq_id: str, quote_id: str) -> None:
        if self.competitor is not None:
            self.competitor.ended(rfq_id, quote_id)

    def on_quote_event(self, event: str, e: MakerQuoteEvent) -> None:
        side = e["side"]
        taker = f"taker {'buys' if side == 'buy' else 'sells'}" if side else ""
        ours = self.quotes.get(e["rfq_id"])
        fill = e["fill"]
        if event == "accepted":
            price = "?" if ours is None or side is None else (f"our ask {rfq_decimal(ours[1])}" if side == "buy" else f"our bid {rfq_decimal(ours[0])}")
            log(f"accepted rfq {short(e['rfq_id'])} quote {short(e['quote_id'])}: {taker} at {price}")
        elif event == "filled" and fill is not None:
            log(f"filled   rfq {short(e['rfq_id'])}: {taker} at {fill['price']} (fill {fill['fill_id']}, taker fee {fill['fee']}); {self.receipt_text(e, fill)}")
        elif event == "failed":
            log(f"failed   rfq {short(e['rfq_id'])} quote {short(e['quote_id'])}{' (fill reverted)' if fill and fill['reverted'] else ''}")
        else:
            log(f"expired  rfq {short(e['rfq_id'])}: our quote {short(e['quote_id'])} was not accepted in time")

    def receipt_text(self, e: MakerQuoteEvent, fill: RfqFill) -> str:
        receipt = fill.get("receipt")
        if receipt is None or self.verifier is None:
            return "no receipt"
        try:
            decoded = self.verifier.verify(receipt, fill={**fill, "rfq_id": e["rfq_id"], "quote_id": e["quote_id"], "role": "maker"})
            return f"receipt #{receipt['journal_seq']} (v{decoded.version}) verified"
        except ReceiptError as error:
            return f"receipt NOT VERIFIED: {error}"

    async def work(self) -> None:
        while True:
            rfq = await self.queue.get()
            try:
                await self.answer(rfq)
            except RfqError as error:
                self.refused(rfq, error)
            except (LegworkConnectionError, RequestTimeout) as error:
                log(f"lost     rfq {short(rfq['rfq_id'])}: {error}; its fate is learnt after the reconnection")
            except Exception as error:  # noqa: BLE001 - one RFQ's trouble never stops the maker
                log(f"error on rfq {short(rfq['rfq_id'])}: {type(error).__name__}: {error}")
            finally:
                if self.competitor is not None:
                    self.competitor.not_quoted(rfq["rfq_id"])

    def refused(self, rfq: OpenRfq, error: RfqError) -> None:
        why = f"{error.error}{'/' + error.reason_text if error.reason_text else ''}"
        if error.error in LIMIT_ERRORS:
            log(f"limit    rfq {short(rfq['rfq_id'])}: not quoted, {why} ({error.message})")
        elif error.retryable and error.error != "RFQ_RATE_LIMITED":
            log(f"error on rfq {short(rfq['rfq_id'])}: {why} ({error.message}, operation {error.operation_id})")
        else:
            log(f"skipped  rfq {short(rfq['rfq_id'])}: refused with {why} ({error.message})")

    async def answer(self, rfq: OpenRfq) -> None:
        if rfq["expires_at"] <= int(time.time()):
            return
        decision = await self.decide(rfq)
        if decision.action == "decline":
            await self.maker.decline(rfq["rfq_id"], decision.reason)
            log(f"decline  rfq {short(rfq['rfq_id'])} [{describe_legs(rfq['legs'])}]: {decision.reason} ({decision.detail})")
            return
        built = await self.maker.build(rfq, decision.bid, decision.ask, expires_at=decision.expires_at)
        self.reconcile.sending(rfq["rfq_id"], built)
        try:
            result = await self.client.respond(built.params)
        except RfqError as error:
            self.reconcile.answered()
            if error.error == "RFQ_INVALID_SIGNATURE":
                await self.explain_signature(built.params, built.payload)
            raise
        self.reconcile.answered()
        self.quotes[rfq["rfq_id"]] = (decision.bid, decision.ask)
        if self.competitor is not None and rfq.get("competitive"):
            self.competitor.quoted(rfq, result["quote_id"], decision)
        log(
            f"quote    rfq {short(rfq['rfq_id'])} [{describe_legs(rfq['legs'])}] mid {decision.mid.normalize():f}: "
            f"bid {built.params['bid']} / ask {built.params['ask']} until {clock(decision.expires_at)} (quote {result['quote_id']}, nonce {built.params['quote_nonce']})"
        )

    async def decide(self, rfq: OpenRfq) -> Decision:
        refreshed = False
        if any(leg["instrument"] not in self.maker.instruments for leg in rfq["legs"]) or time.monotonic() - self.refreshed_at > 1:
            await self.refresh()
            refreshed = True
        decision = price_rfq(rfq, self.maker.instruments, self.maker.market_config, int(time.time()), self.policy)
        if decision.action == "decline" and decision.reason in ("stale_data", "unlisted_instrument") and not refreshed:
            await self.refresh()  # the cached view may be a moment too old: look again before declining
            decision = price_rfq(rfq, self.maker.instruments, self.maker.market_config, int(time.time()), self.policy)
        return decision

    async def explain_signature(self, params: Mapping[str, Any], payload: bytes) -> None:
        """After RFQ_INVALID_SIGNATURE: ask the exchange for the bytes it built (rfq.maker.check) and name the fields that differ."""
        try:
            await self.client.check(params)
            log("check: the exchange now takes these params (nothing differs)")
        except RfqError as error:
            if error.payload is None:
                log(f"check: {error.error} ({error.message})")
                return
            diff = payload_diff(payload, error.payload)
            log(f"check: the exchange's payload differs from ours in {', '.join(diff) if diff else 'nothing (the key or signature is wrong)'}")


def asset_value(text: str) -> tuple[str, Decimal]:
    asset, _, value = text.partition(":")
    if not asset or not value:
        raise argparse.ArgumentTypeError(f"expected ASSET:DECIMAL (e.g. SOL:100), got {text!r}")
    return asset, Decimal(value)


def limits_of(args: argparse.Namespace) -> dict[str, Any]:
    """The limits the flags name (the protection fields under ``protection``)."""
    limits: dict[str, Any] = {}
    for field in ("max_open_quotes", "max_open_notional", "max_quote_notional", "price_band_bps"):
        if getattr(args, field) is not None:
            limits[field] = getattr(args, field)
    for field in ("max_open_delta", "max_open_vega"):
        if getattr(args, field):
            limits[field] = dict(getattr(args, field))
    protection: dict[str, Any] = {}
    for flag, field in (("protect_window", "window_seconds"), ("protect_max_fills", "max_fills"), ("protect_max_notional", "max_fill_notional"), ("protect_frozen", "frozen_seconds")):
        if getattr(args, flag) is not None:
            protection[field] = getattr(args, flag)
    if args.protect_max_delta:
        protection["max_fill_delta"] = dict(args.protect_max_delta)
    if protection:
        limits["protection"] = protection
    return limits


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="maker.py", description="The reference market maker, in Python.")
    env = os.environ.get
    p.add_argument("--url", default=env("LEGWORK_URL"), help="exchange URL or environment (local, sandbox); env LEGWORK_URL, default local")
    p.add_argument("--seed", default=env("LEGWORK_MAKER_SEED") or env("LEGWORK_SEED"), help="maker wallet seed, 64 hex (env LEGWORK_MAKER_SEED)")
    p.add_argument("--spread-bps", type=int, default=int(env("LEGWORK_SPREAD_BPS", "200")), help="quote width in bps of |mid| (default 200)")
    p.add_argument("--min-spread", type=Decimal, default=Decimal(env("LEGWORK_MIN_SPREAD", "0.01")), help="smallest half width in USDC")
    p.add_argument("--max-legs", type=int, default=int(env("LEGWORK_MAX_LEGS", "13")), help="decline more legs (size_limit)")
    p.add_argument("--max-size", type=Decimal, default=Decimal(env("LEGWORK_MAX_SIZE", "1000")), help="decline a leg with |quantity| above it")
    p.add_argument("--band-bps", type=int, default=int(env("LEGWORK_BAND_BPS", "500")), help="never sell below / buy above the mark by more (bps of |mid|)")
    p.add_argument("--lifetime", type=int, default=int(env("LEGWORK_QUOTE_LIFETIME", "30")), help="quote lifetime in seconds")
    limits = p.add_argument_group("limits, set at start over those the account holds (rfq.maker.set_limits)")
    limits.add_argument("--max-open-quotes", type=int, help="live quotes at most (0: the kill switch, no new quote)")
    limits.add_argument("--max-open-notional", type=Decimal, help="sum of the live quotes' notionals at most (USDC)")
    limits.add_argument("--max-quote-notional", type=Decimal, help="one quote's notional at most (USDC)")
    limits.add_argument("--max-open-delta", type=asset_value, action="append", metavar="ASSET:D", help="|delta| summed over live quotes, per asset (repeatable)")
    limits.add_argument("--max-open-vega", type=asset_value, action="append", metavar="ASSET:V", help="|vega| summed over live quotes, per asset (repeatable)")
    limits.add_argument("--price-band-bps", type=int, help="refuse a quote further than this from the mark (bps of its notional)")
    limits.add_argument("--protect-window", type=int, metavar="SECONDS", help="protection: count the fills of the last SECONDS")
    limits.add_argument("--protect-max-fills", type=int, help="protection: freeze after more fills than this in the window")
    limits.add_argument("--protect-max-notional", type=Decimal, help="protection: ... or more notional")
    limits.add_argument("--protect-max-delta", type=asset_value, action="append", metavar="ASSET:D", help="protection: ... or more |delta| per asset")
    limits.add_argument("--protect-frozen", type=int, metavar="SECONDS", help="protection: frozen this long (0: until reset_protection)")
    p.add_argument("--verbose", action="store_true", help="also log RFQs closed by other makers")
    compete = p.add_argument_group("competitive RFQs")
    compete.add_argument("--compete", action="store_true", help="list in the directory; replace or withdraw live competitive quotes as the market moves")
    compete.add_argument("--name", default=env("LEGWORK_MAKER_NAME"), help="the name takers see in the directory (default: py-maker and the wallet's start)")
    compete.add_argument("--requote-bps", type=int, default=int(env("LEGWORK_REQUOTE_BPS", "20")), help="replace a live quote when the mid moves more (bps of |mid|)")
    return p.parse_args(argv)


async def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    # The client's own lines (connects, disconnects, reconnections, failed resumes) beside the maker's.
    logging.basicConfig(format="%(asctime)s.%(msecs)03d legwork %(message)s", datefmt="%H:%M:%S", level=logging.INFO)
    if args.seed:
        keypair = Keypair.from_hex(args.seed)
    else:
        keypair = Keypair.generate()
        log(f"no seed given: generated wallet {keypair.wallet}")
        log(f"seed (keep it to reuse this wallet): LEGWORK_MAKER_SEED={keypair.seed.hex()}")
    policy = Policy(args.spread_bps, args.min_spread, args.max_legs, args.max_size, args.lifetime, band_bps=args.band_bps)
    if args.compete and not args.name:
        args.name = f"py-maker {keypair.wallet[:6]}"
    maker = ReferenceMaker(args.url, keypair, policy, limits_of(args), args.verbose, args if args.compete else None)
    log(f"connecting to {maker.where.ws_url}")
    await maker.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    tasks = [asyncio.create_task(maker.listen()), asyncio.create_task(maker.work())]
    if maker.competitor is not None:
        tasks.append(asyncio.create_task(maker.competitor.watch()))
    await stop.wait()
    log("stopping (quotes given stay firm until they expire)")
    await maker.client.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
