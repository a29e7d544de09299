"""The replay's fast paths say what the plain definitions say.

Replaying 20,000 lines made a few general computations worth replacing by
cheaper ones; each must agree with the one it replaces on any input:

- `events.loads` (pydantic-core's JSON reader, `json.loads` as fallback)
  against `json.loads`: same value for every document, same refusal (and
  message) for every non-document;
- `events.instant` (`fromisoformat` for the journal's own `...Z` form)
  against `parse_instant`;
- `columns.category` / `nullable_ints` against `pd.Categorical` /
  `pd.array(..., dtype="Int64")`;
- lines are checked one at a time as the replay reaches them (not all up
  front), yet a source that cannot be read still fails before anything is
  applied;
- the automatic garbage collector is paused only while a replay runs (the
  runner collects the young generations itself), left alone when the process
  disabled it, and nothing the process froze is thawed.
"""

from __future__ import annotations

import gc
import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from replay_support import line

from promolab.replay import ReplayError, replay
from promolab.replay.columns import category, nullable_ints
from promolab.replay.reader import check_item, instant, loads
from promolab.sim.clock import parse_instant
from promolab.sim.operations import BY_NAME


# -- JSON -------------------------------------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    """Equal, with the types kept (1 vs 1.0 vs True), NaN equal to NaN and
    -0.0 told from 0.0; dict key order counts (it is the line's order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", parse(text)
    except json.JSONDecodeError as exc:
        return "error", (exc.msg, exc.lineno, exc.colno)
    except (ValueError, RecursionError) as exc:  # json.loads' own non-JSONDecodeError refusals
        return "error", type(exc).__name__


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)

#: Text near JSON: fragments a line may contain, glued at random.
near_json = st.lists(
    st.sampled_from([
        "{", "}", "[", "]", ",", ":", '"', "\\", "\\u", "\\ud800", "\\udc00", "\\n", "\\x", "0", "01", "-",
        "1.", ".5", "1e", "1e5", "+1", "NaN", "Infinity", "-Infinity", "nan", "true", "false", "null", "tru",
        " ", "\t", "\n", "\r", "\x0c", "\x00", "\x1f", "\u2028", "\ufeff", "é", "a", "op", "at", "args",
    ]),
    max_size=14,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(json_values, st.sampled_from([{}, {"separators": (",", ":")}, {"ensure_ascii": False}, {"indent": 1}]))
def test_loads_reads_every_document_as_json_loads_does(value: Any, style: dict[str, Any]) -> None:
    text = json.dumps(value, **style)
    assert _same(loads(text), json.loads(text))


@settings(max_examples=600, deadline=None)
@given(near_json)
@example('"\\ud83d"')  # a lone surrogate escape: pydantic-core refuses it, json.loads takes it
@example("[" * 300 + "]" * 300)  # deeper than pydantic-core's nesting limit
@example('{"a": 1, "a": 2}')
@example('"\x01"')
@example("1_000")
def test_loads_accepts_and_refuses_what_json_loads_does(text: str) -> None:
    ours, theirs = _outcome(loads, text), _outcome(json.loads, text)
    assert ours[0] == theirs[0], text
    if ours[0] == "ok":
        assert _same(ours[1], theirs[1]), text
    else:
        assert ours[1] == theirs[1], text


def test_an_unreadable_line_reports_json_loads_message() -> None:
    bad = check_item(3, '{"at": "2026-03-09T00:00:00Z", "op": "delete_webhook", ')
    reference = None
    try:
        json.loads('{"at": "2026-03-09T00:00:00Z", "op": "delete_webhook", ')
    except json.JSONDecodeError as exc:
        reference = f"not valid JSON ({exc.msg} at column {exc.colno})"
    assert bad is not None and bad.key == "invalid_json" and bad.message == reference  # type: ignore[union-attr]


# -- instants ---------------------------------------------------------------------------------------
def _instant_outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        value = parse(text)
    except (ValueError, OverflowError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    return "ok", (value, value.tzinfo, value.utcoffset())


instant_like = st.builds(
    lambda date, time, frac, zone, pad: f"{pad}{date}{time}{frac}{zone}{pad}",
    st.sampled_from(["2026-03-06", "2026-02-30", "0999-01-01", "9999-12-31", "2026-3-6", "20260306", "2026-W10-5"]),
    st.sampled_from(["T10:00:00", "T23:59:59", "T24:00:00", "T10", "T10:00", " 10:00:00", "T10:00:60", ""]),
    st.sampled_from(["", ".1", ".123", ".123456", ".1234567", ",5", "."]),
    st.sampled_from(["Z", "z", "ZZ", "+00:00", "+01:30", "-05:00", "", "+0000", "Z+00:00"]),
    st.sampled_from(["", " ", "\n"]),
)


@settings(max_examples=500, deadline=None)
@given(instant_like | st.text(max_size=30))
@example("2026-03-06T10:15:00.250Z")
@example("2026-03-06Z")
@example("9999-12-31T23:59:59-05:00")
def test_instant_is_parse_instant(text: str) -> None:
    assert _instant_outcome(instant, text) == _instant_outcome(parse_instant, text)


#: 24 characters with the journal's separators, anything in the digit places.
journal_like = st.lists(
    st.sampled_from(list("0123456789") + ["a", " ", "+", "-", "Z", ".", ":", "T", "\u0662", "\uff11", "_", "e"]),
    min_size=17, max_size=17,
).map(lambda c: f"{''.join(c[0:4])}-{''.join(c[4:6])}-{''.join(c[6:8])}T{''.join(c[8:10])}:"
                f"{''.join(c[10:12])}:{''.join(c[12:14])}.{''.join(c[14:17])}Z")


@settings(max_examples=500, deadline=None)
@given(journal_like)
@example("2026-03-06T10:15:00.2+0Z")
@example("2026-03-06T10:15:0a.000Z")
@example("\u0662026-03-06T10:15:00.000Z")
@example("2026-03-06T24:00:00.000Z")
@example("2026-02-30T10:15:00.000Z")
@example("0000-03-06T10:15:00.000Z")
@example("2026-03-06T10:15:00.-01Z")
@example("2026-03-06T10:15:00.000Z")
def test_instant_of_the_journal_form_is_parse_instant(text: str) -> None:
    assert _instant_outcome(instant, text) == _instant_outcome(parse_instant, text)


@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 30)))
def test_instant_reads_what_the_journal_writes(moment: datetime) -> None:
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    parsed = instant(text)
    assert parsed == parse_instant(text) and parsed.tzinfo is UTC


