"""A live exchange for the tests: built once when dist is missing or stale, started as
``node dist/src/main.js`` on a free port, seeded through the admin HTTP API the way
tools/src/demo.ts does (accounts, deposits, a SOL expiry about 7 days out, market
data re-posted while the tests run).

Embedded (PGlite in a temporary DATA_DIR) by default; with DATABASE_URL set, a fresh
database is created on that server for the run (and dropped after), with REDIS_URL
and a run-own REDIS_PREFIX when set; JWT_SECRET and EXCHANGE_SIGNING_KEY come from
the environment or are made up for the run.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from legwork import Keypair

ROOT = Path(__file__).resolve().parents[3]
ADMIN_TOKEN = "py-admin-token-0123456789abcdef0123456789abcdef"
ASSET = "SOL"
SPOT = "150"
IV = "0.8"
DAY = 86_400


def _newest(*dirs: str) -> float:
    newest = 0.0
    for d in dirs:
        for path in (ROOT / d).rglob("*.ts"):
            newest = max(newest, path.stat().st_mtime)
    return newest


def _stale(target: str, *sources: str) -> bool:
    path = ROOT / target
    return not path.exists() or path.stat().st_mtime < _newest(*sources)


def build_if_stale() -> None:
    """``npm run build`` when dist is missing or older than its sources; the tools (TypeScript maker and CLI) likewise."""
    if _stale("dist/src/main.js", "src", "packages/protocol/src", "migrations"):
        subprocess.run(["npm", "run", "build", "--silent"], cwd=ROOT, check=True)
    if _stale("dist-tools/src/maker.js", "tools/src", "sdk/src", "packages/protocol/src"):
        subprocess.run(["npm", "run", "tools:build", "--silent"], cwd=ROOT, check=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg(sql: str, base: str) -> None:
    script = (
        "const {Client}=require('pg');(async()=>{const c=new Client({connectionString:process.env.PG_BASE});"
        "await c.connect();await c.query(process.env.PG_SQL);await c.end()})().catch(e=>{console.error(e.message);process.exit(1)})"
    )
    subprocess.run(["node", "-e", script], cwd=ROOT, check=True, env={**os.environ, "PG_BASE": base, "PG_SQL": sql})


def _redis_drop(prefix: str, url: str) -> None:
    """Deletes the run's keys (SCAN + DEL under its own prefix, never anything else)."""
    script = (
        "const Redis=require('ioredis');(async()=>{const r=new Redis(process.env.R_URL);let c='0';"
        "do{const [n,k]=await r.scan(c,'MATCH',process.env.R_PREFIX+'*','COUNT',1000);c=n;if(k.length)await r.del(...k)}while(c!=='0');"
        "r.disconnect()})().catch(e=>{console.error(e.message);process.exit(1)})"
    )
    subprocess.run(["node", "-e", script], cwd=ROOT, check=True, env={**os.environ, "R_URL": url, "R_PREFIX": prefix + ":"})


