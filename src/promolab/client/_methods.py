"""The client's methods, declared once for `Client` and `AsyncClient`.

A `Method` wraps a builder of `_builders.py` (arguments -> `Prepared` call).
Read from a `Client` it is a function that sends the call and returns the
decoded answer; read from an `AsyncClient`, one that returns an awaitable of
it. The type checker sees the same: the builder's parameters, and `R` or
`Awaitable[R]` by the class it is read from. Interactive help shows the
builder's signature and docstring.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Generic, ParamSpec, Self, TypeVar, overload

from . import _builders as b
from . import _campaign_read_builders as cb
from . import _export_builders as xb
from . import _loyalty_read_builders as lb
from . import _promotion_read_builders as pb
from . import _read_builders as rb
from . import _rule_read_builders as rrb
from ._requests import Prepared

__all__ = ["AsyncSender", "ControlOperations", "Method", "Operations", "SyncSender"]

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class SyncSender:
    """What sends a prepared call and waits for its answer."""

    def _send(self, prepared: Prepared[T]) -> T:  # pragma: no cover - provided by subclasses
        raise NotImplementedError


class AsyncSender:
    """What sends a prepared call and returns an awaitable of its answer."""

    async def _send(self, prepared: Prepared[T]) -> T:  # pragma: no cover - provided by subclasses
        raise NotImplementedError


class Method(Generic[P, R]):
    """A client method made of a request builder (a non-data descriptor: the
    bound function is kept on the instance at first use, so later calls
    cost one attribute lookup)."""

    def __init__(self, build: Callable[P, Prepared[R]]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, obj: SyncSender, owner: type[Any]) -> Callable[P, R]: ...

    @overload
    def __get__(self, obj: AsyncSender, owner: type[Any]) -> Callable[P, Awaitable[R]]: ...

    def __get__(self, obj: SyncSender | AsyncSender | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        build, send = self.build, obj._send

        @functools.wraps(build)
        def method(*args: Any, **kwargs: Any) -> Any:
            return send(build(*args, **kwargs))

        obj.__dict__[self.name] = method
        return method


class Operations:
    """The service's operations (one method per endpoint of `models.endpoints`)."""

    get_incentive = Method(b.get_incentive)
    purchase_reward = Method(b.purchase_reward)
    delete_reward = Method(b.delete_reward)
    delete_webhook = Method(b.delete_webhook)
    publish = Method(b.publish)
    validate_promotions = Method(b.validate_promotions)
    validate_stacked = Method(b.validate_stacked)
    qualifications = Method(b.qualifications)
    redeem_stacked = Method(b.redeem_stacked)
    rollback_redemption = Method(b.rollback_redemption)
    release_session = Method(b.release_session)
    track_event = Method(b.track_event)
    add_gift_balance = Method(b.add_gift_balance)
    create_stacking_rules = Method(b.create_stacking_rules)
    list_stacking_rules = Method(b.list_stacking_rules)
    get_stacking_rules = Method(b.get_stacking_rules)
    update_stacking_rules = Method(b.update_stacking_rules)
    delete_stacking_rules = Method(b.delete_stacking_rules)
    list_products = Method(rb.list_products)
    get_product = Method(rb.get_product)
    list_skus = Method(rb.list_skus)
    get_sku = Method(rb.get_sku)
    list_product_collections = Method(rb.list_product_collections)
    list_collection_products = Method(rb.list_collection_products)
    list_customers = Method(rb.list_customers)
    get_customer = Method(rb.get_customer)
    list_customer_segments = Method(rb.list_customer_segments)
    get_segment = Method(rb.get_segment)
    list_rewards = Method(rb.list_rewards)
    get_reward = Method(rb.get_reward)
    list_orders = Method(rb.list_orders)
    list_redemptions = Method(rb.list_redemptions)
    list_validation_rules = Method(rrb.list_validation_rules)
    get_validation_rule = Method(rrb.get_validation_rule)
    list_validation_rules_assignments = Method(rrb.list_validation_rules_assignments)
    list_loyalty_programs = Method(lb.list_loyalty_programs)
    get_loyalty_program = Method(lb.get_loyalty_program)
    list_loyalty_tiers = Method(lb.list_loyalty_tiers)
    list_earning_rules = Method(lb.list_earning_rules)
    list_reward_assignments = Method(lb.list_reward_assignments)
    list_members = Method(lb.list_members)
    list_campaigns = Method(cb.list_campaigns)
    get_campaign = Method(cb.get_campaign)
    get_campaign_summary = Method(cb.get_campaign_summary)
    list_campaign_transactions = Method(cb.list_campaign_transactions)
    list_vouchers = Method(cb.list_vouchers)
    get_voucher = Method(cb.get_voucher)
    list_promotion_tiers = Method(pb.list_promotion_tiers)
    list_campaign_promotion_tiers = Method(pb.list_campaign_promotion_tiers)
    get_promotion_tier = Method(pb.get_promotion_tier)
    list_promotion_stacks = Method(pb.list_promotion_stacks)
    list_campaign_promotion_stacks = Method(pb.list_campaign_promotion_stacks)
    list_categories = Method(pb.list_categories)
    create_export = Method(xb.create_export)
    list_exports = Method(xb.list_exports)
    get_export = Method(xb.get_export)
    download_export = Method(xb.download_export)


class ControlOperations:
    """The served simulator's `/_sim/` control API (management credentials)."""

    state = Method(b.sim_state)
    reset = Method(b.sim_reset)
    clock = Method(b.sim_clock)
    advance = Method(b.sim_advance)
    snapshot = Method(b.sim_snapshot)
    restore = Method(b.sim_restore)
    webhook_deliveries = Method(b.sim_webhook_deliveries)
    member = Method(b.sim_member)
    coverage = Method(b.sim_coverage)
    why_not = Method(b.sim_why_not)
    why_not_qualified = Method(b.sim_why_not_qualified)
