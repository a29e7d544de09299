"""Signing webhook bodies.

The header `x-voucherify-signature` carries the hex HMAC-SHA256 of the body,
keyed with the configuration's secret. Bodies are serialised compactly (no
whitespace outside strings, like `JSON.stringify`), so a receiver in any
language that hashes the raw bytes it received gets the same digest.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

__all__ = ["SIGNATURE_HEADER", "encode_body", "sign", "verify_signature"]

SIGNATURE_HEADER = "x-voucherify-signature"


def encode_body(payload: Any) -> bytes:
    """Compact JSON, keys in the payload's order, non-ASCII kept as UTF-8."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _bytes(value: bytes | str) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def sign(body: bytes | str, secret: str | bytes) -> str:
    """Hex HMAC-SHA256 of `body` keyed with `secret`."""
    return hmac.new(_bytes(secret), _bytes(body), hashlib.sha256).hexdigest()


def verify_signature(body: bytes | str, signature: str, secret: str | bytes) -> bool:
    """Whether `signature` is the signature of `body` under `secret`
    (constant-time comparison; hex case is ignored)."""
    if not isinstance(signature, str):
        return False
    return hmac.compare_digest(sign(body, secret), signature.strip().lower())
