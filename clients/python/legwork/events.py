"""The client's own events (connection state and notifications), for listeners added with ``on``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Awaitable, Callable, Final, Literal, Union

_log = logging.getLogger("legwork")

ClientEvent = Literal["notification", "gap", "disconnected", "reconnecting", "reconnected", "resume_error", "closed"]
"""``notification(channel, data)``, ``gap(info)``, ``disconnected(code, reason)``, ``reconnecting(attempt, delay)``,
``reconnected(attempt, session)``, ``resume_error(error)``, ``closed()``."""

CLIENT_EVENTS: Final[tuple[ClientEvent, ...]] = ClientEvent.__args__  # type: ignore[attr-defined]

Listener = Callable[..., Union[None, Awaitable[None]]]


class EventEmitter:
    """Listeners by event; a listener may be a coroutine function, and its failure is logged, never raised."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {name: [] for name in CLIENT_EVENTS}
        self._tasks: set[asyncio.Task[Any]] = set()

    def on(self, event: ClientEvent, listener: Listener) -> None:
        """Adds a listener: ``notification(channel, data)``, ``gap(info)``, ``disconnected(code, reason)``,
        ``reconnecting(attempt, delay)``, ``reconnected(attempt, session)``, ``resume_error(error)``, ``closed()``.
        A listener may be a coroutine function."""
        if event not in self._listeners:
            raise ValueError(f"unknown event {event!r}; one of {', '.join(CLIENT_EVENTS)}")
        self._listeners[event].append(listener)

    def off(self, event: ClientEvent, listener: Listener) -> None:
        with contextlib.suppress(ValueError, KeyError):
            self._listeners[event].remove(listener)

    def _emit(self, event: ClientEvent, *args: Any) -> None:
        # A listener's failure is logged, never raised into the connection's reader.
        for listener in list(self._listeners[event]):
            try:
                result = listener(*args)
            except Exception:
                _log.exception("listener of %s failed", event)
                continue
            if asyncio.iscoroutine(result):
                task = asyncio.ensure_future(result)
                self._tasks.add(task)
                task.add_done_callback(self._listener_done)

    def _listener_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("listener failed", exc_info=task.exception())