class Exchange:
    """One exchange process (restartable on the same port and data) and its admin API."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/client"
        self.workdir = workdir
        self.log_path = workdir / "server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._cleanups: list[Any] = []
        tag = f"legwork_py_{os.getpid()}_{secrets.token_hex(3)}"
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DATA_DIR", "PORT")},
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "ADMIN_TOKEN": ADMIN_TOKEN,
            "LOG_LEVEL": os.environ.get("LEGWORK_TEST_LOG_LEVEL", "warn"),
            "NONCE_RATE_PER_MINUTE": "100000",
            "AUTH_RATE_PER_MINUTE": "100000",
            "PUBLIC_RATE_PER_SECOND": "100000",
            "PUBLIC_RATE_BURST": "100000",
            "RFQ_RATE_PER_SECOND": "10000",
            "RFQ_RATE_BURST": "10000",
            # Every test client comes from 127.0.0.1 (the relay of test_reconcile too): no per-IP cap on sockets.
            "MAX_CONNECTIONS_PER_IP": "100000",
        }
        self.env.pop("NODE_ENV", None)
        base = os.environ.get("DATABASE_URL")
        if base:
            _pg(f"CREATE DATABASE {tag}", base)
            self._cleanups.append(lambda: _pg(f"DROP DATABASE IF EXISTS {tag} WITH (FORCE)", base))
            self.env["DATABASE_URL"] = base.rsplit("/", 1)[0] + "/" + tag
            self.env["JWT_SECRET"] = os.environ.get("JWT_SECRET") or secrets.token_hex(32)
            self.env["EXCHANGE_SIGNING_KEY"] = os.environ.get("EXCHANGE_SIGNING_KEY") or secrets.token_hex(32)
            self.mode = "postgresql"
        else:
            data = workdir / "data"
            self.env["DATA_DIR"] = str(data)
            self.mode = "embedded"
        if os.environ.get("REDIS_URL"):
            self.env["REDIS_URL"] = os.environ["REDIS_URL"]
            self.env["REDIS_PREFIX"] = tag
            redis_url = os.environ["REDIS_URL"]
            self._cleanups.append(lambda: _redis_drop(tag, redis_url))
            self.mode += "+redis"

    def start(self, timeout: float = 90) -> None:
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(["node", "dist/src/main.js"], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the exchange exited with {self.process.returncode}: {self.log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the exchange did not become healthy in {timeout} s: {self.log_path.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: the process dies with whatever it had in flight."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def destroy(self) -> None:
        self.stop()
        for cleanup in reversed(self._cleanups):
            try:
                cleanup()
            except Exception:  # noqa: BLE001 - best effort at the end of the run
                pass

    # Admin HTTP (the tests' stand-in for the web sign-up and the chain watcher)

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("authorization", f"Bearer {ADMIN_TOKEN}")
        if data is not None:
            request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"{method} {path}: HTTP {error.code} {error.read().decode()}") from error

    def account(self, roles: list[str], deposit: str = "0") -> Account:
        """A fresh wallet with an account of these roles, holding ``deposit`` USDC."""
        key = Keypair.generate()
        created = self.admin("POST", "/v1/admin/accounts", {"wallet": key.wallet, "roles": roles})
        if deposit != "0":
            self.admin("POST", f"/v1/admin/accounts/{created['account_id']}/deposit", {"amount": deposit, "reference": f"py-{uuid.uuid4()}"})
        return Account(key, int(created["account_id"]))

    def feed(self) -> None:
        self.admin("POST", "/v1/admin/market-data", {"asset": ASSET, "index_price": SPOT, "iv": IV})


@dataclass
class Account:
    keypair: Keypair
    account_id: int

    @property
    def seed_hex(self) -> str:
        return self.keypair.seed.hex()


@dataclass
class Market:
    exchange: Exchange
    expiration: int

    def symbol(self, strike: str, kind: str = "call") -> str:
        from legwork import format_symbol

        return format_symbol(ASSET, self.expiration, strike, kind)


@pytest.fixture(scope="session")
def exchange() -> Iterator[Exchange]:
    build_if_stale()
    workdir = Path(tempfile.mkdtemp(prefix="legwork-py-"))
    os.chmod(workdir, 0o700)
    ex = Exchange(workdir)
    try:
        ex.start()
        yield ex
    finally:
        ex.destroy()
        if os.environ.get("LEGWORK_TEST_KEEP") is None:
            shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope="session")
def market(exchange: Exchange) -> Iterator[Market]:
    """A SOL expiry about 7 days out (08:00 UTC) around spot 150, market data fed every 5 s."""
    expiration = (int(time.time()) // DAY + 7) * DAY + 8 * 3600
    exchange.admin("POST", "/v1/admin/create-instruments", {"asset": ASSET, "expiration": expiration, "spot_price": SPOT})
    exchange.feed()
    stop = threading.Event()

    def feeder() -> None:
        while not stop.wait(5):
            try:
                exchange.feed()
            except Exception:  # noqa: BLE001 - the exchange may be restarting
                pass

    thread = threading.Thread(target=feeder, daemon=True)
    thread.start()
    yield Market(exchange, expiration)
    stop.set()