# -- frames -----------------------------------------------------------------------------------------
CATEGORIES = ["advance", "publish", "track_event", "validate"]


@given(st.lists(st.sampled_from([*CATEGORIES, None]), max_size=40))
def test_category_is_pd_categorical(values: list[str | None]) -> None:
    ours = category(values, CATEGORIES)
    reference = pd.Categorical(values, categories=CATEGORIES)
    pd.testing.assert_extension_array_equal(ours, reference)
    assert ours.dtype == reference.dtype


ints_or_none = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))


@given(st.lists(ints_or_none, max_size=40))
def test_nullable_ints_is_pd_array(values: list[int | None]) -> None:
    pd.testing.assert_extension_array_equal(nullable_ints(values), pd.array(values, dtype="Int64"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("values", [[1, 2**63], [1, None, 2.5], [1, True], [np.int64(3), None]])
def test_nullable_ints_gives_pandas_answer_for_anything_else(values: list[Any]) -> None:
    ours = _outcome_of(lambda: nullable_ints(values))
    theirs = _outcome_of(lambda: pd.array(values, dtype="Int64"))
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        pd.testing.assert_extension_array_equal(ours[1], theirs[1])


def _outcome_of(build: Any) -> tuple[str, Any]:
    try:
        return "ok", build()
    except Exception as exc:  # noqa: BLE001 - the kind of refusal is what is compared
        return "error", type(exc)


# -- reading and checking ---------------------------------------------------------------------------
def test_a_source_that_is_not_utf8_fails_before_any_line_applies(fresh: Any, tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    good = line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T10:05:00Z")
    path.write_bytes(good.encode() + b"\n" + good.encode() + b"\n\xff\xfe not utf-8\n")
    sim = fresh()
    before = sim.dump_json()
    with pytest.raises(UnicodeDecodeError):
        replay(sim, path)
    assert sim.dump_json() == before


def test_a_source_that_raises_fails_before_any_line_applies(fresh: Any) -> None:
    def lines() -> Any:
        yield line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T10:05:00Z")
        raise OSError("the disk went away")

    sim = fresh()
    before = sim.dump_json()
    with pytest.raises(OSError, match="disk"):
        replay(sim, lines())
    assert sim.dump_json() == before


# -- the collector ----------------------------------------------------------------------------------
GIFT = line("add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 500}},
            at="2026-03-06T10:05:00Z")


def guests(count: int) -> list[Any]:
    return [line("track_event", {"request": {"event": "review_written", "customer": {"source_id": f"guest-{k}"},
                                             "metadata": {"rating": 5}}}) for k in range(count)]


def test_replay_pauses_the_collector_only_while_it_runs(fresh: Any) -> None:
    seen: list[bool] = []

    def receiver(headers: Any, body: bytes) -> None:
        seen.append(gc.isenabled())

    sim = fresh()
    sim.register_receiver("crm", receiver)
    sim.register_receiver("notebook", receiver)
    frozen, thresholds = gc.get_freeze_count(), gc.get_threshold()
    assert gc.isenabled()
    replay(sim, [GIFT])
    assert seen and not any(seen)  # paused while the line ran
    assert gc.isenabled()
    # nothing else of the collector's process-wide state changed
    assert (gc.get_freeze_count(), gc.get_threshold()) == (frozen, thresholds)


def test_replay_collects_only_young_generations_on_its_own_schedule(fresh: Any) -> None:
    """No automatic pass runs during the lines (none of the full passes that
    walk the grown state); the runner's own collections are of the young
    generations, one every `COLLECT_EVERY` lines."""
    from promolab.replay import collector

    generations: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    sim = fresh()
    gc.collect()
    gc.callbacks.append(count)
    try:
        replay(sim, guests(3 * collector.COLLECT_EVERY))
    finally:
        gc.callbacks.remove(count)
    assert generations == [1, 1, 1]


def test_a_cycle_made_during_a_replay_is_freed_by_the_young_collections(fresh: Any) -> None:
    """Pausing the collector does not leak: a receiver that leaves reference
    cycles behind at every delivery has them collected during the replay."""
    import weakref

    from promolab.replay import collector

    class Node:
        other: Node | None = None

    refs: list[weakref.ref[Node]] = []

    def receiver(headers: Any, body: bytes) -> None:
        node = Node()
        node.other = node  # a cycle
        refs.append(weakref.ref(node))

    sim = fresh()
    sim.register_receiver("crm", receiver)
    replay(sim, [GIFT, *guests(collector.COLLECT_EVERY + 1)])
    assert refs and refs[0]() is None  # collected by the runner's young collection


def test_replay_puts_the_collector_back_when_it_stops(fresh: Any) -> None:
    with pytest.raises(ReplayError):
        replay(fresh(), [line("teleport", {})])
    assert gc.isenabled()


def test_replay_leaves_a_disabled_collector_and_frozen_objects_alone(fresh: Any) -> None:
    sim = fresh()
    gc.disable()
    try:
        replay(sim, [line("advance", {"minutes": 1})])
        assert not gc.isenabled()
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        replay(sim, [line("advance", {"minutes": 1})])
        # Not thawed by the replay: a thaw empties the permanent generation. Frozen
        # objects freed meanwhile (a cache entry replaced) leave it one by one, so
        # the count may drop by a few (seen on 3.11), never to a fraction of it.
        assert frozen - 1000 <= gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


# -- end to end -------------------------------------------------------------------------------------
def test_replay_of_a_busy_mixed_sequence_matches_the_same_calls_made_directly(fresh: Any) -> None:
    """Every line kind of the benchmark's mix, checked against `sim.apply`
    called directly: same final state, same refusals."""
    from promolab.sim.refusals import SimError

    start = datetime(2026, 3, 6, 10, 0, tzinfo=UTC)
    entries: list[tuple[datetime, str, dict[str, Any]]] = []
    who = ["alice", "bob", "carol", "dave", "erin", "frank", "guest-1", "guest-2"]
    for i in range(160):
        at = start + timedelta(seconds=97 * i)
        person = who[i % len(who)]
        kind = i % 8
        if kind in (0, 1, 2):
            entries.append((at, "track_event", {"request": {"event": "order_placed", "customer": {"source_id": person},
                                                            "metadata": {"amount": 1500 + 37 * i, "channel": "web"}}}))
        elif kind == 3:
            entries.append((at, "validate", {"request": {"customer": {"source_id": person}, "order": {
                "items": [{"product_id": "prod_mug", "quantity": 1 + i % 3}]}}}))
        elif kind == 4:
            entries.append((at, "publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                                        "customer": {"source_id": person}}, "join_once": True}))
        elif kind == 5:
            member = ["lmbr_alice", "lmbr_bob", "lmbr_dave"][i % 3]
            entries.append((at, "purchase_reward", {"program_id": "lprg_coffee_club", "member_id": member,
                                                    "request": {"reward_id": "lrew_coupon"}}))
        elif kind == 6:
            entries.append((at, "add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 500}}))
        else:
            entries.append((at, "track_event", {"request": {"event": "review_written",
                                                            "customer": {"source_id": person},
                                                            "metadata": {"rating": 1 + i % 5}}}))
    direct = fresh()
    refused_direct = 0
    for at, op, args in entries:
        if at > direct.now:
            direct.advance(at - direct.now)
        try:
            direct.apply(BY_NAME[op], **json.loads(json.dumps(args)))
        except SimError:
            refused_direct += 1
    replayed = fresh()
    text = "\n".join(line(op, args, at=at.strftime("%Y-%m-%dT%H:%M:%S.000Z")) for at, op, args in entries)
    result = replay(replayed, text)
    assert replayed.dump_json() == direct.dump_json()
    assert result.refused == refused_direct and result.applied == len(entries) - refused_direct
    assert datetime.fromisoformat(replayed.dump()["clock"]).astimezone(UTC) == entries[-1][0]
