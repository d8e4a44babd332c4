"""The Python reference maker trades with the TypeScript taker (the CLI over @legwork/sdk), and
the Python taker with the TypeScript reference maker: the two clients agree on every byte
(the quote one signs, the other rebuilds and verifies; the receipt both check)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any, Iterator

import pytest

from legwork import Keypair, LegworkClient, LegworkHttp, ReceiptVerifier, Taker, payload_diff, rebuild_quote_payload, verify_quote

from .conftest import ROOT, Exchange, Market

PYTHON_DIR = Path(__file__).resolve().parents[1]


class Process:
    """A child process whose output lines are collected as they come."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.process.stdout is not None
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                m = re.search(pattern, line)
                if m:
                    return m
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"no line matching {pattern!r} within {timeout} s:\n" + "\n".join(self.lines))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self._reader.join(5)


@pytest.fixture
def node_env(exchange: Exchange) -> Iterator[dict[str, str]]:
    yield {**os.environ, "LEGWORK_URL": exchange.url, "LEGWORK_SESSION_CACHE": str(exchange.workdir / "sessions.json")}


def cli(env: dict[str, str], *args: str) -> Any:
    done = subprocess.run(["node", "dist-tools/src/cli.js", *args, "--json", "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, f"cli {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


async def test_python_maker_with_typescript_taker(exchange: Exchange, market: Market, node_env: dict[str, str]) -> None:
    maker = exchange.account(["quoter"], "10000")
    taker = exchange.account(["taker"], "1000")
    env = {**node_env, "LEGWORK_MAKER_SEED": maker.seed_hex, "PYTHONPATH": str(PYTHON_DIR)}
    python_maker = Process([sys.executable, "clients/python/examples/maker.py", "--spread-bps", "150"], env)
    try:
        python_maker.wait_for(r"maker  signed in as account", 30)
        low, high = market.symbol("150"), market.symbol("160")
        taker_env = {**node_env, "LEGWORK_SEED": taker.seed_hex}
        rfq = cli(taker_env, "rfq", "create", "--leg", f"{low}:10", "--leg", f"{high}:-10", "--wait", "20")
        assert rfq["state"] == "quoted", rfq
        assert rfq["quote_verified"] is True  # the TypeScript SDK rebuilt the Python maker's 1,050 bytes and verified its signature
        quote = rfq["quote"]
        # Keyed on the quote id: an RFQ id's first 8 hex digits (UUIDv7) are its creation time's high bits, shared by every RFQ of the same minute.
        logged = python_maker.wait_for(rf"quote    rfq {rfq['rfq_id'][:8]}… .* bid (\S+) / ask (\S+) until .*\(quote {quote['quote_id']}, nonce (\d+)\)", 10)
        assert logged.group(1) == quote["bid"] and logged.group(2) == quote["ask"]
        assert logged.group(3) == quote["quote_nonce"]

        final = cli(taker_env, "accept", quote["quote_id"], "--side", "buy", "--timeout", "30")
        assert final["state"] == "filled", final
        python_maker.wait_for(rf"filled   rfq {rfq['rfq_id'][:8]}….*receipt #{final['fill']['receipt']['journal_seq']} \(v[12]\) verified", 15)

        # The Python side agrees on the bytes the TypeScript taker checked and on the receipt it got.
        async with await LegworkClient.open(exchange.ws_url) as client, LegworkHttp(exchange.url) as http:
            await client.sign_in(taker.keypair)
            desk = Taker(client, taker.keypair)
            await desk.refresh()
            view = await client.get_rfq(rfq["rfq_id"])
            assert verify_quote(view, desk.instruments, domain=desk.domain)
            assert rebuild_quote_payload(view, desk.instruments, domain=desk.domain) == rebuild_quote_payload(rfq, desk.instruments, domain=desk.domain)
            verifier = await ReceiptVerifier.load(http)
            verifier.verify(final["fill"]["receipt"], fill={**final["fill"], "rfq_id": rfq["rfq_id"], "quote_id": quote["quote_id"], "legs": rfq["legs"]}, taker=taker.keypair.wallet)
        journal = subprocess.run(["node", "dist-tools/src/cli.js", "verify-journal"], cwd=ROOT, env=node_env, capture_output=True, text=True, timeout=60)
        assert journal.returncode == 0, journal.stdout + journal.stderr
    finally:
        python_maker.stop()


async def test_python_taker_with_typescript_maker(exchange: Exchange, market: Market, node_env: dict[str, str]) -> None:
    maker = exchange.account(["quoter"], "10000")
    taker = exchange.account(["taker"], "1000")
    ts_maker = Process(["node", "dist-tools/src/maker.js", "--spread-bps", "150"], {**node_env, "LEGWORK_MAKER_SEED": maker.seed_hex})
    try:
        ts_maker.wait_for(r"signed in as account", 30)
        env = {**node_env, "LEGWORK_TAKER_SEED": taker.seed_hex, "PYTHONPATH": str(PYTHON_DIR)}
        done = subprocess.run([sys.executable, "clients/python/examples/taker.py", "--quantity", "10"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90)
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        quote_id = re.search(r"taker  quote ([0-9a-f]{64})", out)
        assert quote_id, out
        assert "the maker's ed25519 signature verifies" in out and re.search(r"receipt #\d+ \(version [12]\) verified", out), out
        ts_maker.wait_for(rf"quote    rfq .*\(quote {quote_id.group(1)[:8]}…", 10)
        ts_maker.wait_for(r"filled   rfq .*receipt #\d+ verified", 15)
        rfq_id = re.search(r"created rfq ([0-9a-f]{32})", out)
        assert rfq_id
        # Byte for byte: what the TypeScript maker signed is what Python rebuilds, and the exchange's own check agrees.
        async with await LegworkClient.open(exchange.ws_url) as client:
            await client.sign_in(taker.keypair)
            desk = Taker(client, taker.keypair)
            view: Any = await client.get_rfq(rfq_id.group(1))
            assert view["quote"]["quote_id"] == quote_id.group(1) and view["state"] == "filled"
            assert await desk.verify_quote(view)
            mine = rebuild_quote_payload(view, desk.instruments, domain=desk.domain)
            assert payload_diff(mine, mine) == [] and len(mine) == 1050
            assert Keypair.from_hex(maker.seed_hex).wallet == view["quote"]["maker"]
    finally:
        ts_maker.stop()
