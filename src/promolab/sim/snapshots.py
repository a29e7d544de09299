"""Snapshots: what one holds, how one is checked before it is installed,
and how a restore is journaled without writing secrets it does not need.

A snapshot is `{"format", "seed", "clock", "ids", "state"}`, JSON-ready;
`Simulator.snapshot()` takes one and `Simulator.restore()` /
`load_snapshot()` install one, after `read_snapshot` has checked it whole
(nothing changes when it is refused).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from .clock import Clock
from .records._base import REDACTED
from .request_parsing import describe_validation_error
from .state import State

__all__ = ["SNAPSHOT_FORMAT", "Loaded", "fingerprint", "read_snapshot", "restore_args"]

SNAPSHOT_FORMAT = "promolab.snapshot/1"
_SNAPSHOT_KEYS = frozenset({"format", "seed", "clock", "ids", "state"})
#: The project's credentials that are secrets (what `_keep_secrets` keeps).
_CREDENTIAL_SECRETS = ("app_token", "access_token", "management_token")


@dataclass(frozen=True, slots=True)
class Loaded:
    """A checked snapshot, ready to install: `clock` as the snapshot wrote it
    (journaled as it is, to the microsecond), `at` the clock built from it."""

    seed: int
    clock: str
    counters: dict[str, int]
    at: Clock
    state: State


def restore_args(loaded: Loaded, running: State) -> dict[str, Any]:
    """The `restore` journal line's arguments: the snapshot as it will be
    installed, every secret equal to the running project's written as the
    redaction marker and `keep_secrets` set, which a replay (reaching the line
    with the same running secrets) turns back into the same values. A secret
    that IS the marker while the running one is not cannot be written that
    way (only an in-process `load_snapshot` without `keep_secrets` makes
    one): the snapshot is then journaled as installed, secrets in clear."""
    state = loaded.state.dump()
    slots: list[tuple[dict[str, Any], str, str | None]] = []
    running_creds = running.project.credentials
    credentials = state["project"]["credentials"]
    for name in _CREDENTIAL_SECRETS:
        slots.append((credentials, name, getattr(running_creds, name).get_secret_value()))
    for hook_id, hook in state["webhooks"].items():
        config = running.webhooks.get(hook_id)
        slots.append((hook, "secret", None if config is None else config.secret.get_secret_value()))
    clear = any(holder[key] == REDACTED and value not in (None, REDACTED) for holder, key, value in slots)
    if not clear:
        for holder, key, value in slots:
            if value is not None and holder[key] == value:
                holder[key] = REDACTED
    snapshot = {"format": SNAPSHOT_FORMAT, "seed": loaded.seed, "clock": loaded.clock, "ids": loaded.counters,
                "state": state}
    return {"snapshot": snapshot, "keep_secrets": not clear}


def _keep_secrets(new: State, current: State) -> None:
    creds, now_creds = new.project.credentials, current.project.credentials
    for name in _CREDENTIAL_SECRETS:
        if getattr(creds, name).get_secret_value() == REDACTED:
            setattr(creds, name, getattr(now_creds, name))
    for hook_id, hook in new.webhooks.items():
        running = current.webhooks.get(hook_id)
        if hook.secret.get_secret_value() == REDACTED and running is not None:
            hook.secret = running.secret


def read_snapshot(snapshot: Mapping[str, Any], *, keep_secrets_of: State | None = None) -> Loaded:
    """Check a snapshot and build what it restores, changing nothing:
    `ValueError` says what is wrong. Strict JSON types (a seed of `"7"`,
    `true` or `7.5` is refused, not converted), no unknown keys. Always
    `ValueError`, wrong types included: the one error callers turn into
    400 `invalid_payload`."""
    if not isinstance(snapshot, Mapping):
        raise ValueError(f"a snapshot is an object, not {type(snapshot).__name__}")  # noqa: TRY004
    if snapshot.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"not a promolab snapshot (format {snapshot.get('format')!r})")
    unknown = sorted(set(snapshot) - _SNAPSHOT_KEYS)
    if unknown:
        raise ValueError(f"unknown keys {unknown}; a snapshot has {', '.join(sorted(_SNAPSHOT_KEYS))}")
    missing = [key for key in ("seed", "clock", "ids", "state") if key not in snapshot]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    seed, clock, counters = snapshot["seed"], snapshot["clock"], snapshot["ids"]
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, not {seed!r}")  # noqa: TRY004
    if not isinstance(clock, str):
        raise ValueError(f"clock must be an ISO 8601 string, not {clock!r}")  # noqa: TRY004
    try:
        at = Clock(clock)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"clock {clock!r} is not an ISO 8601 instant with a timezone ({exc})") from None
    if not isinstance(counters, Mapping) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in counters.items()
    ):
        raise ValueError("ids must be an object of counters (integers >= 0)")
    if not isinstance(snapshot["state"], Mapping):
        raise ValueError("state must be an object")  # noqa: TRY004
    try:
        state = State.model_validate(snapshot["state"])
    except ValidationError as exc:
        raise ValueError(describe_validation_error(exc, ".state")) from None
    if keep_secrets_of is not None:
        _keep_secrets(state, keep_secrets_of)
    return Loaded(seed, clock, dict(counters), at, state)


def fingerprint(initial: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of a snapshot (the one a simulator was created or
    restored with), its seed, clock and id counters included, secrets left
    out: what a journal header names, so that a journal is never replayed
    onto another scenario. Two loads of the same scenario with the same seed
    give the same fingerprint, whatever the file's formatting; a change that
    alters the loaded state changes it."""
    image = {**initial, "state": State.model_validate(initial["state"]).model_dump(mode="json")}
    text = json.dumps(image, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
