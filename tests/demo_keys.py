"""The demo project's credentials as request headers, and the base URL the
in-process tests talk to: what every HTTP test sends (the demo scenario's
`project.credentials`; tests/http/test_http_auth_matrix.py checks each kind
of key against every route)."""

from __future__ import annotations

#: The base URL of an in-process client (`SimulatorTransport` answers any host).
BASE = "http://promolab.local"
#: Client-side (application) keys.
APP = {"X-App-Id": "kestrel-app", "X-App-Token": "kestrel-app-token"}
#: The loyalty API's bearer token.
BEARER = {"Authorization": "Bearer kestrel-access-token"}
#: What the loyalty routes take: application keys and the bearer token.
LOYALTY = {**APP, **BEARER}
#: Management keys (the control API, project settings).
MANAGEMENT = {"X-Management-Id": "kestrel-management", "X-Management-Token": "kestrel-management-token"}
#: A JSON body's content type.
JSON = {"Content-Type": "application/json"}
