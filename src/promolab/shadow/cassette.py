"""The cassette: every exchange of a shadow run, one JSON object a line.

The first line is a header: `{"cassette": "promolab.shadow/1", "target": ...,
"scenario": ..., "seed": ...}`. Every other line is one line of the script:

    {"line": 4, "op": "track_event", "at": "2026-03-06T10:15:00.000Z",
     "args": {...}, "note": "...", "clock": "2026-03-06T10:15:00.000Z",
     "real": {"request": {"method": "POST", "path": "...", "query": [],
              "body": {...}}, "status": 200, "body": {...}, "elapsed_ms": 41.2,
              "attempts": 1},
     "sim": {...the same for the simulator...}}

`args` are the line as the script wrote it; each side's `request` is what
that side was sent (ids rewritten for it, `ids.IdMap`). `clock` is the
simulated clock when the line ran. A side that was not sent the line (an
`advance` to a real service, a journal header) has `{"skipped": why}`
instead. No headers are kept: they carry the credentials.

A cassette is written line by line as the run goes (flushed after each), so
an interrupted run keeps what it did and resumes from it, and it is enough to
compute the report again without any network (`promolab shadow --cassette`).

**A cassette is input, read as strictly as a script.** `read_cassette`
checks every line before anything runs, and refuses the first that fails
with `CassetteError` (exit 2, "cassette line N: why"): JSON nested deeper
than `MAX_DEPTH` levels; a script part (`op`, `args`, `at`, `note`) a
script line would be refused for (the replay reader's own checks: a known
operation, its arguments and their types, an instant with a timezone); the
simulator's own control operations (`reset`, `restore`: a real service has
nothing to compare them with, and a re-diff would skip them); script line
numbers that do not increase; and a line whose recorded sides do not fit
its kind (a call whose real answer is `skipped` would be compared with
nothing, an `advance` carrying an answer was edited). Nothing is skipped
that the cassette did not record as skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..replay import Event
from ..replay.reader import BadLine, entry_fields, instant
from .calls import line_kind
from .errors import CassetteError

__all__ = ["FORMAT", "MAX_DEPTH", "CassetteWriter", "Exchange", "SideRecord", "read_cassette"]

#: The header's `cassette` value: this format, version 1.
FORMAT = "promolab.shadow/1"

#: The deepest nesting a cassette line may hold. A line is a few levels of
#: its own around two requests and two answers; the simulator refuses
#: request JSON deeper than 64 levels and its answers echo request metadata
#: a few levels down, so 128 leaves room for what a real service answers.
#: Deeper is refused before the diff walks it (deep enough, a RecursionError).
MAX_DEPTH = 128


@dataclass(frozen=True, slots=True)
class SideRecord:
    """What one side was sent for a line and what it answered."""

    request: dict[str, Any] | None = None
    status: int | None = None
    body: Any = None
    elapsed_ms: float | None = None
    attempts: int = 0
    #: Why the side was not sent the line (then nothing else is set).
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.skipped is not None:
            return {"skipped": self.skipped}
        return {"request": self.request, "status": self.status, "body": self.body,
                "elapsed_ms": self.elapsed_ms, "attempts": self.attempts}

    @classmethod
    def from_json(cls, data: Any, where: str) -> SideRecord:
        if not isinstance(data, dict):
            raise TypeError(f"{where} must be an object")
        if "skipped" in data:
            return cls(skipped=str(data["skipped"]))
        status = data.get("status")
        if not isinstance(status, int) or isinstance(status, bool):
            raise TypeError(f"{where}.status must be an integer")
        return cls(data.get("request"), status, data.get("body"), data.get("elapsed_ms"),
                   int(data.get("attempts", 1)))


@dataclass(frozen=True, slots=True)
class Exchange:
    """One script line on both sides."""

    line: int
    op: str
    args: dict[str, Any]
    real: SideRecord
    sim: SideRecord
    at: str | None = None
    note: str | None = None
    #: The simulated clock when the line ran.
    clock: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        entry = {"line": self.line, "op": self.op, "at": self.at, "args": self.args, "note": self.note,
                 "clock": self.clock, "real": self.real.to_json(), "sim": self.sim.to_json()}
        return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)

    def event(self) -> Event:
        """The script line this exchange ran."""
        return Event(self.line, self.op, self.args, instant(self.at) if self.at else None, self.note)

    @classmethod
    def from_json(cls, data: Any) -> Exchange:
        if not isinstance(data, dict):
            raise TypeError("an exchange is a JSON object")
        missing = [k for k in ("line", "op", "args", "real", "sim") if k not in data]
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        line, op, args = data["line"], data["op"], data["args"]
        if not isinstance(line, int) or isinstance(line, bool) or not isinstance(op, str) or not isinstance(args, dict):
            raise TypeError("line must be an integer, op a string, args an object")
        return cls(line, op, args, SideRecord.from_json(data["real"], "real"), SideRecord.from_json(data["sim"], "sim"),
                   data.get("at"), data.get("note"), data.get("clock"))


def header(*, target: str | None, scenario: str, seed: int | None) -> dict[str, Any]:
    """The first line of a cassette."""
    return {"cassette": FORMAT, "target": target, "scenario": scenario, "seed": seed}


class CassetteWriter:
    """Appends exchanges to a cassette file, each flushed when written."""

    def __init__(self, path: Path, head: dict[str, Any] | None) -> None:
        """A new cassette with `head` as its header, or (`head=None`) the end of
        an existing one, to resume."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] = open(path, "a" if head is None else "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        if head is not None:
            self._handle.write(json.dumps(head, separators=(",", ":")) + "\n")
            self._handle.flush()

    def write(self, exchange: Exchange) -> None:
        self._handle.write(exchange.to_json() + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def read_cassette(path: str | Path) -> tuple[dict[str, Any], list[Exchange]]:
    """(header, exchanges) of a cassette; `CassetteError` names the bad line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CassetteError(0, f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(0, f"{path}: {exc}") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise CassetteError(1, "empty file: a cassette starts with its header")
    try:
        head = json.loads(lines[0])
    except ValueError:
        raise CassetteError(1, "not JSON: a cassette starts with its header") from None
    if not isinstance(head, dict) or head.get("cassette") != FORMAT:
        raise CassetteError(1, f"not a shadow cassette (its header has no \"cassette\": \"{FORMAT}\")")
    exchanges: list[Exchange] = []
    for number, raw in enumerate(lines[1:], start=2):
        try:
            exchange = _checked(Exchange.from_json(_loads(raw)), number)
        except CassetteError:
            raise
        except json.JSONDecodeError as exc:
            raise CassetteError(number, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        except (TypeError, ValueError) as exc:
            raise CassetteError(number, str(exc)) from None
        if exchanges and exchange.line <= exchanges[-1].line:
            raise CassetteError(number, f"script line {exchange.line} comes after script line "
                                        f"{exchanges[-1].line}: lines are recorded once each, in order")
        exchanges.append(exchange)
    return head, exchanges


def _loads(raw: str) -> Any:
    """A line's JSON, at most `MAX_DEPTH` levels deep."""
    if raw.count("[") + raw.count("{") > MAX_DEPTH:  # only then can it be too deep: walk it
        try:
            value = json.loads(raw)
        except RecursionError:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
        stack: list[tuple[Any, int]] = [(value, 1)]
        while stack:
            item, depth = stack.pop()
            if isinstance(item, dict | list):
                if depth > MAX_DEPTH:
                    raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
                stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
        return value
    return json.loads(raw)


def _checked(exchange: Exchange, number: int) -> Exchange:
    """The exchange with its script part checked as a script line is (and its
    arguments in canonical form, as a run records them), or `CassetteError`."""
    entry: dict[str, Any] = {"op": exchange.op, "args": exchange.args}
    if exchange.at is not None:
        entry["at"] = exchange.at
    if exchange.note is not None:
        entry["note"] = exchange.note
    fields = entry_fields(entry, exchange.line)
    if isinstance(fields, BadLine):
        raise CassetteError(number, f"script line {exchange.line}: {fields.message}")
    _, op, args, _, _ = fields
    kind = line_kind(op)
    if kind == "simulator_only":
        raise CassetteError(number, f"script line {exchange.line} ({op}) is one of the simulator's own control operations, "
                         "which a real service has nothing to compare with (a run never records one)")
    recorded = exchange.real.skipped is None
    if kind == "call" and not recorded:
        raise CassetteError(number, f"script line {exchange.line} ({op}) is a call without the real side's answer "
                         f"(recorded as skipped: {exchange.real.skipped}): there is nothing to compare")
    if kind != "call" and recorded:
        raise CassetteError(number, f"script line {exchange.line} ({op}) is not a call of the service, yet it holds an answer "
                         "of the real side: the line was edited")
    if op == exchange.op and args is exchange.args:
        return exchange
    return Exchange(exchange.line, op, args, exchange.real, exchange.sim, exchange.at, exchange.note, exchange.clock)
