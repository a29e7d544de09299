"""Every reader of dated orders takes a `placed_at` exactly or refuses it.

The analysis computes in pandas' nanosecond timestamps (1677-09-21 to
2262-04-11); `9999-12-31T00:00:00Z`, a common "no date", was cast into them
and came back as 1816-03-29 with exit 0 (issue 34, item 4). Now an order
is placed between `EARLIEST` (1678-01-01) and `LATEST` (2262-01-01,
excluded) or its row is refused: a `ValueError` naming the row and the
column in Python, exit 2 and that one line on the command line, never a
pandas message. Table-driven over the readers (the forecast and the sweep,
in Python and on the command line, CSV and Parquet) and over the ways a
time can arrive (ISO text with any offset, Python datetimes, datetime64
columns of any unit); the edges of the range are taken to the microsecond.
Replay reads its own times (`at`, a Python datetime): it holds any instant
of the calendar and refuses the rest, naming the line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.analysis import forecast, sweep
from promolab.analysis.order_fields import EARLIEST, LATEST, line_instants
from promolab.cli import main
from promolab.sim.clock import format_instant

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "data" / "scenarios" / "demo.yaml"
OUT_OF_RANGE = "is outside the instants an order may be placed at (1678-01-01 to 2261-12-31, UTC)"
#: What a message from pandas or numpy would say: none may reach the caller.
RAW = ("Overflow", "OutOfBounds", "out of bounds", "Traceback", "datetime64", "unit=")


@pytest.fixture(scope="module")
def demo() -> Simulator:
    return Simulator.from_scenario(DEMO)


def _lines(placed: list[Any], dtype: str | None = None) -> pd.DataFrame:
    """Three orders of two lines each (rows 0-5), `placed` per order."""
    frame = pd.DataFrame({
        "order_id": ["o1", "o1", "o2", "o2", "o3", "o3"],
        "product_id": ["prod_mug", "prod_filters"] * 3,
        "quantity": [1, 2] * 3,
    })
    per_line = [value for value in placed for _ in range(2)]
    frame["placed_at"] = pd.Series(per_line, dtype=dtype) if dtype else pd.Series(per_line, dtype=object)
    return frame


def _datetime64(unit: str, *texts: str) -> pd.Series:
    return pd.Series(pd.DatetimeIndex([np.datetime64(t, unit) for t in texts]).tz_localize("UTC"))


GOOD = "2026-03-06T10:00:00Z"

#: Times as text outside the range: (label, the text)
OUTSIDE_TEXT = [
    ("9999-12-31 as text", "9999-12-31T00:00:00Z"),
    ("9999-12-31 with an offset", "9999-12-31T23:59:59-05:00"),
    ("0001-01-01", "0001-01-01T00:00:00Z"),
    ("just before the range", "1677-12-31T23:59:59.999999Z"),
    ("the first instant after it", "2262-01-01T00:00:00Z"),
    ("past the nanosecond range", "2262-04-12T00:00:00Z"),
    ("a local time inside, UTC outside", "2261-12-31T23:30:00-01:00"),
]


def _order_two_at(text: str) -> Callable[[], pd.DataFrame]:
    return lambda: _lines([GOOD, text, GOOD])


#: (label, the frame, the message expected: row 2 is order o2's first line)
REFUSED: list[tuple[str, Callable[[], pd.DataFrame], str]] = [
    *((label, _order_two_at(text), f"row 2, column 'placed_at': {text!r} {OUT_OF_RANGE}")
      for label, text in OUTSIDE_TEXT),
    ("Python datetime of 9999", lambda: _lines([datetime(2026, 3, 6, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC),
                                                datetime(2026, 3, 7, tzinfo=UTC)]),
     f"row 2, column 'placed_at': '9999-12-31 00:00:00+00:00' {OUT_OF_RANGE}"),
    ("datetime64[us] column of 9999",
     lambda: _lines([None] * 3).assign(placed_at=_datetime64("us", *[t for t in ("2026-03-06", "9999-12-31",
                                                                                  "2026-03-07") for _ in "ab"])),
     f"row 2, column 'placed_at': '9999-12-31 00:00:00+00:00' {OUT_OF_RANGE}"),
    ("datetime64[s] column of the year 1000",
     lambda: _lines([None] * 3).assign(placed_at=_datetime64("s", *[t for t in ("2026-03-06", "1000-01-01",
                                                                                 "2026-03-07") for _ in "ab"])),
     f"row 2, column 'placed_at': '1000-01-01 00:00:00+00:00' {OUT_OF_RANGE}"),
    *((label, _order_two_at(text), f"row 2, column 'placed_at': not a timestamp: {text!r}")
      for label, text in [("a day the calendar lacks", "2026-02-30T00:00:00Z"),
                          ("a year past 9999", "10000-01-01T00:00:00Z"), ("a word", "never")]),
]

#: The edges of the range, and ordinary times, each taken exactly.
EDGES = ["1678-01-01T00:00:00Z", "2261-12-31T23:59:59.999999Z", "2026-03-06T10:00:00.123456+05:30"]


def _forecast(sim: Simulator, frame: pd.DataFrame) -> Any:
    return forecast(sim, frame, progress=False)


def _sweep(sim: Simulator, frame: pd.DataFrame) -> Any:
    return sweep(sim, frame, progress=False)


READERS = {"forecast": _forecast, "sweep": _sweep}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize(("label", "frame", "message"), REFUSED, ids=[case[0] for case in REFUSED])
def test_the_python_readers_refuse_the_row(demo: Simulator, reader: str, label: str,
                                          frame: Callable[[], pd.DataFrame], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        READERS[reader](demo, frame())
    assert str(caught.value) == message


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("command", ["forecast", "sweep"])
@pytest.mark.parametrize(("label", "frame", "message"), REFUSED, ids=[case[0] for case in REFUSED])
def test_the_commands_exit_2_with_one_line(command: str, suffix: str, label: str, frame: Callable[[], pd.DataFrame],
                                          message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    orders = tmp_path / f"orders{suffix}"
    lines = frame()
    if suffix == ".csv":
        lines.to_csv(orders, index=False)
    else:
        if lines["placed_at"].dtype == object:  # Parquet keeps text as text; datetimes as they are
            lines["placed_at"] = lines["placed_at"].map(str) if isinstance(lines["placed_at"][0], datetime) \
                else lines["placed_at"]
        lines.to_parquet(orders, index=False)
    out = tmp_path / "out.csv"
    argv = [command, "--scenario", str(DEMO), "--orders", str(orders), "--out", str(out), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"promolab {command}: ") and "row 2, column 'placed_at': " in err, err
    assert not any(raw in err for raw in RAW), err
    assert not out.exists()


@pytest.mark.parametrize("reader", list(READERS))
def test_the_edges_of_the_range_are_taken_exactly(demo: Simulator, reader: str) -> None:
    result = READERS[reader](demo, _lines(EDGES))
    placed = result.orders["placed_at"] if reader == "forecast" else result.placed_at
    got = sorted(t.to_pydatetime().astimezone(UTC) for t in placed)
    expected = sorted(datetime.fromisoformat(t).astimezone(UTC) for t in EDGES)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(moment=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)),
       offset=st.integers(-14 * 60, 14 * 60))
def test_an_instant_is_held_exactly_or_refused(moment: datetime, offset: int) -> None:
    """Exactly one of: the instant comes back to the microsecond, or its row
    is refused as outside the range; which one, the range alone decides."""
    zone = timedelta(minutes=offset)
    text = (moment + zone).replace(tzinfo=None).isoformat() + ("+" if offset >= 0 else "-") + \
        f"{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    inside = EARLIEST <= moment < LATEST
    try:
        got = line_instants(pd.Series([text], dtype=object))
    except ValueError as exc:
        assert not inside and str(exc) == f"row 0, column 'placed_at': {text!r} {OUT_OF_RANGE}"
        return
    assert inside
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    assert int(got[0]) == (moment - epoch) // timedelta(microseconds=1) * 1000


#: (the line's `at`, what the replay's timeline says, or the refusal's end)
REPLAY: list[tuple[str, str]] = [
    ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59.000Z"),
    ("2262-04-12T00:00:00Z", "2262-04-12T00:00:00.000Z"),
    ("9999-12-31T23:59:59-05:00", "invalid_time: at '9999-12-31T23:59:59-05:00': out of range"),
    ("2026-02-30T00:00:00Z", "invalid_time: at '2026-02-30T00:00:00Z': not an ISO 8601 instant"),
    ("2026-03-06T12:00:00", "has no timezone; write it with Z or an offset"),
]


@pytest.mark.parametrize(("at", "expected"), REPLAY, ids=[r[0] for r in REPLAY])
def test_replay_holds_any_calendar_instant_and_names_the_line_of_others(
    at: str, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text('{"op":"get_incentive","args":{"incentive_id":"linc_0a11ce01"}}\n'
                      f'{{"at":"{at}","op":"get_incentive","args":{{"incentive_id":"linc_0a11ce01"}}}}\n')
    out = tmp_path / "timeline.csv"
    status = main(["replay", "--scenario", str(DEMO), "--events", str(events), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    if expected.endswith("Z"):
        assert status == 0, err
        times = pd.read_csv(out)["time"].tolist()
        assert format_instant(datetime.fromisoformat(times[-1])) == expected
    else:
        assert status == 2  # docs/replay.md: a time that cannot be read is refused before anything runs
        assert err.count("\n") == 1 and f"{events}:2: " in err and expected in err, err
        assert err.rstrip().endswith("(nothing run, nothing written)") and not out.exists(), err
