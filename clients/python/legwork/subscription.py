"""Notification streams, batch outcomes and the reconnection policy of :class:`~legwork.client.LegworkClient`."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from .errors import LegworkConnectionError, LegworkError

if TYPE_CHECKING:
    from .connection import RpcConnection

Channel = Literal["rfq", "rfq_maker", "session"]
"""The notification channels: ``rfq`` (a taker's RFQs), ``rfq_maker`` (a quoter's), ``session`` (its end)."""

T = TypeVar("T")


@dataclass(frozen=True)
class ReconnectPolicy:
    """Backoff: the delay of attempt n is ``min(max_delay, initial_delay * factor ** (n - 1))``, less up to ``jitter`` of it."""

    initial_delay: float = 0.25
    max_delay: float = 10.0
    factor: float = 2.0
    jitter: float = 0.2
    max_attempts: int | None = None
    """Attempts before giving up (the client then closes); None: no limit."""

    def delay(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * self.factor ** (attempt - 1))
        return base * (1 - self.jitter * random.random())


@dataclass(frozen=True)
class RateLimitPolicy:
    """What the client does with a RATE_LIMITED or RFQ_RATE_LIMITED refusal that carries ``retry_after_ms``:
    waits that long (at most ``max_wait`` seconds) and sends the request again, up to ``max_retries`` times.
    A refused request did not run, so sending it again is safe for every method."""

    max_retries: int = 3
    max_wait: float = 10.0


@dataclass(frozen=True)
class BatchOutcome:
    """The outcome of one request of a batch: ``result`` when ``ok``, else ``error``."""

    ok: bool
    result: Any = None
    error: LegworkError | None = None


class _End:
    pass


_END = _End()


class Subscription(Generic[T]):
    """The notifications of one channel (``params.data``), in order, typed by channel:
    ``Subscription[RfqEventData]`` for ``rfq``, ``Subscription[RfqMakerNotificationData]`` for ``rfq_maker``.

    An async iterator; :meth:`next` waits with a timeout. Notifications are buffered
    from the moment the subscription is made until read. Ends when the client closes.
    """

    def __init__(self, client: RpcConnection, channel: str) -> None:
        self.channel = channel
        self._client = client
        self._queue: asyncio.Queue[T | _End] = asyncio.Queue()
        self._done = False

    def _push(self, data: T) -> None:
        if not self._done:
            self._queue.put_nowait(data)

    def _end(self) -> None:
        if not self._done:
            self._done = True
            self._queue.put_nowait(_END)

    def __aiter__(self) -> Subscription[T]:
        return self

    async def __anext__(self) -> T:
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)
            raise StopAsyncIteration
        return item

    async def next(self, timeout: float | None = None) -> T:
        """The next notification.

        :raises TimeoutError: none within ``timeout`` seconds
        :raises LegworkConnectionError: the client closed
        """
        try:
            return await asyncio.wait_for(self.__anext__(), timeout)
        except StopAsyncIteration:
            raise LegworkConnectionError("the client is closed") from None

    def pending(self) -> int:
        """Notifications buffered and not read yet."""
        return self._queue.qsize()

    def close(self) -> None:
        """Stops buffering; the iterator ends."""
        self._client._drop(self)
        self._end()
