"""`promolab replay`: an events file in, a timeline file out.

    promolab replay --scenario data/scenarios/demo.yaml --events data/events/demo_day.jsonl \\
        --out timeline.csv [--on-error stop|skip] [--no-progress] [--receiver NAME[=STATUS]]

Writes the timeline to `--out` (`.csv` or `.parquet`), and beside it the
balances (`<stem>.balances.<ext>`, wide: one column per card / gift voucher,
one row per line, 0 = opening) and the webhook delivery log
(`<stem>.deliveries.<ext>`). Prints a summary at the end (gift card money in
the scenario's currency). Exit status: 0 when the replay ran to the end
(refusals are outcomes, not failures), 1 when it stopped at a line, 2 when an input cannot be read (a
line's `at` that is not an instant the simulator holds included, whatever `--on-error` says: refused
before any line runs) or an option is wrong: on either, nothing is written (the files are written all or none, by
`promolab.output_files`). 141: stdout a pipe closed early, handled in
`promolab.cli`.

Webhooks whose configuration names an in-process `receiver:` reach nothing
in a bare CLI process (every attempt is an `error`, retried); `--receiver
NAME` registers a recording receiver under NAME that answers 200 (or the
given STATUS, to rehearse a failing endpoint) and keeps every delivery it
got, written to `<stem>.webhooks.jsonl` (one object a line: receiver,
headers, body).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..output_files import Writer, write_all

if TYPE_CHECKING:
    import pandas as pd

    from ..sim import Simulator

__all__ = ["RecordingReceiver", "companion_path", "register_receivers", "run_replay", "write_frame"]

_FORMATS = (".csv", ".parquet")


def companion_path(out: Path, name: str) -> Path:
    """`timeline.csv` -> `timeline.<name>.csv`."""
    return out.with_name(f"{out.stem}.{name}{out.suffix}")


def write_frame(frame: pd.DataFrame, path: Path, *, index: bool = False) -> None:
    """CSV (times in ISO 8601 UTC, NA as empty) or Parquet (dtypes kept). Written as
    is: a command writes its files through `promolab.output_files.write_all`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".parquet":
        frame.to_parquet(path, index=index)
    else:
        frame.to_csv(path, index=index, date_format="%Y-%m-%dT%H:%M:%S.%fZ")


class RecordingReceiver:
    """An in-process webhook receiver that answers `status` and keeps what it got.

    `received`: one dict per delivery, in order: `receiver` (its name), `headers`
    and `body` (the JSON the service signed, parsed; the raw text if not JSON).
    Receivers are runtime only: registering one changes no state, so a replay
    with receivers has the same timeline apart from the delivery outcomes.
    """

    def __init__(self, name: str, status: int = 200, received: list[dict[str, Any]] | None = None) -> None:
        self.name = name
        self.status = status
        self.received: list[dict[str, Any]] = received if received is not None else []

    def __call__(self, headers: Mapping[str, str], body: bytes) -> int:
        text = body.decode("utf-8", errors="replace")
        try:
            payload: Any = json.loads(text)
        except ValueError:
            payload = text
        self.received.append({"receiver": self.name, "headers": dict(headers), "body": payload})
        return self.status


def register_receivers(sim: Simulator, specs: Sequence[str]) -> list[dict[str, Any]]:
    """Register a `RecordingReceiver` per `NAME[=STATUS]` (`*`: every receiver the
    scenario's webhooks name); returns the shared list they record into.
    ValueError for a name no webhook uses (a typo would otherwise record nothing)."""
    known = sorted({w.receiver for w in sim.state.webhooks.values() if w.receiver})
    received: list[dict[str, Any]] = []
    for spec in specs:
        name, _, status_text = spec.partition("=")
        name = name.strip()
        try:
            status = int(status_text) if status_text else 200
        except ValueError:
            raise ValueError(f"--receiver {spec!r}: STATUS must be an HTTP status, e.g. {name}=503") from None
        if not 100 <= status <= 599:
            raise ValueError(f"--receiver {spec!r}: STATUS must be an HTTP status (100-599)")
        names = known if name == "*" else [name]
        if name != "*" and name not in known:
            raise ValueError(f"--receiver {name!r}: no webhook of the scenario delivers to it "
                             f"(receivers: {', '.join(known) or 'none'})")
        for each in names:
            sim.register_receiver(each, RecordingReceiver(each, status, received))
    return received


