"""Property tests: random valid resources survive dump -> JSON -> parse unchanged."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from promolab.models import (
    INT32_MAX,
    INT64_MAX,
    AmountEffect,
    CalculationType,
    DiscountAdapter,
    Incentive,
    IncentiveStatus,
    Order,
    PromotionTier,
)

money = st.integers(0, INT64_MAX)
small_text = st.text(min_size=1, max_size=12)
hex_id = st.text("0123456789abcdef", min_size=1, max_size=16)
offsets = st.sampled_from(
    [UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=4, minutes=30))]
)
instants = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=offsets
)
metadata = st.dictionaries(
    small_text,
    st.one_of(st.integers(-(2**53), 2**53), small_text, st.booleans(), st.none()),
    max_size=3,
)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


every = st.fixed_dictionaries({"every": st.integers(1, INT64_MAX), "value": money})
by_metadata = st.fixed_dictionaries(
    {"every": st.integers(1, INT64_MAX), "value": money, "property": small_text}
)
reference = st.sampled_from(["product", "sku", "products_collection"]).flatmap(
    lambda kind: st.fixed_dictionaries({kind: st.fixed_dictionaries({"id": small_text})})
)
by_items = st.fixed_dictionaries(
    {
        "every": st.integers(1, INT64_MAX),
        "value": money,
        "applicable_to": st.lists(reference, min_size=1, max_size=3),
    }
)
SUB_OBJECT = {
    CalculationType.PRE_DISCOUNT_ORDER_AMOUNT: ("order", "amount", every),
    CalculationType.POST_DISCOUNT_ORDER_AMOUNT: ("order", "total_amount", every),
    CalculationType.ORDER_METADATA_VALUE: ("order", "metadata", by_metadata),
    CalculationType.CUSTOMER_METADATA_VALUE: ("customer", "metadata", by_metadata),
    CalculationType.PRE_DISCOUNT_ORDER_ITEMS_AMOUNT: ("order_items", "amount", by_items),
    CalculationType.POST_DISCOUNT_ORDER_ITEMS_AMOUNT: ("order_items", "subtotal_amount", by_items),
    CalculationType.ORDER_ITEMS_QUANTITY: ("order_items", "quantity", by_items),
}


@st.composite
def points_proportional(draw: st.DrawFn) -> dict[str, Any]:
    calculation_type = draw(st.sampled_from(list(CalculationType)))
    container, field, strategy = SUB_OBJECT[calculation_type]
    return {
        "calculation_type": calculation_type.value,
        "card_definition_id": draw(small_text),
        container: {field: draw(strategy)},
    }


DETAILS: dict[str, tuple[str, st.SearchStrategy[Any]]] = {
    "POINTS": ("points", st.fixed_dictionaries({"value": money, "card_definition_id": small_text})),
    "POINTS_PROPORTIONAL": ("points_proportional", points_proportional()),
    "MATERIAL": (
        "material",
        st.one_of(
            st.fixed_dictionaries({"product": st.fixed_dictionaries({"id": small_text})}),
            st.fixed_dictionaries(
                {"sku": st.fixed_dictionaries({"product_id": small_text, "id": small_text})}
            ),
        ),
    ),
    "DIGITAL": (
        "digital",
        st.one_of(
            st.fixed_dictionaries(
                {"discount_coupons": st.fixed_dictionaries({"campaign_id": small_text})}
            ),
            st.fixed_dictionaries(
                {
                    "gift_vouchers": st.fixed_dictionaries(
                        {"campaign_id": small_text, "balance": money}
                    )
                }
            ),
        ),
    ),
}


@st.composite
def incentives(draw: st.DrawFn) -> Incentive:
    kind = draw(st.sampled_from(list(DETAILS)))
    field, detail = DETAILS[kind]
    return Incentive(
        id="linc_" + draw(hex_id),
        name=draw(st.text(max_size=200)),
        type=kind,
        status=draw(st.sampled_from(list(IncentiveStatus))),
        stock=draw(st.integers(0, INT32_MAX)),
        created_at=draw(instants),
        updated_at=draw(optional(instants)),
        **{field: draw(detail)},
    )


order_items: st.SearchStrategy[dict[str, Any]] = st.builds(
    dict,
    product_id=optional(small_text),
    sku_id=optional(small_text),
    quantity=st.integers(0, INT64_MAX),
    discount_quantity=optional(st.integers(0, INT64_MAX)),
    initial_quantity=optional(st.integers(0, INT64_MAX)),
    amount=optional(money),
    discount_amount=optional(money),
    initial_amount=optional(money),
    applied_discount_amount=optional(money),
    price=optional(money),
    subtotal_amount=optional(money),
    product=optional(
        st.fixed_dictionaries(
            {"id": small_text},
            optional={"source_id": small_text, "name": small_text, "price": money},
        )
    ),
    sku=optional(
        st.fixed_dictionaries(
            {"id": small_text},
            optional={"source_id": small_text, "sku": small_text, "price": money},
        )
    ),
)

orders = st.builds(
    Order.model_validate,
    st.builds(
        dict,
        **{
            name: optional(money)
            for name in (
                "amount",
                "initial_amount",
                "discount_amount",
                "items_discount_amount",
                "total_discount_amount",
                "total_amount",
                "applied_discount_amount",
                "items_applied_discount_amount",
                "total_applied_discount_amount",
            )
        },
        items=st.lists(order_items, max_size=4),
        metadata=metadata,
        customer_id=optional(small_text),
        referrer_id=optional(small_text),
    ),
)

discounts = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("AMOUNT"),
            "amount_off": money,
            "effect": st.sampled_from([e.value for e in AmountEffect]),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("PERCENT"), "percent_off": st.integers(1, 100) | st.floats(0.01, 100)},
        optional={"amount_limit": money, "aggregated_amount_limit": money},
    ),
    st.fixed_dictionaries(
        {"type": st.just("FIXED"), "effect": st.sampled_from(["APPLY_TO_ORDER", "APPLY_TO_ITEMS"])},
        optional={"fixed_amount": money},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("UNIT"),
            "unit_off": money,
            "unit_type": st.just("prod_") | st.just("sku_"),
        },
        optional={"effect": st.sampled_from(["ADD_NEW_ITEMS", "ADD_MISSING_ITEMS"])},
    ).map(lambda d: d | {"unit_type": f"{d['unit_type']}x"}),
).map(DiscountAdapter.validate_python)


def assert_round_trip(model: BaseModel) -> None:
    text = model.model_dump_json()
    again = type(model).model_validate_json(text)
    assert again == model
    assert again.model_dump_json() == text
    assert json.loads(text) == model.model_dump(mode="json")


@settings(max_examples=200)
@given(incentives())
def test_incentive_round_trips(incentive: Incentive) -> None:
    assert_round_trip(incentive)
    dumped = incentive.model_dump(mode="json")
    present = {"points", "points_proportional", "material", "digital"} & dumped.keys()
    assert present == {DETAILS[incentive.type.value][0]}
    assert dumped["created_at"].endswith("Z")


@settings(max_examples=200)
@given(orders)
def test_order_round_trips(order: Order) -> None:
    assert_round_trip(order)
    dumped = order.model_dump(mode="json")
    assert "customer_id" in dumped and "referrer_id" in dumped
    assert all(value is not None for key, value in dumped.items() if key.endswith("amount"))


@given(discounts, orders, small_text)
def test_promotion_tier_round_trips(discount: Any, order: Order, name: str) -> None:
    tier = PromotionTier.model_validate(
        {
            "valid": True,
            "tracking_id": "track_x",
            "order": order.model_dump(),
            "id": "promo_1",
            "name": name,
            "discount": DiscountAdapter.dump_python(discount),
            "campaign": {"id": "camp_1", "active": True},
            "hierarchy": 1,
        }
    )
    assert_round_trip(tier)
    assert type(tier.discount) is type(discount)
