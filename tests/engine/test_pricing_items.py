"""Normalising the request's order: identification, prices, amounts, input errors."""

from __future__ import annotations

from typing import Any

import pytest

from promolab.engine import (
    Catalogue,
    CatalogueProduct,
    CatalogueSku,
    PricingInputError,
    normalize_order,
)

CAT = Catalogue(
    products=[
        CatalogueProduct("prod_book", "Books", "Comic Books", 2100),
        CatalogueProduct("prod_free", "free", "No price"),
    ],
    skus=[CatalogueSku("sku_comic", "ComicBook_1", "Comics1", "prod_book", 1700)],
)


def test_sku_price_wins_over_product_price() -> None:
    line = normalize_order(CAT, {"items": [{"sku_id": "sku_comic", "quantity": 2}]}).lines[0]
    assert (line.product_id, line.sku_id, line.price, line.amount) == (
        "prod_book",
        "sku_comic",
        1700,
        3400,
    )
    assert line.wire_product == {
        "id": "prod_book",
        "source_id": "Books",
        "name": "Comic Books",
        "price": 2100,
    }
    assert line.wire_sku == {
        "id": "sku_comic",
        "source_id": "ComicBook_1",
        "sku": "Comics1",
        "price": 1700,
    }


def test_request_price_wins_and_amount_is_echoed() -> None:
    order = normalize_order(
        CAT,
        {
            "items": [
                {"product_id": "prod_book", "price": 999, "quantity": 2},
                {"product_id": "prod_book", "amount": 5, "quantity": 3},
            ]
        },
    )
    assert [(ln.price, ln.amount) for ln in order.lines] == [(999, 1998), (2100, 5)]
    assert order.amount == 2003


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"source_id": "Books", "related_object": "product"}, ("prod_book", None)),
        ({"source_id": "Books"}, ("prod_book", None)),
        ({"source_id": "ComicBook_1", "related_object": "sku"}, ("prod_book", "sku_comic")),
        ({"product_id": "prod_book", "sku_id": "sku_comic"}, ("prod_book", "sku_comic")),
    ],
)
def test_identification(item: dict[str, Any], expected: tuple[str | None, str | None]) -> None:
    line = normalize_order(CAT, {"items": [item]}).lines[0]
    assert (line.product_id, line.sku_id) == expected


def test_order_amount_kept_as_sent() -> None:
    order = normalize_order(
        CAT, {"amount": 20050, "items": [{"product_id": "prod_book", "quantity": 1}]}
    )
    assert (order.amount, order.items_amount, order.initial_amount) == (20050, 2100, 20050)


def test_string_quantity_and_default_quantity() -> None:
    order = normalize_order(
        CAT, {"items": [{"product_id": "prod_book", "quantity": "3"}, {"product_id": "prod_book"}]}
    )
    assert [ln.quantity for ln in order.lines] == [3, 1]


def test_unknown_product_with_price_is_accepted() -> None:
    line = normalize_order(CAT, {"items": [{"product_id": "prod_new", "price": 300}]}).lines[0]
    assert (line.product, line.price, line.wire_product) == (None, 300, {"id": "prod_new"})


def test_unknown_sku_of_known_product_takes_product_price() -> None:
    line = normalize_order(
        CAT, {"items": [{"sku_id": "sku_new", "product_id": "prod_book"}]}
    ).lines[0]
    assert (line.sku, line.sku_id, line.price, line.wire_sku) == (
        None,
        "sku_new",
        2100,
        {"id": "sku_new"},
    )


def test_known_product_without_price_has_no_amount() -> None:
    order = normalize_order(CAT, {"items": [{"product_id": "prod_free"}]})
    assert (order.lines[0].price, order.lines[0].amount, order.amount) == (None, None, 0)


def test_empty_or_missing_order() -> None:
    for order_in in (None, {}, {"items": []}):
        order = normalize_order(CAT, order_in)
        assert (order.lines, order.amount, order.metadata) == ((), 0, {})


def test_customer_and_referrer_and_metadata() -> None:
    order = normalize_order(
        CAT, {"metadata": {"a": 1}, "referrer_id": "cust_r"}, customer_id="cust_1"
    )
    assert (order.customer_id, order.referrer_id, dict(order.metadata)) == (
        "cust_1",
        "cust_r",
        {"a": 1},
    )


def test_item_rule_metadata_overlay() -> None:
    cat = Catalogue([CatalogueProduct("p", price=1, metadata={"a": 1, "b": 1})])
    line = normalize_order(
        cat,
        {"items": [{"product_id": "p", "product": {"metadata": {"b": 2}}, "metadata": {"c": 3}}]},
    ).lines[0]
    assert dict(line.metadata) == {"a": 1, "b": 2, "c": 3}


@pytest.mark.parametrize(
    ("order_in", "field"),
    [
        ("not an object", "order"),
        ({"items": {"product_id": "x"}}, "order.items"),
        ({"items": ["x"]}, "order.items[0]"),
        ({"items": [{"quantity": 1}]}, "order.items[0]"),
        (
            {"items": [{"product_id": "prod_book"}, {"product_id": "prod_nope"}]},
            "order.items[1].price",
        ),
        ({"items": [{"sku_id": "sku_nope"}]}, "order.items[0].price"),
        ({"items": [{"source_id": "nope", "related_object": "sku"}]}, "order.items[0].price"),
        ({"items": [{"product_id": "prod_book", "quantity": -1}]}, "order.items[0].quantity"),
        ({"items": [{"product_id": "prod_book", "quantity": 1.5}]}, "order.items[0].quantity"),
        ({"items": [{"product_id": "prod_book", "quantity": "1.5"}]}, "order.items[0].quantity"),
        ({"items": [{"product_id": "prod_book", "quantity": True}]}, "order.items[0].quantity"),
        ({"items": [{"product_id": "prod_book", "price": 10.5}]}, "order.items[0].price"),
        ({"items": [{"product_id": "prod_book", "price": "100"}]}, "order.items[0].price"),
        ({"items": [{"product_id": "prod_book", "price": -1}]}, "order.items[0].price"),
        ({"items": [{"product_id": "prod_book", "amount": 1.0}]}, "order.items[0].amount"),
        ({"items": [{"product_id": 42}]}, "order.items[0].product_id"),
        (
            {"items": [{"source_id": "Books", "related_object": "bundle"}]},
            "order.items[0].related_object",
        ),
        (
            {"items": [{"sku_id": "sku_comic", "product_id": "prod_free"}]},
            "order.items[0].product_id",
        ),
        ({"amount": "100"}, "order.amount"),
        ({"amount": -5}, "order.amount"),
        ({"metadata": []}, "order.metadata"),
        ({"items": [{"product_id": "prod_book", "metadata": "x"}]}, "order.items[0].metadata"),
    ],
)
def test_input_errors_name_the_field(order_in: Any, field: str) -> None:
    with pytest.raises(PricingInputError) as info:
        normalize_order(CAT, order_in)
    assert info.value.field == field
    assert info.value.message
