"""Running a script on both sides, line by line, into a cassette and a report.

`shadow(...)` sends each line to the target and to the simulator, pairs the
ids they create (`ids.IdMap`), compares the answers (`diff`) and writes every
exchange to the cassette as it goes. `rediff(cassette)` runs the recorded
lines again on a fresh simulator, taking the real answers from the cassette
instead of the network: after a change of the simulator or the scenario, a
team checks it against the answers the real service gave yesterday. Both are
the same loop (`_Run`): a line whose real answer is recorded is not sent to
the target, which is also how an interrupted run resumes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Required, TypedDict, Unpack

import httpx

from ..display import scenario_currency
from ..keywords import check_keywords
from ..replay import Event
from ..replay.reader import EventSource
from ..samples import demo_scenario
from ..sim import BY_NAME, Simulator, format_instant, read_scenario
from .calls import call_for, line_kind, read_script, write_lines
from .cassette import CassetteWriter, Exchange, SideRecord, header, read_cassette
from .diff import Difference, compare_answers, learn_ids
from .errors import RateLimited, ShadowInputError, ShadowInterrupted, WritesRefused
from .ids import IdMap
from .masking import DEFAULT_MASKS, Mask, Masking
from .money_fields import money_paths
from .pacing import SANDBOX, Pace, Pacer
from .report import ShadowReport
from .sides import Side, Target, simulator_side

__all__ = ["DEFAULT_SCENARIO", "ShadowOptions", "ShadowRun", "compare_exchange", "rediff", "shadow"]

_NOT_SENT_ADVANCE = "a real service keeps its own clock"
_NOT_A_CALL = "not a call of the service"


@dataclass
class ShadowRun:
    """A finished run: its exchanges, the report, the cassette it wrote."""

    exchanges: list[Exchange]
    report: ShadowReport
    cassette: Path | None = None
    ids: IdMap = field(default_factory=IdMap)
    #: The pacer's waits on the target (reason, seconds); empty offline.
    waits: list[tuple[str, float]] = field(default_factory=list)


def compare_exchange(exchange: Exchange, ids: IdMap, masking: Masking) -> list[Difference]:
    """The differences of one exchange (and the ids it pairs)."""
    real, sim = exchange.real, exchange.sim
    if real.skipped is not None or sim.skipped is not None:
        return []
    if real.status != sim.status:
        ids.note_answers(real.body, sim.body)
        return [Difference("", "status", real.status, sim.status)]
    learn_ids(exchange.op, real.body, sim.body, ids, masking)
    endpoint = BY_NAME[exchange.op].endpoint
    money = money_paths(endpoint) if (real.status or 0) < 300 else frozenset()
    found = compare_answers(exchange.op, real.body, sim.body, ids, masking, money)
    ids.note_answers(real.body, sim.body)
    return found


#: The scenario `shadow` and `rediff` run the simulator of when none is named:
#: the bundled demo (`samples.demo_scenario()`), wherever the package is
#: installed and whatever the working directory.
DEFAULT_SCENARIO: Path = demo_scenario()


class ShadowOptions(TypedDict, total=False):
    """The keywords of `shadow(script, **options)`: `target` required, the rest optional.

    A TypedDict rather than eleven parameters: callers write the same keywords
    as before, mypy checks each at every call, and `shadow` keeps to two
    parameters. A keyword not here is a TypeError naming the nearest one.
    """

    #: The real service (`Target`: base URL and keys).
    target: Required[Target]
    #: The simulator's scenario (default `DEFAULT_SCENARIO`).
    scenario: str | Path
    #: The simulator's seed (default: the scenario's).
    seed: int | None
    #: Where every exchange is written as it goes (default: nowhere).
    cassette: str | Path | None
    #: Do not send again the lines already in `cassette` (default False).
    resume: bool
    #: Run a script that writes (default False: refused, `WritesRefused`).
    allow_writes: bool
    #: What is masked before comparing (default `DEFAULT_MASKS`).
    masks: Masking | Iterable[Mask]
    #: The target's rate (default `SANDBOX`), or a `pacer` that holds one.
    pace: Pace
    pacer: Pacer | None
    #: The simulator's side (default: in-process, of `scenario`; e.g. a served one).
    simulator: Side | None
    #: A progress bar on stderr (default True).
    progress: bool


#: Written out: with postponed annotations typing cannot see `Required[...]`,
#: so `ShadowOptions.__required_keys__` is empty.
_REQUIRED = ("target",)


def shadow(script: EventSource, **options: Unpack[ShadowOptions]) -> ShadowRun:
    """Run `script` (journal/replay lines) against `target` and the simulator
    of `scenario` (in-process; or `simulator`, e.g. a served one) and report
    where they differ. Refuses a script that writes unless `allow_writes`.
    With `resume`, the lines already in `cassette` are not sent again.
    The options and their defaults: `ShadowOptions`."""
    check_keywords(options, ShadowOptions.__optional_keys__ | ShadowOptions.__required_keys__,
                   where="shadow() ", required=_REQUIRED)
    target = options["target"]
    scenario = options.get("scenario", DEFAULT_SCENARIO)
    seed = options.get("seed")
    cassette = options.get("cassette")
    resume = options.get("resume", False)
    allow_writes = options.get("allow_writes", False)
    masks = options.get("masks", DEFAULT_MASKS)
    pace = options.get("pace", SANDBOX)
    pacer = options.get("pacer")
    simulator = options.get("simulator")
    progress = options.get("progress", True)
    events = read_script(script)
    path = Path(cassette) if cassette is not None else None
    recorded: dict[int, Exchange] = {}
    if resume:
        if path is None or not path.exists():
            raise ShadowInputError("resume needs the cassette of the interrupted run")
        _, done = read_cassette(path)
        recorded = _check_resumable(done, events)
    refused = [w for w in write_lines(events) if w[0] not in recorded]
    if refused and not allow_writes:
        raise WritesRefused(refused)
    pacer = pacer if pacer is not None else Pacer(pace)
    real = Side.for_target(target, pacer)
    sim_side, currency, seed_used = _simulator_side(scenario, seed, simulator)
    writer = None
    if path is not None:
        writer = CassetteWriter(path, None if resume else header(target=target.base_url, scenario=str(scenario),
                                                                   seed=seed_used))
    run = _Run(real, sim_side, _masking(masks), recorded, writer)
    try:
        run.run(events, progress)
    finally:
        real.close()
        sim_side.close()
        if writer is not None:
            writer.close()
    return ShadowRun(run.exchanges, ShadowReport.build(run.compared, currency), path, run.ids, pacer.waits)


def rediff(
    cassette: str | Path,
    *,
    scenario: str | Path = DEFAULT_SCENARIO,
    seed: int | None = None,
    masks: Masking | Iterable[Mask] = DEFAULT_MASKS,
    simulator: Side | None = None,
    progress: bool = False,
) -> ShadowRun:
    """The report of a recorded run, computed again without any network: the
    cassette's lines run on a fresh simulator of `scenario` (the seed: the
    argument, else the cassette's), compared with its recorded real answers."""
    head, done = read_cassette(cassette)
    if seed is None and isinstance(head.get("seed"), int):
        seed = head["seed"]
    sim_side, currency, _ = _simulator_side(scenario, seed, simulator)
    # a line that cannot run is named by its line in the cassette (header: line 1)
    where = {e.line: f"cassette line {number}" for number, e in enumerate(done, start=2)}
    run = _Run(None, sim_side, _masking(masks), {e.line: e for e in done}, None, where)
    try:
        run.run([e.event() for e in done], progress)
    finally:
        sim_side.close()
    return ShadowRun(run.exchanges, ShadowReport.build(run.compared, currency), Path(cassette), run.ids)


