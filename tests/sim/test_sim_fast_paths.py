"""The simulator's replay-speed shortcuts say what the plain definitions say.

- `render.iso` (direct formatting of a UTC instant) against `format_instant`;
- `models.vouchers._relative_list_url` (a pattern for the urls the simulator
  renders, before the full urlsplit/parse_qs check): the interface's rule
  case by case, and on generated urls;
- `publishing.publication_fingerprint` (written out) against `json.dumps`;
- `earning.points._proportional` (integer floor division) against the decimal
  arithmetic it skips;
- `loyalty.lookups.member_card` (one look at the lookups) against
  `members_of` + `card_for` and a full scan, through random histories that
  also change records behind the operations' back;
- earning reads metadata paths with the pricing rules' own `lookup`.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any
from urllib.parse import quote

import pytest
import test_derived_indexes as derived_indexes
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant
from pydantic_core import PydanticCustomError

from promolab.engine import lookup
from promolab.models.vouchers import _relative_list_url
from promolab.sim.clock import format_instant
from promolab.sim.earning import points as earning_points
from promolab.sim.loyalty.lookups import card_for, member_card, members_of
from promolab.sim.publishing import publication_fingerprint
from promolab.sim.render import iso

# -- timestamps -------------------------------------------------------------------------------------
zones = st.sampled_from([UTC, timezone(timedelta(0)), timezone(timedelta(hours=2)),
                         timezone(timedelta(hours=-5, minutes=-30))])


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=zones))
@example(datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))
@example(datetime(1000, 1, 1, tzinfo=UTC))
@example(datetime(2026, 3, 6, 10, 0, 0, 999, tzinfo=UTC))
def test_iso_is_format_instant(moment: datetime) -> None:
    assert iso(moment) == format_instant(moment)


def test_iso_of_a_pydantic_utc_instant() -> None:
    from promolab.sim.records import TrackedEvent

    record = TrackedEvent.model_validate({"id": "e", "name": "n", "customer_id": "c",
                                          "created_at": "2026-03-06T10:00:00.123456Z"})
    assert iso(record.created_at) == format_instant(record.created_at) == "2026-03-06T10:00:00.123Z"
    assert iso(None) is None


# -- list urls --------------------------------------------------------------------------------------
_RELATIVE = "list url should be a relative path such as /v1/..."
_PAGED = "list url should carry page and limit query parameters"

#: The interface's rule (a relative path with `page` and `limit` query
#: parameters), case by case: None where the url passes, unchanged.
LIST_URLS: list[tuple[str, str | None]] = [
    ("/v1/vouchers/NEWS-PY25BK/redemptions?page=1&limit=10", None),
    ("/v1/vouchers/A%2FB%20C/publications?page=1&limit=10", None),
    ("/?page=1&limit=10", None),
    ("/v1/vouchers?limit=10&page=1", None),
    ("/v1/vouchers?page=1&limit=10#f", None),
    ("/v1/vouchers?page=a&limit=b", None),
    ("/v1/vouchers?page=1&limit=10&x=1", None),
    ("/v1/vouchers/é?page=1&limit=10", None),
    ("//evil.example/x?page=1&limit=10", _RELATIVE),
    ("http://x/v1?page=1&limit=10", _RELATIVE),
    ("v1/vouchers?page=1&limit=10", _RELATIVE),
    ("?page=1&limit=10", _RELATIVE),
    ("", _RELATIVE),
    ("/v1/vouchers", _PAGED),
    ("/v1/vouchers?page=1", _PAGED),
    ("/v1/vouchers?page=&limit=10", _PAGED),
    ("/v1/vouchers?page=1;limit=10", _PAGED),
]


def _url_outcome(value: str) -> str | None:
    try:
        assert _relative_list_url(value) == value
    except PydanticCustomError as exc:
        return exc.message()
    return None


@pytest.mark.parametrize(("value", "refusal"), LIST_URLS)
def test_list_urls_follow_the_interface_rule(value: str, refusal: str | None) -> None:
    assert _url_outcome(value) == refusal


@given(st.text(min_size=1, max_size=12), st.sampled_from(["redemptions", "publications"]),
       st.integers(1, 10**6), st.integers(1, 100))
def test_every_url_the_simulator_renders_passes(code: str, kind: str, page: int, limit: int) -> None:
    url = f"/v1/vouchers/{quote(code, safe='')}/{kind}?page={page}&limit={limit}"
    assert _url_outcome(url) is None


@given(st.sampled_from(["http:", "https:", "x:", ""]), st.text(alphabet="abc.", min_size=1, max_size=6),
       st.sampled_from(["?page=1&limit=10", "/v1?page=1&limit=10", "/?limit=1&page=2"]))
def test_a_url_with_a_host_never_passes(scheme: str, host: str, rest: str) -> None:
    assert _url_outcome(f"{scheme}//{host}{rest}") == _RELATIVE


@given(st.text(alphabet="abcAZ09-._~%/?#&=: é", max_size=12))
def test_a_url_without_both_parameters_never_passes(path: str) -> None:
    url = "/" + path
    while "page=" in url or "limit=" in url:
        url = url.replace("page=", "").replace("limit=", "")
    assert _url_outcome(url) in (_RELATIVE, _PAGED)


# -- publication fingerprints -----------------------------------------------------------------------
names = st.one_of(st.none(), st.text(max_size=8), st.sampled_from(['a"b', "é", "\u2028", "\x00", "\\", "\ud800"]))


@given(names, names, names)
def test_fingerprint_is_json_dumps(customer_id: str | None, voucher_code: str | None, campaign_id: str | None) -> None:
    target = {"voucher": voucher_code} if voucher_code is not None else {"campaign": campaign_id}
    expected = json.dumps({"customer": customer_id, **target}, sort_keys=True, separators=(",", ":"))
    assert publication_fingerprint(customer_id, voucher_code, campaign_id) == expected


@pytest.mark.parametrize("odd", [7, 2.5, ("t",)])
def test_fingerprint_of_other_values_is_json_dumps(odd: Any) -> None:
    for args in [(odd, "CODE", None), ("cust", odd, None), ("cust", None, odd)]:
        voucher = args[1]
        target = {"voucher": voucher} if voucher is not None else {"campaign": args[2]}
        expected = json.dumps({"customer": args[0], **target}, sort_keys=True, separators=(",", ":"))
        assert publication_fingerprint(*args) == expected


# -- proportional points ----------------------------------------------------------------------------
def _reference_proportional(every_value: dict[str, Any] | None, x: Any) -> int:
    """The definition: `value` points per whole `every` in `x` (read as its
    decimal text), by exact rational arithmetic (decimal arithmetic in a
    28-digit context, which `_proportional` once used, raised past 28 digits);
    beyond a card's bound only "more than a card holds" matters (`_outcome`
    says "over"), since such a credit is refused whatever its exact size."""
    if not every_value:
        return 0
    every = int(every_value.get("every") or 0)
    value = int(every_value.get("value") or 0)
    number = earning_points._number(x)
    if every <= 0 or number is None or number < 0:
        return 0
    return value * math.floor(Fraction(number) / every)


def _points_outcome(func: Any, spec: dict[str, Any], x: Any) -> tuple[str, Any]:
    try:
        points = func(spec, x)
    except (InvalidOperation, ValueError, OverflowError) as exc:
        return "error", type(exc)
    if abs(points) > 2**63 - 1:  # refused by the planner whatever its size
        return "ok", "over" if points > 0 else "under"
    return "ok", points


amounts = st.one_of(
    st.integers(-(10**6), 10**7),
    st.integers(10**17, 10**19),
    st.integers(10**27, 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", " 7 ", "1e3", "abc", "", True, None, Decimal("12.5"), [1]]),
)


@given(st.fixed_dictionaries({"every": st.integers(-2, 10**20), "value": st.integers(-3, 50)}), amounts)
@example({"every": 100, "value": 1}, 4200)
@example({"every": 1, "value": 1}, 10**18 - 1)
@example({"every": 1, "value": 1}, 10**18)
@example({"every": 1, "value": 1}, 10**28)
def test_proportional_is_the_decimal_definition(spec: dict[str, Any], x: Any) -> None:
    assert _points_outcome(earning_points._proportional, spec, x) == _points_outcome(_reference_proportional, spec, x)


def test_earning_reads_paths_with_the_rules_lookup() -> None:
    assert earning_points.lookup is lookup
    assert not hasattr(earning_points, "_lookup")


# -- the card an event credits ----------------------------------------------------------------------
def _scan_member_card(sim: Any, customer_id: str, program_id: str, definition: str) -> Any:
    members = [m for m in sim.state.members.values() if m.customer_id == customer_id and m.program_id == program_id]
    for member in members:
        if member.status == "ACTIVE":
            return next((c for c in sim.state.cards.values()
                         if c.member_id == member.id and c.card_definition_id == definition), None)
    return None


def _checked_member_card(sim: Any, customer_id: str, program_id: str, definition: str) -> Any:
    for member in members_of(sim, customer_id, program_id):
        if member.status == "ACTIVE":
            return card_for(sim, member.id, definition)
    return None


def assert_member_card_matches(sim: Any) -> None:
    st_ = sim.state
    for customer in [*st_.customers, "cust_nope"]:
        for program in [*st_.programs, "lprg_nope"]:
            for definition in [*st_.card_definitions, "lcdef_nope"]:
                found = member_card(sim, customer, program, definition)
                assert found is _scan_member_card(sim, customer, program, definition)
                assert found is _checked_member_card(sim, customer, program, definition)


class MemberCardMachine(derived_indexes.DerivedIndexMachine):
    """The derived-index histories (operations, clock, snapshots, records
    changed behind the operations' back), with `member_card` checked too."""

    @invariant()
    def member_card_matches_the_scan(self) -> None:
        assert_member_card_matches(self.sim)


MemberCardMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestMemberCard = MemberCardMachine.TestCase


def test_member_card_after_records_are_replaced(sim: Any) -> None:
    """A membership or a card replaced by a new record (not through an
    operation): the lookups notice and answer with the live records."""
    st_ = sim.state
    member = st_.members["lmbr_alice"]
    st_.members[member.id] = member.model_copy(update={"status": "INACTIVE"})
    assert_member_card_matches(sim)
    st_.members[member.id] = member.model_copy()
    card = st_.cards["lcrd_alice_beans"]
    st_.cards[card.id] = card.model_copy(update={"balance": card.balance + 1})
    assert_member_card_matches(sim)
    assert member_card(sim, member.customer_id, member.program_id, card.card_definition_id) is st_.cards[card.id]
