"""JSON-RPC plumbing shared by the connection and the client: method names, request entries, outcomes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Mapping, NewType, Union

from .errors import LegworkError
from .subscription import BatchOutcome
from .wire import SUBSCRIBE_METHODS, MethodName

JsonObject = dict[str, Any]
Untyped = NewType("Untyped", str)
"""A method name this client version does not declare (see :func:`untyped`)."""
Method = Union[MethodName, Untyped]
Params = Mapping[str, Any]

CHANNELS = tuple(SUBSCRIBE_METHODS)
MAX_BATCH = 20
RATE_LIMITED = ("RATE_LIMITED", "RFQ_RATE_LIMITED")


def untyped(method: str) -> Untyped:
    """Marks a method name the type checker cannot know (a method newer than this client): ``client.call(untyped("rfq.new"), {})``."""
    return Untyped(method)


@dataclass
class _Entry:
    method: str
    params: Params | None
    future: asyncio.Future[Any]
    id: int | None = None


def _outcome(entry: _Entry) -> BatchOutcome:
    failure = entry.future.exception()
    if failure is None:
        return BatchOutcome(True, entry.future.result())
    if isinstance(failure, LegworkError):
        return BatchOutcome(False, error=failure)
    raise failure


def _json_default(value: object) -> Any:
    from decimal import Decimal

    if isinstance(value, Decimal):
        raise TypeError("a Decimal goes on the wire as an RFQ decimal string: use rfq_decimal()")
    raise TypeError(f"{type(value).__name__} is not JSON")
