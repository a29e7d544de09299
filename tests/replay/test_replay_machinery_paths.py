"""The replay machinery's cheaper forms say what the plain ones say.

Companion of test_replay_fast_paths.py, for the second round of shortcuts:

- `events.item_fields` (a checked line as a plain tuple, what the runner
  takes) against `check_item` (the `Event` / `BadLine`);
- `events.instant`'s test of the journal's exact form (length and
  separators instead of the pattern) against `parse_instant`;
- the frame columns built by pyarrow / numpy (`columns.strings`, `ints`,
  `nullable_ints` on tuples, `times` without pandas' cache) against
  `pd.array` / `pd.to_datetime`;
- the summaries that read a wire model's attributes directly: the texts of
  the answers, of the same answers as dicts, and of objects missing some
  fields, written out by hand.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replay_support import line

from promolab.replay.columns import ints, nullable_ints, strings, times
from promolab.replay.reader import Event, check_item, item_fields
from promolab.replay.summaries import summarize
from promolab.sim.operations import BY_NAME


def _outcome(build: Any) -> tuple[str, Any]:
    try:
        return "ok", build()
    except Exception as exc:  # noqa: BLE001 - the kind of refusal is what is compared
        return "error", type(exc)


# -- a checked line as a tuple ----------------------------------------------------------------------
raw_lines = st.one_of(
    st.sampled_from([
        line("track_event", {"request": {"event": "order_placed", "customer": {"source_id": "alice"}}},
             at="2026-03-06T10:15:00.000Z", note="hi"),
        line("advance", {"minutes": 5}),
        line("clock", {}, at="2026-03-06T11:00:00Z"),
        line("advance", {}),
        line("purchase", {"program_id": "p", "member_id": "m", "request": {"reward_id": "r"}}),
        line("publish", {"request": {}, "join_once": "yes"}),
        line("teleport", {}),
        line("validate", {"request": {}}, at="2026-03-06T10:15:00"),
        line("validate", {"request": {}}, note=3),
        '{"op": "advance", "args": {"seconds": 1}, "extra": 1}',
        '{"op": "advance", "args": [1]}',
        '{"op": "advance", "args": {"seconds": -1}}',
        "[1, 2]",
        "{not json",
        "",
        "   ",
    ]),
    st.text(max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(raw_lines, st.integers(1, 10_000))
def test_item_fields_are_check_items_event(raw: str, number: int) -> None:
    expected = check_item(number, raw)
    fields = item_fields(number, raw)
    if isinstance(expected, Event):
        assert fields == (expected.line, expected.op, expected.args, expected.at, expected.note)
    else:
        assert fields == expected


@pytest.mark.parametrize("event", [
    Event(4, "clock", {"minutes": 2}),
    Event(5, "track_event", {"request": {}}, datetime(2026, 3, 6, tzinfo=UTC), "n"),
    Event(6, "teleport", {}),
    Event(7, "delete_reward", {"reward": "x"}),
])
def test_item_fields_recheck_events(event: Event) -> None:
    expected = check_item(99, event)
    fields = item_fields(99, event)
    if isinstance(expected, Event):
        assert fields == (expected.line, expected.op, expected.args, expected.at, expected.note)
    else:
        assert fields == expected


# -- frame columns ----------------------------------------------------------------------------------
texts_or_none = st.one_of(st.none(), st.text(max_size=8))


@given(st.lists(texts_or_none, max_size=30))
def test_strings_are_pd_array_string(values: list[str | None]) -> None:
    ours, theirs = _outcome(lambda: strings(tuple(values))), _outcome(lambda: pd.array(values, dtype="string"))
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        pd.testing.assert_extension_array_equal(ours[1], theirs[1])
        assert ours[1].dtype == theirs[1].dtype


@pytest.mark.parametrize("values", [(), ("a", 1), ("a", 2.5, None), ("a", float("nan")), ("\ud800",), (b"x",)])
def test_strings_give_pandas_answer_for_anything_else(values: tuple[Any, ...]) -> None:
    ours, theirs = _outcome(lambda: strings(values)), _outcome(lambda: pd.array(list(values), dtype="string"))
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        pd.testing.assert_extension_array_equal(ours[1], theirs[1])


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=30))
def test_ints_are_pd_array_int64(values: list[int]) -> None:
    ours = pd.Series(ints(tuple(values)))
    theirs = pd.Series(pd.array(values, dtype="int64"))
    pd.testing.assert_series_equal(ours, theirs)


@pytest.mark.parametrize("values", [(1, 2**63), (1, None), (1, 2.5), (1, True), (np.int64(3), 4), ("1",)])
def test_ints_give_pandas_answer_for_anything_else(values: tuple[Any, ...]) -> None:
    ours = _outcome(lambda: pd.Series(ints(values)))
    theirs = _outcome(lambda: pd.Series(pd.array(list(values), dtype="int64")))
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        pd.testing.assert_series_equal(ours[1], theirs[1])


@given(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), max_size=30))
def test_nullable_ints_of_a_tuple_are_pd_array(values: list[int | None]) -> None:
    pd.testing.assert_extension_array_equal(nullable_ints(tuple(values)), pd.array(values, dtype="Int64"))


def _reference_times(values: list[Any]) -> Any:
    if not values:
        return pd.Series([], dtype="datetime64[us, UTC]")
    return pd.Series(pd.to_datetime(values, utc=True)).astype("datetime64[us, UTC]").array


moments = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1),
                       timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)),
                                                  timezone(timedelta(hours=-8))]))


@given(st.lists(moments, max_size=30), st.integers(0, 3))
def test_times_are_pd_to_datetime(values: list[datetime], repeat: int) -> None:
    values = values + values[:repeat]  # repeated instants, as on the balance rows
    ours, theirs = times(tuple(values)), _reference_times(values)
    if not values:
        pd.testing.assert_series_equal(ours, theirs)
    else:
        pd.testing.assert_extension_array_equal(ours, theirs)


# -- summaries --------------------------------------------------------------------------------------
def _answers(fresh: Any) -> list[tuple[str, dict[str, Any], Any]]:
    sim = fresh()
    calls = [
        ("track_event", {"request": {"event": "order_placed", "customer": {"source_id": "alice"},
                                     "metadata": {"amount": 1200, "channel": "web"}}}),
        ("track_event", {"request": {"event": "review_written", "customer": {"source_id": "bob"},
                                     "metadata": {"rating": 4}}}),
        ("publish", {"request": {"campaign": {"id": "camp_newsletter"}, "customer": {"source_id": "carol"}},
                     "join_once": True}),
        ("add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 500}}),
        ("purchase_reward", {"program_id": "lprg_coffee_club", "member_id": "lmbr_alice",
                             "request": {"reward_id": "lrew_coupon"}}),
    ]
    return [(op, args, sim.apply(BY_NAME[op], **json.loads(json.dumps(args)))) for op, args in calls]


#: The summary of each answer above, written out by hand, read from the answer
#: itself, from its wire JSON, from an object missing its `customer` and
#: `voucher`, from None, and from an object whose `customer` and `voucher` are None.
SUMMARIES = [
    ["order_placed by alice"] * 2 + ["order_placed by None"] * 3,
    ["review_written by bob"] * 2 + ["review_written by None"] * 3,
    ["NEWS-PY25BK -> carol"] * 2 + ["None -> carol", "None -> None", "None -> None"],
    ["GIFT-ALICE-50 +$5.00 -> balance $55.00"] * 3 + ["GIFT-ALICE-50 - -> balance -"] * 2,  # $50 card, +$5
    ["TRANSACTION_CREATED lctx_fe0a73f5e44fa3b30d76b321 PENDING -300 points"] * 3 + ["None"] * 2,  # 300 points
]


def test_summaries_of_models_dicts_and_partial_objects(fresh: Any) -> None:
    for (op, args, answer), expected in zip(_answers(fresh), SUMMARIES, strict=True):
        as_dict = answer.model_dump(mode="json", by_alias=True)
        partial = SimpleNamespace(**{k: v for k, v in vars(answer).items() if k not in ("customer", "voucher")})
        forms = (answer, as_dict, partial, None, SimpleNamespace(customer=None, voucher=None))
        assert [summarize(op, args, value)[0] for value in forms] == expected, op