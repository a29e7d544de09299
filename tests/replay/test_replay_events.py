"""Reading event sequences: aliases, sources, and every kind of malformed line
reported with its line number (promolab.replay.reader)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from replay_support import line

from promolab.replay import (
    ALIASES,
    FORMAT_KEYS,
    BadLine,
    Event,
    EventFormatError,
    check_events,
    iter_events,
    known_operations,
    read_events,
)
from promolab.replay.reader import ADVANCE, canonical_op, first_bad_time

GOOD = [
    line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T10:00:00Z"),
    line("advance", {"seconds": 60}),
]

#: (bad line, expected key): every way a line can be malformed.
MALFORMED = [
    ('{"op": "delete_reward", "args": {', "invalid_json"),
    ("not json at all", "invalid_json"),
    ("[1, 2, 3]", "invalid_line"),
    ('"delete_reward"', "invalid_line"),
    (line("delete_reward", {"reward_id": "x"}, when="now"), "invalid_line"),
    ('{"args": {"reward_id": "x"}}', "invalid_line"),
    ('{"op": "", "args": {}}', "invalid_line"),
    ('{"op": "delete_reward", "args": ["x"]}', "invalid_line"),
    ('{"op": "delete_reward", "args": {"reward_id": "x"}, "note": 5}', "invalid_line"),
    (line("explode_everything"), "unknown_operation"),
    (line("delete_reward", {"reward": "lrew_mug"}), "unknown_argument"),
    (line("delete_reward", {"reward_id": "lrew_mug", "force": True}), "unknown_argument"),
    (line("delete_webhook", {"webhook_id": "wh_crm"}), "missing_argument"),
    (line("delete_reward", {}), "missing_argument"),
    (line("delete_reward", {"reward_id": 5}), "invalid_argument"),
    (line("delete_reward", {"reward_id": None}), "invalid_argument"),
    (line("validate", {"request": [1, 2]}), "invalid_argument"),
    (line("validate", {"request": {}, "audience_rules_only": "yes"}), "invalid_argument"),
    (line("validate", {"request": {}, "filters": "promo"}), "invalid_argument"),
    (line("advance", {"seconds": -5}), "invalid_argument"),
    (line("advance", {"seconds": "60"}), "invalid_argument"),
    (line("advance", {"seconds": True}), "invalid_argument"),
    (line("advance", {"days": 10**400}), "invalid_argument"),
    (line("advance", {"days": 1e300}), "invalid_argument"),
    (line("advance", {"weeks": 1}), "unknown_argument"),
    (line("advance", {}), "missing_argument"),
    (line("delete_reward", {"reward_id": "x"}, at="yesterday"), "invalid_time"),
    (line("delete_reward", {"reward_id": "x"}, at="2026-03-06T10:00:00"), "invalid_time"),
    ('{"at": 1741255200, "op": "delete_reward", "args": {"reward_id": "x"}}', "invalid_time"),
    (line("delete_reward", {"reward_id": "x"}, at="9999-12-31T23:59:59-05:00"), "invalid_time"),
]


def test_format_keys_cover_the_table() -> None:
    assert {key for _, key in MALFORMED} <= set(FORMAT_KEYS) - {"time_in_past"}


@pytest.mark.parametrize(("bad", "key"), MALFORMED)
def test_a_malformed_line_is_reported_with_its_number(bad: str, key: str) -> None:
    lines = [*GOOD, bad, GOOD[1]]
    problems = check_events(lines)
    assert [(p.line, p.key) for p in problems] == [(3, key)]
    with pytest.raises(EventFormatError) as caught:
        read_events(lines)
    assert caught.value.line == 3
    assert caught.value.key == key
    assert str(caught.value).startswith("line 3: ")


def test_line_numbers_count_blank_lines_like_an_editor(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join([GOOD[0], "", "   ", line("nope"), GOOD[1]]) + "\n", encoding="utf-8")
    items = list(iter_events(path))
    assert [item.line for item in items] == [1, 4, 5]
    assert isinstance(items[1], BadLine) and items[1].key == "unknown_operation"


def test_sources_path_text_file_and_lists_agree(tmp_path: Path) -> None:
    text = "\n".join(GOOD) + "\n"
    path = tmp_path / "e.jsonl"
    path.write_text(text, encoding="utf-8")
    expected = read_events(GOOD)
    assert read_events(path) == expected
    assert read_events(str(path)) == expected
    assert read_events(text) == expected
    assert read_events(io.StringIO(text)) == expected
    assert read_events([json.loads(x) for x in GOOD]) == expected
    assert read_events(expected) == expected


def test_crlf_and_unicode_separators_inside_strings(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    note = "a note with\u2028a line separator"
    path.write_bytes((line("advance", {"seconds": 1}, note=note) + "\r\n").encode("utf-8") * 2)
    events = read_events(path)
    assert [e.line for e in events] == [1, 2]
    assert events[0].note == note


def test_event_fields_and_round_trip() -> None:
    [event] = read_events([line("delete_reward", {"reward_id": "lrew_retired"}, at="2026-03-06T11:00:00+01:00",
                                note="hello")])
    assert event == Event(1, "delete_reward", {"reward_id": "lrew_retired"},
                          datetime(2026, 3, 6, 10, 0, tzinfo=UTC), "hello")
    assert read_events([event.to_json()])[0] == event


@pytest.mark.parametrize(("alias", "name"), sorted(ALIASES.items()))
def test_aliases_normalise_to_registry_names(alias: str, name: str) -> None:
    assert name in known_operations()
    assert canonical_op(alias) == name


def test_alias_matching_is_forgiving_about_case_and_dashes() -> None:
    assert canonical_op("Custom-Event") == "track_event"
    assert canonical_op("ADD BALANCE") == "add_gift_balance"
    assert canonical_op("purchase_reward") == "purchase_reward"
    assert canonical_op("purchases") is None


def test_aliased_lines_carry_the_canonical_name() -> None:
    events = read_events([
        line("clock", {"minutes": 2}),
        line("custom_event", {"request": {"event": "newsletter_signup", "customer": {"source_id": "erin"}}}),
        line("validate_promotions", {"request": {}}),
    ])
    assert [e.op for e in events] == [ADVANCE, "track_event", "validate"]


def test_advance_units_are_summed_into_seconds() -> None:
    [a, b, c] = read_events([
        line("advance", {"hours": 1, "minutes": 30}),
        line("advance", {"days": 0.5}),
        line("advance", {}, at="2026-03-07T00:00:00Z"),
    ])
    assert a.args == {"seconds": 5400}
    assert b.args == {"seconds": 43200}
    assert c.args == {} and c.at == datetime(2026, 3, 7, tzinfo=UTC)


def test_every_operation_can_be_named() -> None:
    from promolab.sim.operations import OPERATIONS

    assert set(known_operations()) == {*(op.name for op in OPERATIONS), ADVANCE}


def test_optional_arguments_may_be_left_out() -> None:
    [event] = read_events([line("validate", {"request": {"order": {"amount": 1000}}})])
    assert event.args == {"request": {"order": {"amount": 1000}}}


def test_hand_built_events_are_checked_too() -> None:
    items = list(iter_events([
        Event(1, "delete_reward", {"reward": "x"}),
        Event(2, "clock", {}),
        Event(3, "clock", {"minutes": 1}),
        Event(4, "teleport", {}),
    ]))
    assert [(getattr(i, "key", "ok"), i.line) for i in items] == [
        ("unknown_argument", 1), ("missing_argument", 2), ("ok", 3), ("unknown_operation", 4)]
    assert items[2] == Event(3, ADVANCE, {"seconds": 60})


def test_a_byte_order_mark_is_not_part_of_line_one(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD[0].encode("utf-8") + b"\n")
    assert [e.op for e in read_events(path)] == ["delete_reward"]


@pytest.mark.parametrize(("typo", "suggested"), [
    ("purchase_rewrd", ["purchase_reward"]),
    ("Validate-Stackd", ["validate_stacked", "validate"]),  # case and dashes folded first
    ("trak", ["track_event"]),  # through the alias `track`
    ("redeem_stack", ["redeem_stacked"]),
    ("frobnicate", []),
])
def test_an_unknown_operation_suggests_the_closest_names_only(typo: str, suggested: list[str]) -> None:
    """"Did you mean" with the closest names (aliases read as what they stand for), never
    the whole list of operations."""
    from promolab.replay.arguments import unknown_operation

    message = unknown_operation(typo)
    assert message.startswith(f"unknown operation {typo!r}")
    if suggested:
        assert message.endswith(f"did you mean {' or '.join(map(repr, suggested))}?"), message
    else:
        assert "did you mean" not in message and "docs/replay.md" in message
    named = {op for op in known_operations() if repr(op) in message}
    assert named == set(suggested)  # the suggestions only, not all of them


_ISO_ISH = st.from_regex(r"-?\d{1,5}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,7})?)?(Z|[+-]\d\d:\d\d)?", fullmatch=True)


@given(at=st.one_of(_ISO_ISH, st.text(max_size=30), st.integers(), st.floats(), st.booleans(),
                    st.lists(st.integers(), max_size=2)))
@example(at="9999-12-31T23:59:59-05:00")
@example(at="0001-01-01T00:00:00+00:01")
@example(at="9999-12-31T23:59:59.999999Z")
def test_the_look_before_the_run_and_the_line_check_agree_on_every_at(at: object) -> None:
    """`first_bad_time` (the command's look at every `at` before line 1 runs)
    and the line-by-line check are one rule: the same `at` is refused by both,
    with the same message, or by neither."""
    events = [GOOD[0], json.dumps({"at": at, "op": "delete_reward", "args": {"reward_id": "x"}})]
    by_line = [bad for bad in check_events(events) if bad.key == "invalid_time"]
    before = first_bad_time(events)
    looked = None if before is None else (before.line, before.key, before.message)
    checked = None if not by_line else (by_line[0].line, by_line[0].key, by_line[0].message)
    assert looked == checked