def _masking(masks: Masking | Iterable[Mask]) -> Masking:
    return masks if isinstance(masks, Masking) else Masking(masks)


def _simulator_side(scenario: str | Path, seed: int | None, given: Side | None) -> tuple[Side, str, int | None]:
    """The simulator side, the currency money is shown in, and the seed used."""
    if given is not None:
        return given, scenario_currency(read_scenario(scenario)[0]), seed
    sim = Simulator.from_scenario(scenario, seed=seed)
    return simulator_side(sim), sim.currency, sim.seed


def _check_resumable(done: Sequence[Exchange], events: Sequence[Event]) -> dict[int, Exchange]:
    by_line = {e.line: e for e in events}
    for exchange in done:
        event = by_line.get(exchange.line)
        if event is None or event.op != exchange.op or event.args != exchange.args:
            raise ShadowInputError(f"the cassette's line {exchange.line} is not the script's: "
                                   "resume with the script the run started with")
    return {e.line: e for e in done}


class _Run:
    """The loop shared by a run, a resumed run and an offline re-diff."""

    def __init__(self, real: Side | None, sim: Side, masking: Masking, recorded: dict[int, Exchange],
                 writer: CassetteWriter | None, where: dict[int, str] | None = None) -> None:
        self.real = real
        self.sim = sim
        self.masking = masking
        self.recorded = recorded
        self.writer = writer
        #: How an error names a line (default: "script line N").
        self.where = where or {}
        self.ids = IdMap()
        self.exchanges: list[Exchange] = []
        self.compared: list[tuple[Exchange, list[Difference]]] = []

    def run(self, events: Sequence[Event], progress: bool) -> None:
        bar = _progress(len(events)) if progress else None
        done = 0
        try:
            for event in events:
                try:
                    exchange = self.line(event)
                except (RateLimited, httpx.TransportError, KeyboardInterrupt) as exc:
                    reason = str(exc) or type(exc).__name__
                    raise ShadowInterrupted(event.line, len(self.exchanges), reason) from exc
                except ShadowInputError as exc:  # a line that cannot run: named, nothing after it runs
                    where = self.where.get(event.line, f"script line {event.line}")
                    raise ShadowInputError(f"{where}: {exc}") from None
                if event.line not in self.recorded and self.writer is not None:
                    self.writer.write(exchange)
                self.exchanges.append(exchange)
                self.compared.append((exchange, compare_exchange(exchange, self.ids, self.masking)))
                done += 1
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()

    def line(self, event: Event) -> Exchange:
        self.ids.note_script(event.args)
        kind = line_kind(event.op)
        recorded = self.recorded.get(event.line)
        live_real = self.real if recorded is None else None
        if kind == "clock":
            for side in (self.sim, live_real):
                if side is not None and side.drives_clock:
                    _advance(side, event)
            sim = SideRecord(skipped="the clock moved")
            if recorded is not None:
                real = recorded.real
            elif live_real is not None and live_real.drives_clock:
                real = SideRecord(skipped="the clock moved")
            else:
                real = SideRecord(skipped=_NOT_SENT_ADVANCE)
            return self._exchange(event, real, sim)
        for side in (self.sim, live_real):
            if event.at is not None and side is not None and side.drives_clock:
                side.move_to(event.at)
        if kind != "call":
            return self._exchange(event, SideRecord(skipped=_NOT_A_CALL), SideRecord(skipped=_NOT_A_CALL))
        if recorded is not None:
            real = recorded.real
        elif live_real is None:
            raise ShadowInputError("no recorded real answer and no target")
        else:
            real = _send(live_real, event.op, self.ids.for_real(event.args))
        return self._exchange(event, real, _send(self.sim, event.op, self.ids.for_sim(event.args)))

    def _exchange(self, event: Event, real: SideRecord, sim: SideRecord) -> Exchange:
        at = event.at
        return Exchange(event.line, event.op, event.args, real, sim,
                        None if at is None else format_instant(at), event.note, self.sim.clock_text())


