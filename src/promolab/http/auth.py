"""Authentication exactly as the interface's table says.

| interface            | headers                                               |
| /client, /v1         | X-App-Id + X-App-Token                                |
| /v2/loyalties        | Authorization: Bearer <token> + X-App-Id + X-App-Token |
| /management/v1       | X-Management-Id + X-Management-Token                  |
| /_sim (control API)  | X-Management-Id + X-Management-Token                  |

Secrets are compared with `hmac.compare_digest` so response timing does not
leak how much of a token was right; every header is checked even after a
mismatch, for the same reason.

A credential header sent more than once is refused, whatever its copies
hold: which copy counts is not something two HTTP stacks agree on (a proxy
may check the first while the simulator read the last), so no copy is
chosen. The values of a repeated header arrive folded (`messages.fold_headers`),
which already fails the comparison; the check of `repeated` makes the refusal
independent of what the folded value happens to look like.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from enum import Enum

from ..sim import Credentials

__all__ = ["AuthKind", "authorized", "identity"]


class AuthKind(str, Enum):
    APP = "app"
    LOYALTY = "loyalty"
    MANAGEMENT = "management"
    NONE = "none"


#: The headers each kind of credentials is read from.
_HEADERS = {
    AuthKind.APP: frozenset({"x-app-id", "x-app-token"}),
    AuthKind.LOYALTY: frozenset({"x-app-id", "x-app-token", "authorization"}),
    AuthKind.MANAGEMENT: frozenset({"x-management-id", "x-management-token"}),
    AuthKind.NONE: frozenset(),
}


def _same(given: str | None, expected: str) -> bool:
    return hmac.compare_digest((given or "").encode(), expected.encode())


def authorized(
    kind: AuthKind, headers: Mapping[str, str], creds: Credentials, repeated: AbstractSet[str] = frozenset()
) -> bool:
    """Whether `headers` carry the credentials of `kind`; `repeated` names the
    headers sent more than once (a credential among them is refused)."""
    if kind is AuthKind.NONE:
        return True
    single = not repeated or repeated.isdisjoint(_HEADERS[kind])
    if kind is AuthKind.MANAGEMENT:
        ok_id = _same(headers.get("x-management-id"), creds.management_id)
        ok_token = _same(headers.get("x-management-token"), creds.management_token.get_secret_value())
        return ok_id & ok_token & single
    ok_id = _same(headers.get("x-app-id"), creds.app_id)
    ok_token = _same(headers.get("x-app-token"), creds.app_token.get_secret_value())
    if kind is AuthKind.APP:
        return ok_id & ok_token & single
    authorization = headers.get("authorization", "")
    scheme, _, token = authorization.partition(" ")
    ok_bearer = _same(token if scheme.lower() == "bearer" else None, creds.access_token.get_secret_value())
    return ok_id & ok_token & ok_bearer & single


def identity(kind: AuthKind, creds: Credentials) -> str | None:
    """Who a request that passed `authorized(kind, ...)` proved to be: the
    app (app and loyalty routes share the app's id) or the management
    caller; None for routes without credentials. What the rate limiter
    counts by: unlike a header, it cannot be chosen per request."""
    if kind is AuthKind.NONE:
        return None
    if kind is AuthKind.MANAGEMENT:
        return "management:" + creds.management_id
    return "app:" + creds.app_id
