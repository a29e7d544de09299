"""The read endpoints of a pull: the catalogue, customers, segments, rewards, orders, redemptions.

Query declared here (from `list_params`), carried out by `sim/listing.py`;
what each answers is in docs/reads.md.
"""

from __future__ import annotations

from typing import Any

from .customer_profiles import CustomerList, CustomerProfile
from .endpoint import Endpoint, Param
from .history import OrderList, RedemptionList
from .list_params import CREATED_BETWEEN, LIMIT, PAGE, PAGE_99, instant_param, order_param
from .products import (
    CollectionProductList,
    Product,
    ProductCollectionList,
    ProductList,
    Sku,
    SkuList,
)
from .project_rewards import ProjectReward, ProjectRewardList
from .segments import CustomerSegmentList, Segment

__all__ = [
    "GET_CUSTOMER",
    "GET_PRODUCT",
    "GET_REWARD",
    "GET_SEGMENT",
    "GET_SKU",
    "LIST_COLLECTION_PRODUCTS",
    "LIST_CUSTOMERS",
    "LIST_CUSTOMER_SEGMENTS",
    "LIST_ORDERS",
    "LIST_PRODUCTS",
    "LIST_PRODUCT_COLLECTIONS",
    "LIST_REDEMPTIONS",
    "LIST_REWARDS",
    "LIST_SKUS",
    "READS",
]

_PRODUCT_ID = Param("productId", "product_id")

LIST_PRODUCTS: Endpoint[ProductList] = Endpoint(
    "list_products", "GET", "/v1/products", "app", "listProducts", "List products", ProductList,
    query=(LIMIT, PAGE, order_param("created_at", "updated_at"), *CREATED_BETWEEN), tags=("products",), idempotent=True,
)
GET_PRODUCT: Endpoint[Product] = Endpoint(
    "get_product", "GET", "/v1/products/{productId}", "app", "getProduct", "Get a product (by id or source id)",
    Product, path_params=(_PRODUCT_ID,), tags=("products",), idempotent=True,
)
LIST_SKUS: Endpoint[SkuList] = Endpoint(
    "list_skus", "GET", "/v1/products/{productId}/skus", "app", "listSkusInProduct", "List a product's SKUs",
    SkuList, path_params=(_PRODUCT_ID,), query=(LIMIT, PAGE, order_param("created_at", "updated_at"), *CREATED_BETWEEN),
    tags=("products",), idempotent=True,
)
GET_SKU: Endpoint[Sku] = Endpoint(
    "get_sku", "GET", "/v1/skus/{skuId}", "app", "getSku", "Get a SKU (by id or source id)", Sku,
    path_params=(Param("skuId", "sku_id"),), tags=("products",), idempotent=True,
)
LIST_PRODUCT_COLLECTIONS: Endpoint[ProductCollectionList] = Endpoint(
    "list_product_collections", "GET", "/v1/product-collections", "app", "listProductCollections",
    "List product collections", ProductCollectionList, query=(LIMIT, PAGE, order_param("created_at", "updated_at")),
    tags=("products",), idempotent=True,
)
LIST_COLLECTION_PRODUCTS: Endpoint[CollectionProductList] = Endpoint(
    "list_collection_products", "GET", "/v1/product-collections/{productCollectionId}/products", "app",
    "listProductsInCollection", "List the products and SKUs of a collection", CollectionProductList,
    path_params=(Param("productCollectionId", "collection_id"),),
    query=(LIMIT, PAGE, order_param("created_at", "updated_at"),
           instant_param("starting_after", "starting_after", "Only objects created after this instant.")),
    tags=("products",), idempotent=True,
)
_CUSTOMER_ID = Param("customerId", "customer_id")
LIST_CUSTOMERS: Endpoint[CustomerList] = Endpoint(
    "list_customers", "GET", "/v1/customers", "app", "listCustomers", "List customers", CustomerList,
    query=(
        LIMIT, PAGE_99,
        *(Param(name, name, "string", f"Only customers of this {name}.") for name in ("email", "city", "name")),
        Param("segment_id", "segment_id", "string", "Only customers of this segment."),
        instant_param("created_at[before]", "created_before", "Only those created at or before this instant."),
        instant_param("created_at[after]", "created_after", "Only those created at or after this instant."),
        instant_param("updated_at[before]", "updated_before", "Only those updated at or before this instant."),
        instant_param("updated_at[after]", "updated_after", "Only those updated at or after this instant."),
        order_param("created_at", "updated_at", "source_id"),
        instant_param("starting_after", "starting_after", "Only customers created after this instant (a cursor)."),
    ), tags=("customers",), idempotent=True,
)
GET_CUSTOMER: Endpoint[CustomerProfile] = Endpoint(
    "get_customer", "GET", "/v1/customers/{customerId}", "app", "getCustomer", "Get a customer (by id or source id)",
    CustomerProfile, path_params=(_CUSTOMER_ID,), tags=("customers",), idempotent=True,
)
LIST_CUSTOMER_SEGMENTS: Endpoint[CustomerSegmentList] = Endpoint(
    "list_customer_segments", "GET", "/v1/customers/{customerId}/segments", "app", "listCustomerSegments",
    "List the segments a customer is in", CustomerSegmentList, path_params=(_CUSTOMER_ID,),
    tags=("customers",), idempotent=True,
)
GET_SEGMENT: Endpoint[Segment] = Endpoint(
    "get_segment", "GET", "/v1/segments/{segmentId}", "app", "getSegment", "Get a segment", Segment,
    path_params=(Param("segmentId", "segment_id"),), tags=("customers",), idempotent=True,
)

