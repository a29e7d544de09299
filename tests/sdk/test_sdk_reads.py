"""The official SDK lists and parses each read endpoint a pull needs, over real HTTP.

Each call goes through the SDK's own method and its answer is the SDK's
parsed model (a body its model refused would raise before any assert); the
assertions pin what the demo scenario holds, so a wrong page, order or
filter fails here too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import voucherify
from voucherify.exceptions import NotFoundException

pytestmark = pytest.mark.served

#: The demo's products in the order of the scenario file (all created at its start).
DEMO_PRODUCTS = ["prod_beans_ethiopia", "prod_beans_colombia", "prod_espresso_blend", "prod_mug", "prod_tote",
                 "prod_grinder", "prod_kettle", "prod_filters", "prod_5h1pp1ng"]


def test_products_page_by_page_newest_first(sdk: Any) -> None:
    api = voucherify.ProductsApi(sdk.client)
    first = api.list_products(limit=4)
    assert isinstance(first, voucherify.ProductsListResponseBody)
    assert (first.object, first.data_ref, first.total) == ("list", "products", len(DEMO_PRODUCTS))
    pages = [p.id for page in range(1, 4) for p in api.list_products(limit=4, page=page).products]
    assert pages == DEMO_PRODUCTS[::-1]  # -created_at: the reverse of the order they were made in
    ascending = api.list_products(limit=100, order=voucherify.ParameterOrder("created_at"))
    assert [p.id for p in ascending.products] == DEMO_PRODUCTS
    ethiopia = next(p for p in ascending.products if p.id == "prod_beans_ethiopia")
    assert [s.id for s in ethiopia.skus.data] == ["sku_ethiopia_250", "sku_ethiopia_1000"]
    later = api.list_products(start_date=datetime(2027, 1, 1, tzinfo=UTC))
    assert (later.total, later.products) == (0, [])


def test_a_product_its_skus_and_a_sku(sdk: Any) -> None:
    api = voucherify.ProductsApi(sdk.client)
    product = api.get_product("beans-ethiopia")  # a source id finds it too
    assert isinstance(product, voucherify.ProductsGetResponseBody)
    assert (product.id, product.price, product.skus.total) == ("prod_beans_ethiopia", 1800, 2)
    skus = api.list_skus_in_product("prod_beans_ethiopia", limit=1, page=2, order=voucherify.ParameterOrder("created_at"))
    assert isinstance(skus, voucherify.ProductsSkusListResponseBody)
    assert (skus.total, [s.id for s in skus.skus]) == (2, ["sku_ethiopia_1000"])
    sku = api.get_sku("sku_ethiopia_1000")
    assert isinstance(sku, voucherify.SkusGetResponseBody)
    assert (sku.product_id, sku.sku, sku.price) == ("prod_beans_ethiopia", "1 kg", 6200)
    with pytest.raises(NotFoundException):
        api.get_product("prod_nope")
    with pytest.raises(NotFoundException):
        api.get_sku("sku_nope")


def test_collections_and_their_members(sdk: Any) -> None:
    api = voucherify.ProductCollectionsApi(sdk.client)
    collections = api.list_product_collections(order=voucherify.ParameterOrder("created_at"))
    assert isinstance(collections, voucherify.ProductCollectionsListResponseBody)
    assert [(c.id, c.type) for c in collections.data] == [("pc_beans", "STATIC"), ("pc_gear", "STATIC"),
                                                          ("pc_merch", "STATIC")]
    members = api.list_products_in_collection("pc_beans", limit=2, order=voucherify.ParameterOrder("created_at"))
    assert isinstance(members, voucherify.ProductCollectionsProductsListResponseBody)
    assert members.total == 3
    assert [m.id for m in members.data] == ["prod_beans_ethiopia", "prod_beans_colombia"]
    with pytest.raises(NotFoundException):
        api.list_products_in_collection("pc_nope")


def test_a_customers_segments_and_a_segment(sdk: Any) -> None:
    segments = voucherify.CustomersApi(sdk.client).list_customer_segments("cust_alice")
    assert isinstance(segments, voucherify.CustomersSegmentsListResponseBody)
    assert [(s.id, s.name) for s in segments.data] == [("seg_vip", "VIP customers"),
                                                       ("seg_newsletter", "Newsletter subscribers")]
    segment = voucherify.SegmentsApi(sdk.client).get_segment("seg_vip")
    assert isinstance(segment, voucherify.SegmentsGetResponseBody)
    assert (segment.id, segment.type) == ("seg_vip", "static")
    with pytest.raises(NotFoundException):
        voucherify.SegmentsApi(sdk.client).get_segment("seg_nope")


def test_orders_and_redemptions_as_recorded(sdk: Any) -> None:
    """Two stacked redemptions through the SDK, one rolled back: the lists hold them, newest first."""
    first = sdk.redemptions.redeem_stacked_discounts(voucherify.RedemptionsRedeemRequestBody(
        redeemables=[voucherify.RedemptionsRedeemRequestBodyRedeemablesItem(object="voucher", id="WELCOME-ALICE")],
        customer=voucherify.Customer(source_id="alice"), order=voucherify.Order(amount=6000)))
    sdk.redemptions.redeem_stacked_discounts(voucherify.RedemptionsRedeemRequestBody(
        redeemables=[voucherify.RedemptionsRedeemRequestBodyRedeemablesItem(object="promotion_tier",
                                                                            id="promo_welcome_10")],
        customer=voucherify.Customer(source_id="bob"), order=voucherify.Order(amount=6000)))
    sdk.redemptions.rollback_stacked_redemptions(first.redemptions[0].id)
    orders = voucherify.OrdersApi(sdk.client).list_orders(limit=10)
    assert isinstance(orders, voucherify.OrdersListResponseBody)
    assert (orders.total, len(orders.orders)) == (2, 2)
    listed = voucherify.RedemptionsApi(sdk.client).list_redemptions(limit=100)
    assert isinstance(listed, voucherify.RedemptionsListResponseBody)
    kinds = [item.object for item in listed.redemptions]
    assert sorted(kinds) == ["redemption", "redemption", "redemption_rollback"]
    alice = voucherify.RedemptionsApi(sdk.client).list_redemptions(customer="cust_alice")
    assert {item.customer_id for item in alice.redemptions} == {"cust_alice"}


def test_customers_listed_and_read(sdk: Any) -> None:
    api = voucherify.CustomersApi(sdk.client)
    page = api.list_customers(limit=2, order=voucherify.ParameterOrderListCustomers("source_id"))
    assert isinstance(page, voucherify.CustomersListResponseBody)
    assert ([c.id for c in page.customers], page.has_more) == (["cust_alice", "cust_bob"], True)
    vip = api.list_customers(segment_id="seg_vip", order=voucherify.ParameterOrderListCustomers("created_at"))
    assert [c.id for c in vip.customers] == ["cust_alice", "cust_dave"]
    alice = api.get_customer("alice")
    assert isinstance(alice, voucherify.CustomersGetResponseBody)
    assert (alice.id, alice.summary.orders.total_count, alice.referrals.total) == ("cust_alice", 0, 0)
    with pytest.raises(NotFoundException):
        api.get_customer("cust_nope")


def test_rewards_listed_and_read(sdk: Any) -> None:
    api = voucherify.RewardsApi(sdk.client)
    listed = api.list_rewards(limit=100)
    assert isinstance(listed, voucherify.RewardsListResponseBody)
    assert listed.total == 6 and listed.data[0].id == "lrew_mug"
    gift = api.get_reward("lrew_gift_25")
    assert isinstance(gift, voucherify.Reward)
    assert (gift.type, gift.stock) == ("CAMPAIGN", 5)
    with pytest.raises(NotFoundException):
        api.get_reward("lrew_nope")
