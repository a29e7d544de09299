"""Rendering hands the wire models aware datetimes instead of formatted text
(the GET-incentive hot path); the JSON must be what the text round trip gave."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from promolab import models
from promolab.sim.records import Incentive, Reward
from promolab.sim.render import iso, render_incentive, render_reward

OFFSETS = st.integers(min_value=-14 * 60, max_value=14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
INSTANTS = st.datetimes(min_value=datetime(1971, 1, 2), max_value=datetime(9998, 12, 30), timezones=OFFSETS)


@given(created=INSTANTS, updated=st.none() | INSTANTS)
def test_incentive_json_is_the_same_as_through_text(created: datetime, updated: datetime | None) -> None:
    record = Incentive(id="linc_ab", name="Mug", type="MATERIAL", material={"product": {"id": "prod_mug"}},
                       created_at=created, updated_at=updated)
    through_text = models.Incentive.model_validate({
        "id": "linc_ab", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE", "stock": 2147483647,
        "material": {"product": {"id": "prod_mug"}}, "created_at": iso(created), "updated_at": iso(updated),
        "object": "incentive",
    })
    rendered = render_incentive(record)
    assert rendered.model_dump_json(by_alias=True) == through_text.model_dump_json(by_alias=True)
    assert rendered.created_at.tzinfo is not None and rendered.created_at.utcoffset() == timedelta(0)


@given(created=INSTANTS, updated=INSTANTS)
def test_reward_json_is_the_same_as_through_text(created: datetime, updated: datetime) -> None:
    record = Reward(id="lrew_a", name="Mug", type="MATERIAL", material={"product": {"id": "prod_mug"}},
                    created_at=created, updated_at=updated)
    rendered = render_reward(record).model_dump(mode="json")
    assert rendered["created_at"] == iso(created)
    assert rendered["updated_at"] == iso(updated)


def test_milliseconds_are_truncated_like_the_wire_format() -> None:
    record = Incentive(id="linc_ab", name="Mug", type="MATERIAL", material={"product": {"id": "prod_mug"}},
                       created_at=datetime(2026, 1, 1, 0, 0, 0, 999_999, tzinfo=UTC))
    assert render_incentive(record).model_dump(mode="json")["created_at"] == "2026-01-01T00:00:00.999Z"
