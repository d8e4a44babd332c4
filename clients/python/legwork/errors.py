"""Typed errors of the Legwork client.

Every ``rfq.*`` failure is JSON-RPC code 1200 with the typed data of
the exchange's error table and is raised as :class:`RfqError`; other JSON-RPC error
replies as :class:`LegworkRpcError`; a request with no reply in time as
:class:`RequestTimeout`; a connection lost with the request in flight as
:class:`LegworkConnectionError` (the server may have run it: ``rfq.create`` is
idempotent by ``client_ref``, ``rfq.accept`` by its params, a respond by its
``quote_nonce`` high-water mark).
"""

from __future__ import annotations

from typing import Any, Final, Literal, Mapping, cast

from .wire import RFQ_ERROR_CODE as RFQ_ERROR_CODE  # noqa: F401 (the contract's code of every rfq.* failure, re-exported)
from .wire import RfqErrorCode, RpcErrorName

RfqErrorReason = Literal[
    # RFQ_STATE_CONFLICT
    "rfq_ended", "quoted_by_another", "already_quoted", "nonce_not_increasing", "not_quoted", "already_accepted",
    "rfq_cancelled", "replay_running", "quote_firm",
    # RFQ_OPEN_LIMIT
    "max_open_rfqs", "max_open_quotes", "max_open_notional", "max_open_delta", "max_open_vega", "kill_switch", "maker_protection",
    # RFQ_QUOTE_EXPIRED
    "quote_expired", "accept_expired", "quote_replaced", "quote_cancelled", "quote_traded_away",
    # RFQ_PRICE_TOLERANCE, RFQ_SIZE_INVALID, RFQ_NOT_FOUND, RFQ_RATE_LIMITED
    "price_band", "fee_above_max", "zero_quantity", "leg_count", "max_quote_notional", "rfq_not_found", "quote_not_found", "rate_limited",
]
"""``error.data.reason`` of an RFQ refusal: the rule that refused it (a word that refines the code; the
package's README lists what a desk does with each). Words newer than this client are in ``reason_text`` only."""

RFQ_ERROR_REASONS: Final[frozenset[str]] = frozenset(RfqErrorReason.__args__)  # type: ignore[attr-defined]


class LegworkError(Exception):
    """Base class of every error this package raises."""


class DecimalError(LegworkError, ValueError):
    """A value that is not an exact decimal of its kind (the README's "Decimals and bytes")."""

    def __init__(self, fault: str, value: object) -> None:
        self.fault = fault
        self.value = value
        shown = repr(value) if isinstance(value, str) else f"{type(value).__name__} {value!r}"
        super().__init__(f"{shown} is not a valid decimal ({fault.replace('_', ' ')})")


class WalletError(LegworkError, ValueError):
    """A wallet text that is not base58 of a canonical, usable ed25519 key."""

    def __init__(self, reason: str, text: object) -> None:
        self.reason = reason
        self.text = text
        super().__init__(f"{text!r} is not a valid wallet ({reason.replace('_', ' ')})")


class PayloadError(LegworkError, ValueError):
    """A field that does not fit its slot of a signed payload (a quote is 1,050 bytes, an accept 105)."""


class ReceiptError(LegworkError):
    """A fill receipt or a journal segment that does not verify (the README's receipts)."""


def _prefixed(method: str | None, message: str) -> str:
    """The message led by the method once (a message that names it already is left as it is)."""
    return message if not method or message.startswith(f"{method}:") or method in message else f"{method}: {message}"