LIST_REWARDS: Endpoint[ProjectRewardList] = Endpoint(
    "list_rewards", "GET", "/v1/rewards", "app", "listRewards", "List rewards", ProjectRewardList,
    query=(LIMIT, PAGE, Param("assignment_id", "assignment_id", "string", "Only the reward of this assignment.")),
    tags=("rewards",), idempotent=True,
)
GET_REWARD: Endpoint[ProjectReward] = Endpoint(
    "get_reward", "GET", "/v1/rewards/{rewardId}", "app", "getReward", "Get a reward", ProjectReward,
    path_params=(Param("rewardId", "reward_id"),), tags=("rewards",), idempotent=True,
)
LIST_ORDERS: Endpoint[OrderList] = Endpoint(
    "list_orders", "GET", "/v1/orders", "app", "listOrders", "List the orders redemptions were made on",
    OrderList, query=(LIMIT, PAGE, order_param("created_at", "updated_at")), tags=("orders",), idempotent=True,
)
LIST_REDEMPTIONS: Endpoint[RedemptionList] = Endpoint(
    "list_redemptions", "GET", "/v1/redemptions", "app", "listRedemptions", "List redemptions and rollbacks",
    RedemptionList, query=(
        LIMIT, PAGE_99,
        Param("result", "result", "string", "Only SUCCESS or FAILURE ones."),
        Param("campaign", "campaign", "string", "Only those of this campaign (id)."),
        Param("customer", "customer", "string", "Only those of this customer (id)."),
        order_param("created_at", "id", "voucher_code", "tracking_id", "customer_id"),
        instant_param("created_at[before]", "created_before", "Only those made at or before this instant."),
        instant_param("created_at[after]", "created_after", "Only those made at or after this instant."),
    ), tags=("redemptions",), idempotent=True,
)

#: The read endpoints of a pull, in the order the service's documents list them.
READS: tuple[Endpoint[Any], ...] = (
    LIST_PRODUCTS, GET_PRODUCT, LIST_SKUS, GET_SKU, LIST_PRODUCT_COLLECTIONS, LIST_COLLECTION_PRODUCTS,
    LIST_CUSTOMERS, GET_CUSTOMER, LIST_CUSTOMER_SEGMENTS, GET_SEGMENT, LIST_REWARDS, GET_REWARD, LIST_ORDERS,
    LIST_REDEMPTIONS,
)
