"""The HTTP API: sign-in, the query API (``/query/*``, bearer session token), the
public journal and keys (``/v1/exchange/*``), and the admin commands (bearer admin
token, or a session token with the admin role or scope). Every non-2xx reply raises
:class:`~legwork.errors.HttpError`. Money fields come as 8-place decimal strings:
read them with :func:`~legwork.decimals.parse_http_decimal`.
"""

from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import quote

import httpx

from .env import endpoints
from .errors import HttpError, LegworkConnectionError
from .signin import DEFAULT_SERVICE_NAME, message_to_sign
from .wallet import Keypair

JsonObject = dict[str, Any]


class LegworkHttp:
    """An async HTTP client of one exchange.

    ::

        async with LegworkHttp() as http:          # LEGWORK_URL, else the local exchange (see legwork.env)
            await http.sign_in(keypair)          # remembers the session token
            rows = (await http.balances())["rows"]
    """

    def __init__(
        self,
        base_url: str | None = None,
        token: str | None = None,
        *,
        service_name: str = DEFAULT_SERVICE_NAME,
        timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = endpoints(base_url).http_url
        self.token = token
        """The bearer token sent on every request (session or admin token), if any."""
        self.service_name = service_name
        self._timeout = timeout
        self._headers = dict(headers or {})
        self._client = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, headers={"accept": "application/json", **self._headers})

    async def __aenter__(self) -> LegworkHttp:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    def with_token(self, token: str | None) -> LegworkHttp:
        """A new client of the same exchange with another bearer token (e.g. an admin token)."""
        return LegworkHttp(self.base_url, token, service_name=self.service_name, timeout=self._timeout, headers=self._headers)

    async def request(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        """One request: JSON body in, JSON body out.

        :raises HttpError: on a non-2xx status (``retry_after`` from ``Retry-After`` on a 429)
        :raises LegworkConnectionError: no answer (connection refused, reset, timed out)
        """
        headers = {"authorization": f"Bearer {self.token}"} if self.token else {}
        params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        try:
            response = await self._client.request(method, path, params=params, json=body, headers=headers)
        except httpx.TransportError as failure:
            raise LegworkConnectionError(f"{method} {self.base_url}{path}: {failure or type(failure).__name__}") from failure
        try:
            parsed: Any = response.json() if response.content else None
        except ValueError:
            parsed = response.text
        if response.status_code >= 300:
            error = parsed.get("error") if isinstance(parsed, dict) else None
            retry = response.headers.get("retry-after")
            raise HttpError(
                response.status_code,
                error if isinstance(error, str) else (response.text or response.reason_phrase),
                parsed,
                int(retry) if retry and retry.isdigit() else None,
                _admin_hint(response.status_code, path, self.token),
            )
        return parsed

    async def get(self, path: str, query: Mapping[str, Any] | None = None) -> Any:
        return await self.request("GET", path, query=query)

    async def post(self, path: str, body: Any = None) -> Any:
        return await self.request("POST", path, body={} if body is None else body)

    async def put(self, path: str, body: Any = None) -> Any:
        return await self.request("PUT", path, body={} if body is None else body)

    # Sign-in

    async def sign_in(self, keypair: Keypair) -> JsonObject:
        """Nonce, sign, ``POST /v1/auth/session``; remembers the session token as bearer."""
        nonce = await self.nonce(keypair.wallet)
        message = message_to_sign(nonce, keypair.wallet, self.service_name)
        result = await self.open_session(keypair.wallet, keypair.sign_base58(message), message)
        self.token = result["session_token"]
        return result

    # The routes declared in the contract: sign-in, instruments, the exchange's keys and journal, the probes, the query API

    # BEGIN declared routes: `npm run protocol:python` writes the methods down to END from the contract (do not edit them)

    async def nonce(self, wallet: str) -> JsonObject:
        """``POST /v1/auth/nonce``: Get a sign-in nonce for a wallet."""
        result: JsonObject = await self.request("POST", "/v1/auth/nonce", query={}, body={"wallet": wallet})
        return result

    async def open_session(self, wallet: str, signature: str, message: str) -> JsonObject:
        """``POST /v1/auth/session``: Sign in over HTTP with the signed nonce message."""
        result: JsonObject = await self.request("POST", "/v1/auth/session", query={}, body={"wallet": wallet, "signature": signature, "message": message})
        return result

    async def instruments(self, *, asset: str | None = None, expiry: int | None = None, include_settled: str | None = None) -> JsonObject:
        """``GET /v1/instruments``: Listed instruments (default: open ones of every asset)."""
        result: JsonObject = await self.request("GET", "/v1/instruments", query={"asset": asset, "expiry": expiry, "include_settled": include_settled})
        return result

    async def keys(self) -> JsonObject:
        """``GET /v1/exchange/keys``: Public keys that sign fill receipts (rotation appends one)."""
        result: JsonObject = await self.request("GET", "/v1/exchange/keys", query={})
        return result

    async def journal(self, *, after: int | None = None, limit: int | None = None) -> JsonObject:
        """``GET /v1/exchange/journal``: The receipt chain after ``after`` (no parties, no prices) and its head."""
        result: JsonObject = await self.request("GET", "/v1/exchange/journal", query={"after": after, "limit": limit})
        return result

    async def health(self) -> JsonObject:
        """``GET /health``: Readiness: the database and Redis answer."""
        result: JsonObject = await self.request("GET", "/health", query={})
        return result

    async def health_ready(self) -> JsonObject:
        """``GET /health/ready``: Readiness (same check as /health)."""
        result: JsonObject = await self.request("GET", "/health/ready", query={})
        return result

    async def health_live(self) -> JsonObject:
        """``GET /health/live``: Liveness: the process answers."""
        result: JsonObject = await self.request("GET", "/health/live", query={})
        return result

    async def balances(self, account_id: int | None = None) -> JsonObject:
        """``GET /query/balances``: The USDC balance row of the account (none for an account that does not exist)."""
        result: JsonObject = await self.request("GET", "/query/balances", query={"account_id": account_id})
        return result

    async def positions(self, account_id: int | None = None) -> JsonObject:
        """``GET /query/positions``: Central limit order book positions: always none (Legwork has no order book; RFQ positions are /query/rfq-positions)."""
        result: JsonObject = await self.request("GET", "/query/positions", query={"account_id": account_id})
        return result

    async def rfq_positions(self, *, account_id: int | None = None, limit: int | None = None, status: str | None = None) -> JsonObject:
        """``GET /query/rfq-positions``: Net RFQ positions per instrument, non-zero only, by expiry then instrument; no cursor (``after`` is a 400)."""
        result: JsonObject = await self.request("GET", "/query/rfq-positions", query={"account_id": account_id, "limit": limit, "status": status})
        return result

    async def rfq_fills(self, *, account_id: int | None = None, limit: int | None = None, after: str | None = None) -> JsonObject:
        """``GET /query/rfq-fills``: RFQ fills of the account as taker or maker, newest first, with their signed receipts; next_cursor continues with after."""
        result: JsonObject = await self.request("GET", "/query/rfq-fills", query={"account_id": account_id, "limit": limit, "after": after})
        return result

    async def session(self) -> JsonObject:
        """``GET /query/session``: The caller as its bearer token authenticates it: the account, wallet, the account's current roles and scopes, and when the session expires."""
        result: JsonObject = await self.request("GET", "/query/session", query={})
        return result

    async def overview(self) -> JsonObject:
        """``GET /v1/admin/overview``: Queue depths, RFQs by state and fills per minute (the console overview)."""
        result: JsonObject = await self.request("GET", "/v1/admin/overview", query={})
        return result

    async def rfqs(self, *, state: str | None = None, account_id: int | None = None, before: str | None = None, limit: int | None = None) -> JsonObject:
        """``GET /v1/admin/rfqs``: RFQs of every account, newest first, with their quote and fill."""
        result: JsonObject = await self.request("GET", "/v1/admin/rfqs", query={"state": state, "account_id": account_id, "before": before, "limit": limit})
        return result

    async def rfq_events(self, rfq_id: str) -> JsonObject:
        """``GET /v1/admin/rfqs/{rfq_id}/events``: Every state move of one RFQ, in order."""
        result: JsonObject = await self.request("GET", f"/v1/admin/rfqs/{_segment(rfq_id)}/events", query={})
        return result

    async def market_data_ages(self) -> JsonObject:
        """``GET /v1/admin/market-data``: Every asset's index price and its age (stale past MARKET_DATA_MAX_AGE_SECONDS)."""
        result: JsonObject = await self.request("GET", "/v1/admin/market-data", query={})
        return result

    async def account_search(self, wallet: str) -> JsonObject:
        """``GET /v1/admin/accounts``: Find the account of a wallet (an empty list when it has none)."""
        result: JsonObject = await self.request("GET", "/v1/admin/accounts", query={"wallet": wallet})
        return result

    async def account(self, account_id: int) -> JsonObject:
        """``GET /v1/admin/accounts/{account_id}``: An account with its balance row."""
        result: JsonObject = await self.request("GET", f"/v1/admin/accounts/{_segment(account_id)}", query={})
        return result

    async def risk(self) -> JsonObject:
        """``GET /v1/admin/risk``: Under-collateralized accounts (available < 0 at the latest index), most negative first, and their deficit (design.md section 12)."""
        result: JsonObject = await self.request("GET", "/v1/admin/risk", query={})
        return result

    async def revoke_sessions(self, account_id: int) -> JsonObject:
        """``POST /v1/admin/accounts/{account_id}/revoke-sessions``: End every session of an account."""
        result: JsonObject = await self.request("POST", f"/v1/admin/accounts/{_segment(account_id)}/revoke-sessions", query={})
        return result

    async def deposit(self, account_id: int, amount: str, reference: str) -> JsonObject:
        """``POST /v1/admin/accounts/{account_id}/deposit``: Credit a deposit (stands for the chain watcher); idempotent by reference."""
        result: JsonObject = await self.request("POST", f"/v1/admin/accounts/{_segment(account_id)}/deposit", query={}, body={"amount": amount, "reference": reference})
        return result

    async def withdraw(self, account_id: int, amount: str, reference: str) -> JsonObject:
        """``POST /v1/admin/accounts/{account_id}/withdraw``: Debit a withdrawal; idempotent by reference."""
        result: JsonObject = await self.request("POST", f"/v1/admin/accounts/{_segment(account_id)}/withdraw", query={}, body={"amount": amount, "reference": reference})
        return result

    async def create_account(self, wallet: str, *, roles: list[str] | None = None) -> JsonObject:
        """``POST /v1/admin/accounts``: Create the account of a wallet (stands for the web sign-up)."""
        result: JsonObject = await self.request("POST", "/v1/admin/accounts", query={}, body=_present({"wallet": wallet, "roles": roles}))
        return result

    async def set_roles(self, account_id: int, roles: list[str]) -> JsonObject:
        """``PUT /v1/admin/accounts/{account_id}/roles``: Replace an account's roles."""
        result: JsonObject = await self.request("PUT", f"/v1/admin/accounts/{_segment(account_id)}/roles", query={}, body={"roles": roles})
        return result

    async def audit(self, *, after: str | None = None, limit: int | None = None, action: str | None = None, account_id: int | None = None) -> JsonObject:
        """``GET /v1/admin/audit``: The admin audit log, newest first, keyset-paginated."""
        result: JsonObject = await self.request("GET", "/v1/admin/audit", query={"after": after, "limit": limit, "action": action, "account_id": account_id})
        return result

    async def maker_limits(self, account_id: int) -> JsonObject:
        """``GET /v1/admin/accounts/{account_id}/maker-limits``: A maker's limits, the operator's ceiling, the usage of its live quotes at the current marks, and its protection state."""
        result: JsonObject = await self.request("GET", f"/v1/admin/accounts/{_segment(account_id)}/maker-limits", query={})
        return result

    async def set_maker_limits(self, account_id: int, limits: JsonObject) -> JsonObject:
        """``PUT /v1/admin/accounts/{account_id}/maker-limits``: Replace the operator's ceiling over a maker's limits."""
        result: JsonObject = await self.request("PUT", f"/v1/admin/accounts/{_segment(account_id)}/maker-limits", query={}, body={"limits": limits})
        return result

    async def reset_protection(self, account_id: int) -> JsonObject:
        """``POST /v1/admin/accounts/{account_id}/reset-protection``: End a maker's protection freeze (the operator's reset)."""
        result: JsonObject = await self.request("POST", f"/v1/admin/accounts/{_segment(account_id)}/reset-protection", query={})
        return result

    async def create_instruments(self, asset: str, expiration: int, spot_price: float | str, *, strikes: list[str] | None = None) -> JsonObject:
        """``POST /v1/admin/create-instruments``: Create the calls and puts of an asset and expiration."""
        body: JsonObject = _present({"asset": asset, "expiration": expiration, "spot_price": spot_price, "strikes": strikes})
        result: JsonObject = await self.request("POST", "/v1/admin/create-instruments", query={}, body=body)
        return result

    async def pause_by_expiration(self, expiration: int, *, asset: str | None = None) -> JsonObject:
        """``POST /v1/admin/instruments/pause-by-expiration``: Pause every instrument of an expiration round (durable and in the engine)."""
        result: JsonObject = await self.request("POST", "/v1/admin/instruments/pause-by-expiration", query={}, body=_present({"expiration": expiration, "asset": asset}))
        return result

    async def resume_by_expiration(self, expiration: int, *, asset: str | None = None) -> JsonObject:
        """``POST /v1/admin/instruments/resume-by-expiration``: Resume a paused expiration round."""
        result: JsonObject = await self.request("POST", "/v1/admin/instruments/resume-by-expiration", query={}, body=_present({"expiration": expiration, "asset": asset}))
        return result

    async def settle_expiration(self, asset: str, expiration: int, *, settlement_price: float | str | None = None) -> JsonObject:
        """``POST /v1/admin/instruments/settle-expiration``: Settle an expiration round now, at settlement_price or the fresh index; idempotent."""
        body: JsonObject = _present({"asset": asset, "expiration": expiration, "settlement_price": settlement_price})
        result: JsonObject = await self.request("POST", "/v1/admin/instruments/settle-expiration", query={}, body=body)
        return result

    async def revert(self, rfq_id: str) -> JsonObject:
        """``POST /v1/admin/rfq/{rfq_id}/revert``: Revert a fill exactly (cash, fee, positions, locks); the RFQ moves filled → failed (RFQ_TX_FAILED, reverted)."""
        result: JsonObject = await self.request("POST", f"/v1/admin/rfq/{_segment(rfq_id)}/revert", query={})
        return result

    async def market_data(self, asset: str, index_price: float | str, *, iv: float | str | None = None, ivs: JsonObject | None = None) -> JsonObject:
        """``POST /v1/admin/market-data``: Set the index price and implied volatilities of an asset (stands for the market data feed)."""
        result: JsonObject = await self.request("POST", "/v1/admin/market-data", query={}, body=_present({"asset": asset, "index_price": index_price, "iv": iv, "ivs": ivs}))
        return result

    # END declared routes

    # Public

    async def exchange_keys(self) -> list[JsonObject]:
        """``GET /v1/exchange/keys``: the keys that sign fill receipts, as a list."""
        return list((await self.keys())["keys"])

    async def journal_rows(self, *, after: int = 0, page: int = 1000) -> list[JsonObject]:
        """Every journal row after ``after``, page by page."""
        rows: list[JsonObject] = []
        while True:
            chunk = (await self.journal(after=after, limit=page))["rows"]
            rows.extend(chunk)
            if len(chunk) < page:
                return rows
            after = chunk[-1]["journal_seq"]


def _admin_hint(status: int, path: str, token: str | None) -> str | None:
    """What a refusal of an admin path means: the server answers a wrong admin token as it answers
    a wrong session token (401), which reads as if the session were at fault."""
    if status not in (401, 403) or not path.startswith("/v1/admin/"):
        return None
    if not token:
        return "no admin token was given (LEGWORK_ADMIN_TOKEN): admin commands need the exchange's ADMIN_TOKEN"
    return "the admin token was refused: it is not the exchange's ADMIN_TOKEN (check LEGWORK_ADMIN_TOKEN)"


def _segment(value: Any) -> str:
    """A path parameter, escaped as one path segment."""
    return quote(str(value), safe="")


def _present(body: JsonObject) -> JsonObject:
    """A body without its optional fields that were not given."""
    return {key: value for key, value in body.items() if value is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