class LegworkRpcError(LegworkError):
    """A JSON-RPC error reply: ``error: { code, message, data? }``.

    ``error`` is ``data.error`` (``SESSION_INVALID``, ``RATE_LIMITED``, ...) when the
    server gave one; ``retry_after_ms`` is set on rate-limit refusals.
    """

    error: RpcErrorName | RfqErrorCode | None

    def __init__(self, code: int, message: str, data: Any = None, method: str | None = None) -> None:
        super().__init__(_prefixed(method, message))
        self.code = code
        self.message = message
        self.data = data
        self.method = method
        fields: Mapping[str, Any] = data if isinstance(data, dict) else {}
        error = fields.get("error")
        self.error = cast("RpcErrorName | RfqErrorCode", error) if isinstance(error, str) else None
        retry = fields.get("retry_after_ms")
        self.retry_after_ms: int | None = retry if isinstance(retry, int) and not isinstance(retry, bool) else None


class RfqError(LegworkRpcError):
    """A failed ``rfq.*`` call: code 1200 with the typed RFQ error.

    ``operation_id`` is the server's correlation id (quote it to support);
    ``retryable`` says whether the same call may succeed later; ``reason`` names the
    rule that refused it (``kill_switch``, ``quoted_by_another``, ...). For
    RFQ_INVALID_SIGNATURE from ``rfq.maker.check``, ``payload`` (base64 of the
    exchange's 1,050 bytes) and ``quote_id`` let a maker diff its bytes.
    """

    error: RfqErrorCode

    def __init__(self, message: str, data: Mapping[str, Any], method: str | None = None) -> None:
        super().__init__(RFQ_ERROR_CODE, message, dict(data), method)
        self.error = cast(RfqErrorCode, str(data.get("error")))
        self.reason_text: str | None = _str_or_none(data.get("reason"))
        """``data.reason`` as sent (also a word this client does not know yet)."""
        self.reason: RfqErrorReason | None = cast(RfqErrorReason, self.reason_text) if self.reason_text in RFQ_ERROR_REASONS else None
        """The rule that refused the call, typed (None from an exchange that does not send reasons yet)."""
        self.retryable: bool = data.get("retryable") is True
        operation_id = data.get("operation_id")
        self.operation_id: str = operation_id if isinstance(operation_id, str) else ""
        self.rfq_id: str | None = _str_or_none(data.get("rfq_id"))
        self.quote_id: str | None = _str_or_none(data.get("quote_id"))
        self.payload: str | None = _str_or_none(data.get("payload"))
        self.details: Any = data.get("details")


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def rpc_error_from(error: object, method: str | None = None) -> LegworkRpcError:
    """Maps a JSON-RPC ``error`` object to :class:`RfqError` or :class:`LegworkRpcError`."""
    fields: Mapping[str, Any] = error if isinstance(error, dict) else {}
    raw_code = fields.get("code")
    code = raw_code if isinstance(raw_code, int) and not isinstance(raw_code, bool) else 0
    raw_message = fields.get("message")
    message = raw_message if isinstance(raw_message, str) else "JSON-RPC error"
    data = fields.get("data")
    if code == RFQ_ERROR_CODE and isinstance(data, dict) and isinstance(data.get("error"), str):
        text = data.get("message")
        return RfqError(text if isinstance(text, str) else message, data, method)
    return LegworkRpcError(code, message, data, method)


class RequestTimeout(LegworkError, TimeoutError):
    """No reply within the request's timeout (the server may still have run it)."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no reply within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class LegworkConnectionError(LegworkError, ConnectionError):
    """The connection closed before the reply (the server may have run the request), or the client is closed."""

    def __init__(self, message: str, method: str | None = None) -> None:
        super().__init__(_prefixed(method, message))
        self.method = method


class HttpError(LegworkError):
    """An HTTP reply with a non-2xx status; ``error`` is the body's ``{ error }``."""

    def __init__(self, status: int, error: str, body: Any = None, retry_after: int | None = None, hint: str | None = None) -> None:
        super().__init__(f"HTTP {status}: {hint} (the exchange said {error})" if hint else f"HTTP {status}: {error}")
        self.hint = hint
        """What the refusal means when the status alone misleads (a wrong admin token answered 401)."""
        self.status = status
        self.error = error
        self.body = body
        self.retry_after = retry_after
