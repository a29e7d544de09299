"""The two sides of a shadow run: the target and the simulator, both over HTTP.

Each side is an httpx client with the credentials its calls need. The target
is a base URL with credentials read from environment variables only
(`Target.from_env`): never from a file of the repository or from a command
line argument, which would end in shell history. The simulator side is a
simulator in-process (through `SimulatorTransport`, the full HTTP face
without sockets) or a served one, and answers exactly as served.

A side whose clock the run drives (the simulator always; the target when it
is a promolab simulator itself, `drive_clock=True`) has its clock moved to
each line's `at` and by each `advance` line through the control API. A real
service keeps its own clock: its `advance` lines are not sent.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from ..client._requests import ApiKeys
from ..models.endpoints import SIM_ADVANCE, SIM_CLOCK
from ..sim import format_instant, parse_instant
from .calls import Call
from .errors import ShadowInputError
from .pacing import Pacer

if TYPE_CHECKING:
    from ..sim import Simulator

__all__ = ["ENVIRONMENT", "Answer", "Side", "Target", "keys_of", "served_side", "simulator_side"]

#: Where `Target.from_env` reads each credential (the names notebook 07 uses).
ENVIRONMENT: dict[str, str] = {
    "base_url": "PROMOLAB_BASE_URL",
    "app_id": "PROMOLAB_APP_ID",
    "app_token": "PROMOLAB_APP_TOKEN",
    "access_token": "PROMOLAB_ACCESS_TOKEN",
    "management_id": "PROMOLAB_MANAGEMENT_ID",
    "management_token": "PROMOLAB_MANAGEMENT_TOKEN",
    "management_base_url": "PROMOLAB_MANAGEMENT_BASE_URL",
}
#: Which credentials each kind of endpoint needs (`Endpoint.auth`).
_NEEDS: dict[str, tuple[str, ...]] = {
    "app": ("app_id", "app_token"),
    "loyalty": ("app_id", "app_token", "access_token"),
    "management": ("management_id", "management_token"),
    "none": (),
}
_TIMEOUT = 30.0


@dataclass(frozen=True, slots=True, repr=False)
class Target:
    """The real deployment: where it is and the keys it takes."""

    base_url: str
    keys: ApiKeys
    management_base_url: str | None = None
    #: An httpx transport (tests: an in-process simulator standing in for the service).
    transport: httpx.BaseTransport | None = None
    #: The target is a promolab simulator: move its clock with the script.
    drive_clock: bool = False

    def __repr__(self) -> str:  # never the keys
        return f"Target({self.base_url!r}, drive_clock={self.drive_clock})"

    @classmethod
    def from_env(
        cls,
        base_url: str | None = None,
        *,
        needs: Iterable[str] = ("app", "loyalty", "management"),
        environ: Mapping[str, str] | None = None,
        drive_clock: bool = False,
        transport: httpx.BaseTransport | None = None,
    ) -> Target:
        """The target at `base_url` (else `$PROMOLAB_BASE_URL`) with the
        credentials of the `needs` auth kinds read from the environment;
        `ShadowInputError` names every variable missing."""
        env = os.environ if environ is None else environ
        kinds = set(needs) | ({"management"} if drive_clock else set())
        wanted = {name for kind in kinds for name in _NEEDS[kind]}
        url = base_url or env.get(ENVIRONMENT["base_url"], "")
        missing = [ENVIRONMENT[name] for name in ENVIRONMENT if name in wanted and not env.get(ENVIRONMENT[name])]
        if not url:
            missing.insert(0, ENVIRONMENT["base_url"] + " (or --target URL)")
        if missing:
            raise ShadowInputError(f"the target's credentials come from the environment only; not set: "
                                   f"{', '.join(missing)}")
        values = {name: env.get(ENVIRONMENT[name]) or None for name in _NEEDS["loyalty"] + _NEEDS["management"]}
        keys = ApiKeys(values["app_id"] or "", values["app_token"] or "", values["access_token"],
                       values["management_id"], values["management_token"])
        return cls(url, keys, env.get(ENVIRONMENT["management_base_url"]) or None, transport, drive_clock)


@dataclass(frozen=True, slots=True)
class Answer:
    """What one side answered to one call."""

    status: int
    body: Any
    elapsed_ms: float
    attempts: int = 1


class Side:
    """One side: sends calls, and moves its clock when the run drives it."""

    def __init__(self, name: str, http: httpx.Client, keys: ApiKeys, *, base_url: str,
                 management_base_url: str | None = None, drives_clock: bool, pacer: Pacer | None = None) -> None:
        self.name = name
        self.http = http
        self.keys = keys
        self.base_url = base_url.rstrip("/")
        self.management_base_url = (management_base_url or base_url).rstrip("/")
        self.drives_clock = drives_clock
        self.pacer = pacer
        self.now: datetime | None = None

    @classmethod
    def for_target(cls, target: Target, pacer: Pacer | None) -> Side:
        http = httpx.Client(transport=target.transport, timeout=_TIMEOUT)
        return cls("real", http, target.keys, base_url=target.base_url,
                   management_base_url=target.management_base_url, drives_clock=target.drive_clock, pacer=pacer)

    def send(self, call: Call) -> Answer:
        """Send a call (paced, 429s waited out); the answer's body as JSON."""
        endpoint = call.endpoint
        base = self.management_base_url if endpoint.auth == "management" or endpoint.control else self.base_url
        headers = self.keys.headers(endpoint.auth) if endpoint.auth != "none" else {}
        content = None
        if call.body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(call.body, separators=(",", ":")).encode()
        attempt = 0
        while True:
            if self.pacer is not None:
                self.pacer.before_request()
            started = time.perf_counter()
            response = self.http.request(endpoint.method, base + call.path, headers=headers,
                                         params=call.query or None, content=content)
            elapsed = (time.perf_counter() - started) * 1000
            if self.pacer is None or not self.pacer.after_answer(response.status_code, response.headers, attempt):
                return Answer(response.status_code, _body(response), round(elapsed, 3), attempt + 1)
            attempt += 1

    # -- the clock -----------------------------------------------------------------
    def read_clock(self) -> datetime:
        answer = self.send(Call(SIM_CLOCK, SIM_CLOCK.url_path()))
        self.now = _now_of(answer, self.name)
        return self.now

    def advance(self, seconds: float) -> datetime:
        answer = self.send(Call(SIM_ADVANCE, SIM_ADVANCE.url_path(), body={"seconds": seconds}))
        self.now = _now_of(answer, self.name)
        return self.now

    def move_to(self, instant: datetime) -> None:
        """Advance to `instant` if it is later (a clock never goes back here)."""
        now = self.now if self.now is not None else self.read_clock()
        if instant > now:
            self.advance((instant - now).total_seconds())

    def clock_text(self) -> str | None:
        return format_instant(self.now) if self.now is not None else None

    def close(self) -> None:
        self.http.close()


