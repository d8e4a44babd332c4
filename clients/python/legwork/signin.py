"""The sign-in message (what ``LegworkClient.sign_in`` signs)."""

from __future__ import annotations

import re
from typing import Any, Mapping

DEFAULT_SERVICE_NAME = "Legwork"

_MESSAGE = re.compile(r"Sign in to ([^\n]+)\n\nWallet: ([^\n]+)\nNonce: ([^\n]+)")
_NONCE = re.compile(r"[\x21-\x7e]+")


def sign_in_message(service_name: str, wallet: str, nonce: str) -> str:
    """The exact text a wallet signs: ``Sign in to <service>\\n\\nWallet: <wallet>\\nNonce: <nonce>``."""
    return f"Sign in to {service_name}\n\nWallet: {wallet}\nNonce: {nonce}"


def message_to_sign(reply: Mapping[str, Any], wallet: str, service_name: str = DEFAULT_SERVICE_NAME) -> str:
    """The message to sign for a nonce reply.

    The server's ``message`` when it gives one, after checking that it is a sign-in
    message for this wallet and nonce (the client never signs arbitrary text), else
    the message built with ``service_name``.

    :raises ValueError: when the server's message is not a sign-in message for this wallet and nonce
    """
    nonce = reply.get("nonce")
    if not isinstance(nonce, str) or not _NONCE.fullmatch(nonce):
        raise ValueError("the nonce reply carries no valid nonce")
    message = reply.get("message")
    if message is None:
        return sign_in_message(service_name, wallet, nonce)
    m = _MESSAGE.fullmatch(message) if isinstance(message, str) else None
    if m is None or m.group(2) != wallet or m.group(3) != nonce:
        raise ValueError("the server message is not a sign-in message for this wallet and nonce")
    return str(message)
