"""Wallets and ed25519 keys (base58 wallets, ed25519 signatures).

A wallet is the base58 text of a 32-byte ed25519 public key: exactly 32 bytes,
canonical (decoding then re-encoding gives the same text), and not one of the
small-order points (with such a key anyone can forge a signature).
"""

from __future__ import annotations

import os
import re

import base58
import nacl.exceptions
import nacl.signing

from .errors import WalletError

SMALL_ORDER_PUBLIC_KEYS_HEX: tuple[str, ...] = (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
)
"""The small-order points, compared with the top bit of the last byte cleared (which
also covers their non-canonical encodings)."""
_SMALL_ORDER = frozenset(bytes.fromhex(k) for k in SMALL_ORDER_PUBLIC_KEYS_HEX)
_BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]+", re.ASCII)
_MAX_WALLET_CHARS = 44
_MAX_BASE58_SIGNATURE_CHARS = 88
# The order of the ed25519 group: a signature whose S is not below it is not canonical.
_GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493


def is_small_order_key(key: bytes) -> bool:
    """True for a 32-byte key that is a small-order point, whatever the top bit of its last byte."""
    if len(key) != 32:
        return False
    return bytes(key[:31]) + bytes([key[31] & 0x7F]) in _SMALL_ORDER


def parse_wallet(text: object) -> bytes:
    """The 32-byte public key of a wallet text.

    :raises WalletError: not base58, not 32 bytes, not canonical, or a small-order key
    """
    if not isinstance(text, str):
        raise WalletError("not_a_string", text)
    if not _BASE58.fullmatch(text):
        raise WalletError("not_base58", text)
    if len(text) > _MAX_WALLET_CHARS:
        raise WalletError("wrong_length", text)
    try:
        key = bytes(base58.b58decode(text))
    except ValueError as error:
        raise WalletError("not_base58", text) from error
    if len(key) != 32:
        raise WalletError("wrong_length", text)
    if base58.b58encode(key).decode("ascii") != text:
        raise WalletError("not_canonical", text)
    if is_small_order_key(key):
        raise WalletError("small_order", text)
    return key


def encode_wallet(key: bytes) -> str:
    """Base58 text of a 32-byte public key."""
    if len(key) != 32:
        raise ValueError(f"a wallet is 32 bytes, got {len(key)}")
    return str(base58.b58encode(bytes(key)).decode("ascii"))


def decode_base58_signature(text: object) -> bytes | None:
    """A sign-in signature: base58 of exactly 64 bytes, canonical; None otherwise."""
    if not isinstance(text, str) or not _BASE58.fullmatch(text) or len(text) > _MAX_BASE58_SIGNATURE_CHARS:
        return None
    signature = bytes(base58.b58decode(text))
    if len(signature) != 64 or base58.b58encode(signature).decode("ascii") != text:
        return None
    return signature


def verify_ed25519(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True only for a valid signature; never raises.

    Refuses a small-order public key and a non-canonical ``S`` (as the exchange does),
    whatever the library underneath would do.
    """
    if len(public_key) != 32 or len(signature) != 64 or is_small_order_key(public_key):
        return False
    if int.from_bytes(signature[32:], "little") >= _GROUP_ORDER:
        return False
    try:
        nacl.signing.VerifyKey(bytes(public_key)).verify(bytes(message), bytes(signature))
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, nacl.exceptions.TypeError):
        return False
    return True


class Keypair:
    """An ed25519 key pair: the wallet that signs in, quotes and accepts."""

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError(f"an ed25519 seed is 32 bytes, got {len(seed)}")
        self._signing = nacl.signing.SigningKey(bytes(seed))
        self.public_key: bytes = bytes(self._signing.verify_key)
        """The 32-byte public key."""
        self.wallet: str = encode_wallet(self.public_key)
        """The wallet address: base58 of :attr:`public_key`."""

    @classmethod
    def from_seed(cls, seed: bytes) -> Keypair:
        """The key pair of a 32-byte seed (the first half of a Solana 64-byte secret key)."""
        return cls(seed)

    @classmethod
    def from_hex(cls, seed_hex: str) -> Keypair:
        """The key pair of a seed given as 64 hex characters."""
        if not re.fullmatch(r"[0-9a-fA-F]{64}", seed_hex):
            raise ValueError("a seed is 64 hex characters")
        return cls(bytes.fromhex(seed_hex))

    @classmethod
    def generate(cls) -> Keypair:
        """A fresh key pair from the system CSPRNG."""
        return cls(os.urandom(32))

    @property
    def seed(self) -> bytes:
        """The 32-byte seed (keep it secret)."""
        return bytes(self._signing)

    def sign(self, message: bytes | str) -> bytes:
        """The 64-byte signature of ``message`` (a str is signed as UTF-8). Deterministic."""
        data = message.encode("utf-8") if isinstance(message, str) else bytes(message)
        return bytes(self._signing.sign(data).signature)

    def sign_base58(self, message: bytes | str) -> str:
        """The base58 signature of a sign-in message, as ``public/auth`` takes it."""
        return str(base58.b58encode(self.sign(message)).decode("ascii"))

    def __repr__(self) -> str:
        return f"Keypair(wallet={self.wallet!r})"
