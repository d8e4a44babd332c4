#!/usr/bin/env python3
"""The quick start's bootstrap: a maker and a taker account, listed options and a price feed, as
``npm run demo`` does (the admin stands for the web sign-up and the chain watcher).

    LEGWORK_URL=http://127.0.0.1:3000 LEGWORK_ADMIN_TOKEN=<the exchange's ADMIN_TOKEN> \\
        PYTHONPATH=clients/python /usr/bin/python3 clients/python/examples/bootstrap.py

The two wallet seeds are kept in ``legwork-quickstart.env`` (``LEGWORK_SEEDS_FILE``; mode 0600):
a rerun reuses the same wallets and accounts (deposits are idempotent by reference), and other
terminals load them with ``. ./legwork-quickstart.env``. Then it posts market data every 10 s
(marks go stale 30 s after the last post) until interrupted, and rides out an exchange restart.
``--once`` stops after the first post.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from legwork import HttpError, Keypair, LegworkConnectionError, LegworkHttp, endpoints

DAY = 86_400


def say(line: str) -> None:
    print(f"{datetime.now(timezone.utc).strftime('%H:%M:%S')} bootstrap  {line}", flush=True)


def load_seeds(path: Path) -> tuple[Keypair, Keypair]:
    """The maker and taker keys of a previous run, or new ones written to ``path`` (owner-only)."""
    if path.exists():
        values = dict(line.removeprefix("export ").strip().split("=", 1) for line in path.read_text().splitlines() if "=" in line)
        say(f"reusing the wallets of {path}")
        return Keypair.from_hex(values["LEGWORK_MAKER_SEED"]), Keypair.from_hex(values["LEGWORK_TAKER_SEED"])
    maker, taker = Keypair.generate(), Keypair.generate()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(f"export LEGWORK_MAKER_SEED={maker.seed.hex()}\nexport LEGWORK_TAKER_SEED={taker.seed.hex()}\n")
    say(f"new wallets, seeds kept in {path}")
    return maker, taker


async def ensure_account(admin: LegworkHttp, key: Keypair, role: str, amount: str) -> int:
    """The wallet's account (created when it has none), funded once: the deposit's reference is the wallet's."""
    async with LegworkHttp(admin.base_url) as http:
        session = await http.sign_in(key)
    account_id = session.get("account_id")
    if account_id is None:
        account_id = (await admin.create_account(key.wallet, roles=[role]))["account_id"]
        say(f"{role} account {account_id} created for wallet {key.wallet}")
    else:
        say(f"{role} account {account_id} exists already (wallet {key.wallet})")
    await admin.deposit(int(account_id), amount, f"quickstart-{key.wallet}")
    return int(account_id)


async def feed(admin: LegworkHttp, once: bool) -> None:
    """Market data every 10 s; an exchange that is away (restarting) is waited for, not fatal."""
    while True:
        try:
            await admin.market_data("SOL", "150", iv="0.8")
            if once:
                return
        except LegworkConnectionError as error:
            say(f"the exchange is not answering ({error}); trying again in 2 s")
            await asyncio.sleep(2)
            continue
        await asyncio.sleep(10)


async def main(args: argparse.Namespace) -> int:
    token = os.environ.get("LEGWORK_ADMIN_TOKEN")
    if not token:
        say("LEGWORK_ADMIN_TOKEN is not set: export the exchange's ADMIN_TOKEN as LEGWORK_ADMIN_TOKEN")
        return 2
    where = endpoints(args.url)
    maker, taker = load_seeds(Path(os.environ.get("LEGWORK_SEEDS_FILE", "legwork-quickstart.env")))
    async with LegworkHttp(where.http_url, token) as admin:
        try:
            await ensure_account(admin, maker, "quoter", "10000")
            await ensure_account(admin, taker, "taker", "1000")
            expiration = (int(time.time()) // DAY + 7) * DAY + 8 * 3600
            await admin.create_instruments("SOL", expiration, "150")
        except HttpError as error:
            say(f"FAILED: {error}")
            return 1
        except LegworkConnectionError as error:
            say(f"FAILED: the exchange at {where.http_url} is not answering ({error}): start it first (npm start)")
            return 1
        say(f"ready: in other terminals, . ./{os.environ.get('LEGWORK_SEEDS_FILE', 'legwork-quickstart.env')} (the seeds), then run the maker and the taker")
        await feed(admin, args.once)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="bootstrap.py", description="Accounts, options and a price feed for the quick start.")
    parser.add_argument("--url", default=os.environ.get("LEGWORK_URL"), help="exchange URL or environment (env LEGWORK_URL, default local)")
    parser.add_argument("--once", action="store_true", help="post market data once and exit")
    try:
        sys.exit(asyncio.run(main(parser.parse_args())))
    except KeyboardInterrupt:
        sys.exit(0)
