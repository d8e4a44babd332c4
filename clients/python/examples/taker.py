#!/usr/bin/env python3
"""One RFQ from the taker's side, the flow of ``npm run demo``: sign in, open a call
spread, check the quote before trusting it, accept one side with the signed payload,
wait for the fill, verify the exchange's receipt and the journal, read positions and
balances.

    LEGWORK_URL=http://127.0.0.1:3000 LEGWORK_TAKER_SEED=<64 hex> \\
        PYTHONPATH=clients/python /usr/bin/python3 clients/python/examples/taker.py --low 150 --high 160 --quantity 10

The wallet's account must exist with the taker role and hold USDC, and a maker must be
quoting (``npm run maker`` or ``examples/maker.py``). Exit 0 once filled and verified.

``--compete`` opens a competitive RFQ instead (design.md section 18): every quoter may quote, the
taker lists the live quotes ``--collect`` seconds after the first, takes the best price of its side
(``Taker.accept_best``) and, after the fill, checks the exchange-signed transcript of the competition.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Mapping, Sequence

from legwork import (
    Keypair,
    LegworkClient,
    LegworkHttp,
    ReceiptError,
    ReceiptVerifier,
    RfqError,
    Taker,
    endpoints,
    parse_http_decimal,
    parse_rfq_decimal,
    Subscription,
    TranscriptNotVerified,
    NoBestQuote,
    rebuild_quote_payload,
    wait_for_event,
)
from legwork.wire import RfqEventData, RfqView


def say(line: str) -> None:
    print(f"{datetime.now(timezone.utc).strftime('%H:%M:%S.%f')[:12]} taker  {line}", flush=True)


def clock(unix: int) -> str:
    return datetime.fromtimestamp(unix, timezone.utc).strftime("%H:%M:%S")


class Failure(Exception):
    pass


def pick_expiry(instruments: Sequence[Mapping[str, Any]], low: str, high: str) -> int:
    """The earliest expiry at least 10 minutes out that lists both calls."""
    now = int(time.time())
    by_expiry: dict[int, set[str]] = {}
    for i in instruments:
        if i["kind"] == "call" and not i["paused"] and i["expiry"] > now + 600:
            by_expiry.setdefault(int(i["expiry"]), set()).add(str(parse_rfq_decimal(i["strike"]).normalize()))
    wanted = {str(Decimal(low).normalize()), str(Decimal(high).normalize())}
    for expiry in sorted(by_expiry):
        if wanted <= by_expiry[expiry]:
            return expiry
    raise Failure(f"no expiry lists both the {low} and the {high} call")


async def trade(args: argparse.Namespace) -> None:
    keypair = Keypair.from_hex(args.seed)
    where = endpoints(args.url)  # a URL or local / sandbox; default LEGWORK_URL
    async with await LegworkClient.open(where.ws_url) as client, LegworkHttp(where.http_url) as http:
        session = await client.sign_in(keypair)
        if session.get("account_id") is None or "taker" not in session.get("roles", []):
            raise Failure(f"wallet {keypair.wallet} needs an account with the taker role (roles: {session.get('roles')})")
        say(f"signed in: account {session['account_id']}, roles {', '.join(session['roles'])}")
        taker = Taker(client, keypair)
        await taker.refresh()
        records = [i for i in taker.instruments.values() if i["asset"] == args.asset]
        expiry = pick_expiry(records, args.low, args.high)
        low = next(i for i in records if i["expiry"] == expiry and i["kind"] == "call" and parse_rfq_decimal(i["strike"]) == Decimal(args.low))
        high = next(i for i in records if i["expiry"] == expiry and i["kind"] == "call" and parse_rfq_decimal(i["strike"]) == Decimal(args.high))
        say(f"marks: {low['symbol']} {low.get('mark_price')}, {high['symbol']} {high.get('mark_price')}")

        events = await taker.subscribe()  # before create: no event can be missed
        quantity = Decimal(args.quantity)
        rfq = await taker.create([(low["symbol"], quantity), (high["symbol"], -quantity)], competitive=args.compete)
        kind = "competitive rfq" if args.compete else "rfq"
        say(f"created {kind} {rfq['rfq_id']} [{low['symbol']}:{quantity}, {high['symbol']}:{-quantity}] ({rfq['state']}, open until {clock(rfq['expires_at'])} UTC)")
        quote_id = await (take_best(taker, events, rfq, args) if args.compete else take_quote(taker, events, rfq, args))
        await settle(taker, http, events, rfq, quote_id, args)
        if args.compete:
            await show_transcript(taker, rfq["rfq_id"])
        say("done")


async def take_quote(taker: Taker, events: Subscription[RfqEventData], rfq: RfqView, args: argparse.Namespace) -> str:
    """A seed RFQ: the first quote, checked, then accepted. Returns its quote_id."""
    n = await wait_for_event(events, rfq["rfq_id"], ["quoted", "declined", "expired"], args.wait)
    if n["event"] != "quoted":
        raise Failure(f"the RFQ was {n['event']} ({n['rfq'].get('decline_reason')}) instead of quoted")
    quoted, q = n["rfq"], n["rfq"]["quote"]
    if q is None:
        raise Failure("a quoted RFQ without its quote")
    say(f"quote {q['quote_id']}")
    say(f"  bid {q['bid']} / ask {q['ask']} USDC for the package, firm until {clock(q['expires_at'])} UTC, from maker {q['maker']}")
    if not await taker.verify_quote(quoted):
        raise Failure("the quote does not verify (quote id or maker signature): not accepting it")
    payload = rebuild_quote_payload(quoted, taker.instruments, domain=taker.domain)
    say(f"  verified: quote id = SHA-256 of the {len(payload)} bytes rebuilt here, and the maker's ed25519 signature verifies")

    accepted = await taker.accept(quoted, args.side)
    say(f"accept {args.side} at {'ask ' + q['ask'] if args.side == 'buy' else 'bid ' + q['bid']} (signed 105-byte payload): {accepted['state']}")
    return accepted["quote_id"]


async def take_best(taker: Taker, events: Subscription[RfqEventData], rfq: RfqView, args: argparse.Namespace) -> str:
    """A competitive RFQ: the live quotes a moment after the first, then the best of the side, checked and accepted."""
    first = await wait_for_event(events, rfq["rfq_id"], ["quotes", "declined", "expired"], args.wait)
    if first["event"] != "quotes":
        raise Failure(f"the RFQ was {first['event']} before any quote")
    await asyncio.sleep(args.collect)  # the other makers' quotes
    view = await taker.client.get_rfq(rfq["rfq_id"])
    for q in view["quotes"] or []:
        say(f"quote {q['quote_id'][:16]}… bid {q['bid']} / ask {q['ask']} from maker {q['maker']}")
    accepted = await taker.accept_best(rfq["rfq_id"], args.side)
    taken = next((q for q in view["quotes"] or [] if q["quote_id"] == accepted["quote_id"]), None)
    price = "?" if taken is None else taken["ask"] if args.side == "buy" else taken["bid"]
    say(f"accept best {args.side} at {price}, quote {accepted['quote_id'][:16]}… (checked, signed): {accepted['state']}, best {accepted.get('best')}")
    return accepted["quote_id"]


async def show_transcript(taker: Taker, rfq_id: str) -> None:
    signed = await taker.transcript(rfq_id)  # checked with the exchange key, or TranscriptNotVerified
    t = signed["transcript"]
    ends = ", ".join(f"{q['maker'][:6]}… {q['end']}" for q in t["quotes"])
    say(f"transcript verified (key {signed['key_id']}): {len(t['quotes'])} quote(s) received [{ends}]")


async def settle(taker: Taker, http: LegworkHttp, events: Subscription[RfqEventData], rfq: RfqView, quote_id: str, args: argparse.Namespace) -> None:
    """Waits for the fill, verifies its receipt and the journal, prints positions and balances."""
    keypair, client = taker.keypair, taker.client
    done = await wait_for_event(events, rfq["rfq_id"], ["filled", "failed", "expired"], 30)
    if done["event"] != "filled":
        failure = done["rfq"]["failure"]
        raise Failure(f"the RFQ ended {done['event']}: {failure['error'] + ' (' + failure['message'] + ')' if failure else 'no failure given'}")
    fill = done["rfq"]["fill"]
    if fill is None or "receipt" not in fill:
        raise Failure("a filled RFQ without its fill receipt")
    say(f"filled: fill #{fill['fill_id']}, {args.side} the spread at {fill['price']} USDC, taker fee {fill['fee']} USDC")

    http.token = client.session_token
    verifier = await ReceiptVerifier.load(http)
    decoded = verifier.verify(fill["receipt"], fill={**fill, "rfq_id": rfq["rfq_id"], "quote_id": quote_id, "legs": rfq["legs"]}, taker=keypair.wallet)
    say(f"receipt #{decoded.journal_seq} (version {decoded.version}) verified: signed by the exchange key {fill['receipt']['key_id']}, this fill, this taker")
    walk = await ReceiptVerifier.walk_journal(http)
    if not walk.ok or walk.head is None:
        raise Failure(f"the journal is broken at {walk.journal_seq}: {walk.problem}")
    say(f"journal: {walk.head.journal_seq} receipts, every link checked, head {walk.head.hash[:16]}…")

    for row in (await http.rfq_positions())["rows"]:
        say(f"position {row['instrument']}: {parse_http_decimal(row['quantity'])}")
    for row in (await http.balances())["rows"]:
        say(f"balance: total {parse_http_decimal(row['total'])} USDC, locked {parse_http_decimal(row['locked'])}, available {parse_http_decimal(row['available'])}")


def main(argv: Sequence[str]) -> int:
    env = os.environ.get
    p = argparse.ArgumentParser(prog="taker.py", description="One RFQ from the taker's side.")
    p.add_argument("--url", default=env("LEGWORK_URL"), help="exchange URL or environment (local, sandbox); env LEGWORK_URL, default local")
    p.add_argument("--seed", default=env("LEGWORK_TAKER_SEED") or env("LEGWORK_SEED"), help="taker wallet seed, 64 hex (env LEGWORK_TAKER_SEED)")
    p.add_argument("--asset", default="SOL")
    p.add_argument("--low", default="150", help="strike of the call bought")
    p.add_argument("--high", default="160", help="strike of the call sold")
    p.add_argument("--quantity", default="10")
    p.add_argument("--side", choices=("buy", "sell"), default="buy")
    p.add_argument("--wait", type=float, default=15, help="seconds to wait for a quote")
    p.add_argument("--compete", action="store_true", help="a competitive RFQ: every quoter may quote; accept the best of --side")
    p.add_argument("--collect", type=float, default=2, help="with --compete: seconds to wait for more quotes after the first")
    args = p.parse_args(argv)
    if not args.seed:
        key = Keypair.generate()
        print(f"no seed: a new wallet {key.wallet}; an admin gives it an account with the taker role, then run with LEGWORK_TAKER_SEED={key.seed.hex()}")
        return 2
    try:
        asyncio.run(trade(args))
    except (Failure, RfqError, ReceiptError, NoBestQuote, TranscriptNotVerified) as error:
        say(f"FAILED: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
