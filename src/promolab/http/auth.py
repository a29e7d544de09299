"""Authentication exactly as the interface's table says.

| interface            | headers                                               |
| /client, /v1         | X-App-Id + X-App-Token                                |
| /v2/loyalties        | Authorization: Bearer <token> + X-App-Id + X-App-Token |
| /management/v1       | X-Management-Id + X-Management-Token                  |
| /_sim (control API)  | X-Management-Id + X-Management-Token                  |

Secrets are compared with `hmac.compare_digest` so response timing does not
leak how much of a token was right; every header is checked even after a
mismatch, for the same reason.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from enum import Enum

from ..sim.records import Credentials

__all__ = ["AuthKind", "authorized"]


class AuthKind(str, Enum):
    APP = "app"
    LOYALTY = "loyalty"
    MANAGEMENT = "management"
    NONE = "none"


def _same(given: str | None, expected: str) -> bool:
    return hmac.compare_digest((given or "").encode(), expected.encode())


def authorized(kind: AuthKind, headers: Mapping[str, str], creds: Credentials) -> bool:
    if kind is AuthKind.NONE:
        return True
    if kind is AuthKind.MANAGEMENT:
        ok_id = _same(headers.get("x-management-id"), creds.management_id)
        ok_token = _same(headers.get("x-management-token"), creds.management_token.get_secret_value())
        return ok_id & ok_token
    ok_id = _same(headers.get("x-app-id"), creds.app_id)
    ok_token = _same(headers.get("x-app-token"), creds.app_token.get_secret_value())
    if kind is AuthKind.APP:
        return ok_id & ok_token
    authorization = headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    ok_bearer = _same(token if scheme.lower() == "bearer" else None, creds.access_token.get_secret_value())
    return ok_id & ok_token & ok_bearer