def keys_of(sim: Simulator) -> ApiKeys:
    """The keys a simulator's project accepts (its scenario's credentials)."""
    creds = sim.state.project.credentials
    return ApiKeys(creds.app_id, creds.app_token.get_secret_value(), creds.access_token.get_secret_value(),
                   creds.management_id, creds.management_token.get_secret_value())


def simulator_side(sim: Simulator, name: str = "sim") -> Side:
    """A simulator in-process, answering as served."""
    from ..http.transport import SimulatorTransport

    http = httpx.Client(transport=SimulatorTransport(sim), timeout=_TIMEOUT)
    return Side(name, http, keys_of(sim), base_url="http://promolab.local", drives_clock=True)


def served_side(base_url: str, keys: ApiKeys, name: str = "sim") -> Side:
    """A served simulator (`promolab serve`) as the simulator side."""
    return Side(name, httpx.Client(timeout=_TIMEOUT), keys, base_url=base_url, drives_clock=True)


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return json.loads(response.content)
    except ValueError:
        return response.text


def _now_of(answer: Answer, side: str) -> datetime:
    body = answer.body
    if answer.status != 200 or not isinstance(body, dict) or not isinstance(body.get("now"), str):
        why = body.get("details") if isinstance(body, dict) and isinstance(body.get("details"), str) else None
        raise ShadowInputError(f"the {side} side's clock cannot be driven (the control API answered "
                               f"{answer.status}{f': {why}' if why else ''}): is it a promolab simulator?")
    return parse_instant(body["now"])
