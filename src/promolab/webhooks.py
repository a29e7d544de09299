"""Helpers for webhook receivers: check that a delivery really came from the service.

    from promolab.webhooks import verify_signature

    def receive(headers, body):            # body: the raw bytes received
        if not verify_signature(body, headers["x-voucherify-signature"], SECRET):
            return 401
        ...

`sign(body, secret)` computes the header value (hex HMAC-SHA256 of the raw
body keyed with the configuration's secret), for tests of receivers. The same
functions check deliveries of the simulator and of a real deployment.
"""

from __future__ import annotations

from .sim.webhooks.signing import SIGNATURE_HEADER, encode_body, sign, verify_signature

__all__ = ["SIGNATURE_HEADER", "encode_body", "sign", "verify_signature"]
