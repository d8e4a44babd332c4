"""The HTTP API: sign-in, the query API (``/query/*``, bearer session token), the
public journal and keys (``/v1/exchange/*``), and the admin commands (bearer admin
token, or a session token with the admin role or scope). Every non-2xx reply raises
:class:`~legwork.errors.HttpError`. Money fields come as 8-place decimal strings:
read them with :func:`~legwork.decimals.parse_http_decimal`.
"""

from __future__ import annotations

from typing import Any, Mapping

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

    async def nonce(self, wallet: str) -> JsonObject:
        """``POST /v1/auth/nonce``: ``{ wallet, nonce, expires_at, message }``."""
        result: JsonObject = await self.post("/v1/auth/nonce", {"wallet": wallet})
        return result

    async def sign_in(self, keypair: Keypair) -> JsonObject:
        """Nonce, sign, ``POST /v1/auth/session``; remembers the session token as bearer."""
        nonce = await self.nonce(keypair.wallet)
        message = message_to_sign(nonce, keypair.wallet, self.service_name)
        result: JsonObject = await self.post("/v1/auth/session", {"wallet": keypair.wallet, "message": message, "signature": keypair.sign_base58(message)})
        self.token = result["session_token"]
        return result

    # Query API (session token of an account)

    async def balances(self, account_id: int | None = None) -> JsonObject:
        """``GET /query/balances``: ``{ rows: [{ account_id, currency, available, locked, total, updated_at }] }``."""
        result: JsonObject = await self.get("/query/balances", {"account_id": account_id})
        return result

    async def rfq_positions(self, *, status: str | None = None, limit: int | None = None, account_id: int | None = None) -> JsonObject:
        """``GET /query/rfq-positions``: net RFQ contracts per instrument (``status`` default ``open``)."""
        result: JsonObject = await self.get("/query/rfq-positions", {"account_id": account_id, "limit": limit, "status": status})
        return result

    async def rfq_fills(self, *, limit: int | None = None, after: str | None = None, account_id: int | None = None) -> JsonObject:
        """``GET /query/rfq-fills``: fills as taker or maker, newest first, each with its ``receipt``."""
        result: JsonObject = await self.get("/query/rfq-fills", {"account_id": account_id, "limit": limit, "after": after})
        return result

    async def positions(self) -> JsonObject:
        """``GET /query/positions``: order-book positions (Legwork has no order book: no rows)."""
        result: JsonObject = await self.get("/query/positions")
        return result

    # Public

    async def exchange_keys(self) -> list[JsonObject]:
        """``GET /v1/exchange/keys``: the keys that sign fill receipts."""
        result = await self.get("/v1/exchange/keys")
        return list(result["keys"])

    async def journal(self, *, after: int | None = None, limit: int | None = None) -> JsonObject:
        """``GET /v1/exchange/journal``: ``{ rows: [{ journal_seq, kind, hash, prev_hash, at }], head }``."""
        result: JsonObject = await self.get("/v1/exchange/journal", {"after": after, "limit": limit})
        return result

    async def journal_rows(self, *, after: int = 0, page: int = 1000) -> list[JsonObject]:
        """Every journal row after ``after``, page by page."""
        rows: list[JsonObject] = []
        while True:
            chunk = (await self.journal(after=after, limit=page))["rows"]
            rows.extend(chunk)
            if len(chunk) < page:
                return rows
            after = chunk[-1]["journal_seq"]

    # Admin commands

    async def create_account(self, wallet: str, roles: list[str]) -> JsonObject:
        """``POST /v1/admin/accounts``: ``{ account_id, wallet, roles, created_at }``."""
        result: JsonObject = await self.post("/v1/admin/accounts", {"wallet": wallet, "roles": roles})
        return result

    async def deposit(self, account_id: int, amount: str, reference: str) -> JsonObject:
        """``POST /v1/admin/accounts/{id}/deposit``: idempotent by ``reference``; ``amount`` a decimal string."""
        result: JsonObject = await self.post(f"/v1/admin/accounts/{account_id}/deposit", {"amount": amount, "reference": reference})
        return result

    async def create_instruments(self, asset: str, expiration: int, spot_price: str, strikes: list[str] | None = None) -> JsonObject:
        """``POST /v1/admin/create-instruments``: idempotent; ``{ asset, expiration, created }``."""
        body: JsonObject = {"asset": asset, "expiration": expiration, "spot_price": spot_price}
        if strikes is not None:
            body["strikes"] = strikes
        result: JsonObject = await self.post("/v1/admin/create-instruments", body)
        return result

    async def market_data(self, asset: str, index_price: str, iv: str | None = None, ivs: Mapping[str, str] | None = None) -> JsonObject:
        """``POST /v1/admin/market-data``: index price and implied volatility (flat ``iv`` or per symbol ``ivs``)."""
        body: JsonObject = {"asset": asset, "index_price": index_price}
        if iv is not None:
            body["iv"] = iv
        if ivs is not None:
            body["ivs"] = dict(ivs)
        result: JsonObject = await self.post("/v1/admin/market-data", body)
        return result

    async def maker_limits(self, account_id: int) -> JsonObject:
        """``GET /v1/admin/accounts/{id}/maker-limits``: the operator's ceiling."""
        result: JsonObject = await self.get(f"/v1/admin/accounts/{account_id}/maker-limits")
        return result

    async def set_maker_limits(self, account_id: int, limits: Mapping[str, Any]) -> JsonObject:
        """``PUT /v1/admin/accounts/{id}/maker-limits { limits }``."""
        result: JsonObject = await self.put(f"/v1/admin/accounts/{account_id}/maker-limits", {"limits": dict(limits)})
        return result


def _admin_hint(status: int, path: str, token: str | None) -> str | None:
    """What a refusal of an admin path means: the server answers a wrong admin token as it answers
    a wrong session token (401), which reads as if the session were at fault."""
    if status not in (401, 403) or not path.startswith("/v1/admin/"):
        return None
    if not token:
        return "no admin token was given (LEGWORK_ADMIN_TOKEN): admin commands need the exchange's ADMIN_TOKEN"
    return "the admin token was refused: it is not the exchange's ADMIN_TOKEN (check LEGWORK_ADMIN_TOKEN)"


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