def run_replay(args: argparse.Namespace) -> int:
    from ..scenario_file import open_scenario
    from .reader import first_bad_time
    from .results import ReplayError, ReplayResult, unrouted_receivers
    from .runner import replay

    out = Path(args.out)
    if out.suffix.lower() not in _FORMATS:
        print(f"promolab replay: --out must end in .csv or .parquet (got {out.name})", file=sys.stderr)
        return 2
    events = Path(args.events)
    if not events.is_file():
        print(f"promolab replay: events file not found: {events}", file=sys.stderr)
        return 2
    try:
        bad_time = first_bad_time(events)
    except UnicodeDecodeError as exc:  # read whole here, so the replay below reads it whole too
        print(f"promolab replay: {events} is not UTF-8 text ({exc.reason})", file=sys.stderr)
        return 2
    if bad_time is not None:  # input that cannot be read: refused before any line runs
        print(f"promolab replay: {events}:{bad_time.line}: {bad_time.key}: {bad_time.message} "
              f"(nothing run, nothing written)", file=sys.stderr)
        return 2
    sim, currency = open_scenario(args.scenario)
    specs = list(getattr(args, "receiver", None) or [])
    try:
        received = register_receivers(sim, specs)
    except ValueError as exc:
        print(f"promolab replay: {exc}", file=sys.stderr)
        return 2
    try:
        result: ReplayResult = replay(
            sim, events, on_error=args.on_error, progress=not getattr(args, "no_progress", False)
        )
    except ReplayError as exc:  # nothing written: a partial timeline would read as a finished one
        print(f"promolab replay: stopped at {events}:{exc.line}: {exc.key}: {exc.message} (nothing written; "
              f"--on-error skip records the line and goes on)", file=sys.stderr)
        return 1
    balances_out = companion_path(out, "balances")
    deliveries_out = companion_path(out, "deliveries")
    webhooks_out = out.with_name(f"{out.stem}.webhooks.jsonl")
    writers: dict[Path, Writer] = {out: partial(write_frame, result.timeline),
                                   balances_out: partial(write_frame, result.balance_table().reset_index()),
                                   deliveries_out: partial(write_frame, result.deliveries)}
    if specs:
        writers[webhooks_out] = partial(_write_received, received)
    try:
        write_all(writers)
    except OSError as exc:
        print(f"promolab replay: cannot write {exc.filename or out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"replayed {events} on {args.scenario}")
    print(result.summary(currency))
    unheard = unrouted_receivers(result.deliveries)
    if unheard:
        print(f"hint: nothing receives the webhooks of {', '.join(map(repr, unheard))} in this process: "
              f"--receiver {unheard[0]} (or --receiver '*') answers them and records what they got")
    print(f"timeline: {out}  ({len(result.timeline)} rows)")
    print(f"balances: {balances_out}  deliveries: {deliveries_out}  ({len(result.deliveries)} attempts)")
    if specs:
        print(f"webhooks received: {webhooks_out}  ({len(received)} deliveries)")
    return 0


def _write_received(received: list[dict[str, Any]], path: Path) -> None:
    """`<stem>.webhooks.jsonl`: one delivery a line, keys sorted (same run, same bytes)."""
    with path.open("w", encoding="utf-8") as handle:
        for delivery in received:
            handle.write(json.dumps(delivery, ensure_ascii=False, sort_keys=True) + "\n")
