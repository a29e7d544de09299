"""One attempt on the wire: an in-process receiver called, or a URL POSTed.

Either way the answer is a `Result`, (outcome, status code, error), and
nothing the receiver or the network does raises: a receiver's exception, a
timeout, a refused connection or a non-2xx status is a failed attempt that
`attempts.record_attempt` logs and retries. No state is read or written
here, so a URL is POSTed without the simulator's lock (`delivery.Batch.send`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from ..records import WebhookConfig

if TYPE_CHECKING:
    from ..simulator import Simulator

__all__ = ["Outcome", "Result", "send_http", "send_in_process"]

Outcome = Literal["delivered", "failed", "timeout", "error"]
Result = tuple[Outcome, int | None, str | None]


def send_in_process(
    sim: Simulator, config: WebhookConfig, headers: Mapping[str, str], body: bytes
) -> Result:
    """(outcome, status code, error) of one in-process attempt; never raises."""
    receiver = sim.receiver(config.receiver or "")
    if receiver is None:
        return "error", None, f"no receiver registered under {config.receiver!r}"
    try:
        answer = receiver(dict(headers), body)
    except TimeoutError as exc:
        return "timeout", None, f"receiver timed out: {exc}" if str(exc) else "receiver timed out"
    except Exception as exc:  # noqa: BLE001 - a receiver's bug is a failed attempt, not ours
        return "error", None, f"{type(exc).__name__}: {exc}"
    status = 200 if answer is None else answer
    if isinstance(status, bool) or not isinstance(status, int):
        return "error", None, f"receiver returned {answer!r}, not an HTTP status"
    return _judge(status)


def _judge(status: int) -> Result:
    if 200 <= status < 300:
        return "delivered", status, None
    return "failed", status, f"HTTP {status}"


def send_http(url: str, headers: Mapping[str, str], body: bytes, timeout: float) -> Result:
    """(outcome, status code, error) of one POST; never raises for what the
    receiver or the network does (a URL httpx refuses is an `error` too)."""
    import httpx

    try:
        response = httpx.post(url, content=body, headers=dict(headers), timeout=timeout, follow_redirects=False)
    except httpx.TimeoutException as exc:
        return "timeout", None, f"no answer within {timeout:g} s ({type(exc).__name__})"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return "error", None, f"{type(exc).__name__}: {exc}"
    return _judge(response.status_code)