def _send(side: Side, op: str, args: dict[str, Any]) -> SideRecord:
    call = call_for(op, args)
    answer = side.send(call)
    return SideRecord(call.describe(), answer.status, answer.body, answer.elapsed_ms, answer.attempts)


def _advance(side: Side, event: Event) -> None:
    """An `advance` line on a side whose clock the run drives, as a replay
    reads it (docs/replay.md, "Time"): with `at` and `seconds`, an advance of
    `seconds` that ends at `at`."""
    seconds = event.args.get("seconds")
    if event.at is not None and seconds is not None:
        side.move_to(_shifted(event.at, -float(seconds)))
    elif event.at is not None:
        side.move_to(event.at)
        return
    now = side.now if side.now is not None else side.read_clock()
    _shifted(now, float(seconds or 0))
    side.advance(float(seconds or 0))


def _shifted(moment: datetime, seconds: float) -> datetime:
    """`moment` moved by `seconds`, or `ShadowInputError` when that leaves
    the calendar (`seconds: 1e308`, an advance of a million years): the
    arithmetic is checked here, before either side is asked to do it."""
    try:
        return moment + timedelta(seconds=seconds)
    except (OverflowError, ValueError):
        raise ShadowInputError(f"an advance of {seconds:g} s from {moment.isoformat()} leaves the calendar "
                               "(years 1 to 9999)") from None


def _progress(total: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="line", desc="shadow", mininterval=0.25, leave=False, file=sys.stderr)
