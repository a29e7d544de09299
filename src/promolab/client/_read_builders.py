"""What the client's read methods send: the catalogue and segments a pull reads.

Like `_builders.py`, each function turns a method's arguments into a
`Prepared` call; a list's paging, order and filters become its query, named
as the endpoint declares them (`models.read_endpoints`), values left out when
None. An instant may be given as a `datetime` (aware) or as text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .. import models
from ..models import read_endpoints as e
from ..models.endpoint import Endpoint
from ._requests import Prepared

__all__ = [
    "get_customer",
    "get_product",
    "get_reward",
    "get_segment",
    "get_sku",
    "list_collection_products",
    "list_customer_segments",
    "list_customers",
    "list_orders",
    "list_product_collections",
    "list_products",
    "list_redemptions",
    "list_rewards",
    "list_skus",
]

Instant = datetime | str | None


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"instant {value!r} has no timezone; give it one (UTC)")
        return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value)


def _read(endpoint: Endpoint[Any], path_args: dict[str, str], **query: object) -> Prepared[Any]:
    params = [(endpoint.query_name(arg), _text(item)) for arg, value in query.items() if value is not None
              for item in (value if isinstance(value, list | tuple) else (value,))]
    return Prepared(endpoint, endpoint.url_path(**path_args), params=params, idempotent=True)


def list_products(*, limit: int | None = None, page: int | None = None, order: str | None = None,
                  start_date: Instant = None, end_date: Instant = None) -> Prepared[models.ProductList]:
    """A page of products, each with its SKUs (`limit` 1-100, default 10; `order` default `-created_at`)."""
    return _read(e.LIST_PRODUCTS, {}, limit=limit, page=page, order=order, start_date=start_date, end_date=end_date)


def get_product(product_id: str) -> Prepared[models.Product]:
    """One product by its id or source id, with its SKUs."""
    return _read(e.GET_PRODUCT, {"product_id": product_id})


def list_skus(product_id: str, *, limit: int | None = None, page: int | None = None, order: str | None = None,
              start_date: Instant = None, end_date: Instant = None) -> Prepared[models.SkuList]:
    """A page of one product's SKUs."""
    return _read(e.LIST_SKUS, {"product_id": product_id}, limit=limit, page=page, order=order,
                 start_date=start_date, end_date=end_date)


def get_sku(sku_id: str) -> Prepared[models.Sku]:
    """One SKU by its id or source id."""
    return _read(e.GET_SKU, {"sku_id": sku_id})


def list_product_collections(*, limit: int | None = None, page: int | None = None,
                             order: str | None = None) -> Prepared[models.ProductCollectionList]:
    """A page of product collections."""
    return _read(e.LIST_PRODUCT_COLLECTIONS, {}, limit=limit, page=page, order=order)


def list_collection_products(collection_id: str, *, limit: int | None = None, page: int | None = None,
                             order: str | None = None,
                             starting_after: Instant = None) -> Prepared[models.CollectionProductList]:
    """A page of a collection's products and SKUs (`starting_after`: only those created after it)."""
    return _read(e.LIST_COLLECTION_PRODUCTS, {"collection_id": collection_id}, limit=limit, page=page,
                 order=order, starting_after=starting_after)


def list_customer_segments(customer_id: str) -> Prepared[models.CustomerSegmentList]:
    """The segments a customer (id or source id) is in."""
    return _read(e.LIST_CUSTOMER_SEGMENTS, {"customer_id": customer_id})


def get_segment(segment_id: str) -> Prepared[models.Segment]:
    """One segment by id."""
    return _read(e.GET_SEGMENT, {"segment_id": segment_id})


def list_orders(*, limit: int | None = None, page: int | None = None,
                order: str | None = None) -> Prepared[models.OrderList]:
    """A page of the orders redemptions were made on (newest first by default)."""
    return _read(e.LIST_ORDERS, {}, limit=limit, page=page, order=order)


def list_redemptions(*, limit: int | None = None, page: int | None = None, result: str | None = None,
                     campaign: str | None = None, customer: str | None = None, order: str | None = None,
                     created_before: Instant = None, created_after: Instant = None) -> Prepared[models.RedemptionList]:
    """A page of redemptions and rollbacks (`page` 1-99), filtered by result,
    campaign id, customer id and time (`created_at[before]`/`[after]`)."""
    return _read(e.LIST_REDEMPTIONS, {}, limit=limit, page=page, result=result, campaign=campaign,
                 customer=customer, order=order, created_before=created_before, created_after=created_after)


def list_customers(*, limit: int | None = None, page: int | None = None, email: str | None = None,
                   name: str | None = None, segment_id: str | None = None, order: str | None = None,
                   starting_after: Instant = None, **filters: Instant) -> Prepared[models.CustomerList]:
    """A page of customers (`page` 1-99; `has_more` says whether another
    follows), filtered by email, name, segment and time: `created_before`,
    `created_after`, `updated_before`, `updated_after` (`created_at[before]`
    and so on), `city`; `starting_after` is the cursor (created after it)."""
    return _read(e.LIST_CUSTOMERS, {}, limit=limit, page=page, email=email, name=name, segment_id=segment_id,
                 order=order, starting_after=starting_after, **filters)


def get_customer(customer_id: str) -> Prepared[models.CustomerProfile]:
    """One customer by id or source id, with its summary, loyalty and referrals."""
    return _read(e.GET_CUSTOMER, {"customer_id": customer_id})


def list_rewards(*, limit: int | None = None, page: int | None = None,
                 assignment_id: str | None = None) -> Prepared[models.ProjectRewardList]:
    """A page of the project's rewards in the v1 shape (`assignment_id`: only that assignment's)."""
    return _read(e.LIST_REWARDS, {}, limit=limit, page=page, assignment_id=assignment_id)


def get_reward(reward_id: str) -> Prepared[models.ProjectReward]:
    """One reward in the v1 shape."""
    return _read(e.GET_REWARD, {"reward_id": reward_id})
