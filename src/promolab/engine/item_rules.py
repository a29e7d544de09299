"""Rule families about the items in the cart (see `rules` for the naming).

`order.items.any|every|none`, `product.id`, `sku.id`, `products_collection.id`
(with sub-rules), `order.items.price_each|price_any`, `order.items.metadata`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from .lines import Line
from .logic_parser import LogicError, and_all, compile_logic
from .rule_evaluation import (
    GroupPred,
    Pred,
    RuleConfigError,
    RuleEnv,
    checker,
    lookup,
    require_property,
)

__all__ = ["ITEM_FAMILIES"]

#: Cached line identities per rule target list before the cache is emptied.
_CACHE_LIMIT = 4096


class _Targets:
    """Which lines a list of product / SKU / collection targets matches."""

    __slots__ = (
        "_matched",
        "anything",
        "collections",
        "product_sources",
        "products",
        "sku_sources",
        "skus",
    )

    def __init__(self, raw: Sequence[Any], kind: str | None) -> None:
        #: line.match_key -> matches(line): `_test` reads nothing else, so each
        #: product/SKU is tested once instead of once per request.
        self._matched: dict[tuple[Any, ...], bool] = {}
        self.products: set[str] = set()
        self.skus: set[str] = set()
        self.collections: set[str] = set()
        self.anything: set[str] = set()
        self.product_sources: set[str] = set()
        self.sku_sources: set[str] = set()
        for target in raw:
            if isinstance(target, Mapping):
                tid = target.get("id")
                tkind = target.get("object") or kind
                source = target.get("source_id")
            else:
                tid, tkind, source = target, kind, None
            if tid is not None and not isinstance(tid, str):
                raise RuleConfigError(f"target id must be a string, got {tid!r}")
            if tkind is None and isinstance(tid, str):
                if tid.startswith("sku_"):
                    tkind = "sku"
                elif tid.startswith("pc_"):
                    tkind = "products_collection"
                elif tid.startswith("prod_"):
                    tkind = "product"
            if tid is None and source is None:
                raise RuleConfigError(f"target {target!r} has neither id nor source_id")
            if tkind == "product":
                if tid:
                    self.products.add(tid)
                elif source:
                    self.product_sources.add(source)
            elif tkind == "sku":
                if tid:
                    self.skus.add(tid)
                elif source:
                    self.sku_sources.add(source)
            elif tkind == "products_collection":
                if tid:
                    self.collections.add(tid)
            elif tkind is None and tid:
                self.anything.add(tid)
            else:
                raise RuleConfigError(f"unknown target object {tkind!r}")

    def matches(self, line: Line) -> bool:
        key = line.match_key
        if key is None:  # a Line built by hand: no identity to cache under
            return self._test(line)
        cache = self._matched
        found = cache.get(key)
        if found is None:
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            found = cache[key] = self._test(line)
        return found

    def _test(self, line: Line) -> bool:
        if line.product_id is not None and (
            line.product_id in self.products or line.product_id in self.anything
        ):
            return True
        if line.sku_id is not None and (line.sku_id in self.skus or line.sku_id in self.anything):
            return True
        if line.collection_ids and (
            not line.collection_ids.isdisjoint(self.collections)
            or not line.collection_ids.isdisjoint(self.anything)
        ):
            return True
        if line.product is not None and line.product.source_id in self.product_sources:
            return True
        return line.sku is not None and line.sku.source_id in self.sku_sources


_POSITIVE = ("$in", "$is")
_NEGATIVE = ("$not_in", "$is_not")


def _target_condition(
    conditions: Mapping[str, Any], name: str, kind: str | None
) -> tuple[bool, _Targets]:
    if len(conditions) != 1:
        raise RuleConfigError(f"rule {name} takes exactly one of $in, $is, $not_in, $is_not")
    ((op, raw),) = conditions.items()
    if op not in _POSITIVE and op not in _NEGATIVE:
        raise RuleConfigError(f"rule {name} does not support operator {op}")
    if not isinstance(raw, list | tuple):
        raw = [raw]
    return op in _POSITIVE, _Targets(raw, kind)


def _line_value(suffix: str, prop: str | None) -> Callable[[Line], Any]:
    if suffix == "price":
        return lambda line: line.price
    if suffix == "quantity":
        return lambda line: line.quantity
    if suffix in ("amount", "subtotal_amount"):
        return lambda line: line.amount
    assert prop is not None
    return lambda line: lookup(line.metadata, prop)


def _compile_group_rule(rule: Mapping[str, Any]) -> tuple[GroupPred, str]:
    name = rule.get("name")
    if not isinstance(name, str):
        raise RuleConfigError(f"sub-rule without a name: {rule!r}")
    suffix = name.rsplit(".", 1)[-1]
    conditions = rule.get("conditions") or {}
    if suffix == "discount_applicable":
        return (lambda lines, now: True), name
    try:
        check = checker(conditions)
    except KeyError as exc:
        raise RuleConfigError(f"unknown operator {exc.args[0]} in sub-rule {name}") from None
    if suffix == "aggregated_quantity":
        return (lambda lines, now: check(sum([ln.quantity for ln in lines]), now)), name
    if suffix == "aggregated_amount":
        return (lambda lines, now: check(sum([ln.amount_or_zero for ln in lines]), now)), name
    if suffix in ("price", "quantity", "amount", "subtotal_amount", "metadata"):
        prop = require_property(rule, name) if suffix == "metadata" else None
        value = _line_value(suffix, prop)
        return (lambda lines, now: any(check(value(ln), now) for ln in lines)), name
    raise RuleConfigError(f"unsupported sub-rule {name}")


def _packed(pred: GroupPred) -> Callable[[tuple[Sequence[Line], datetime]], bool]:
    return lambda arg: pred(arg[0], arg[1])


def _compile_group_rules(raw: Mapping[str, Any] | None) -> GroupPred | None:
    if not raw:
        return None
    ids = [k for k in raw if k != "logic"]
    if not ids:
        return None
    preds = {rid: _compile_group_rule(raw[rid])[0] for rid in ids}
    leaves = {rid: _packed(pred) for rid, pred in preds.items()}
    logic = raw.get("logic") or and_all(ids)
    try:
        combined = compile_logic(logic, leaves)
    except LogicError as exc:
        raise RuleConfigError(str(exc)) from None
    for rid, leaf in leaves.items():
        if combined is leaf:  # the logic is just this one sub-rule: call it directly
            return preds[rid]
    return lambda lines, now: combined((lines, now))


def _quantified(quantifier: str, positive: bool, targets: _Targets, sub: GroupPred | None) -> Pred:
    def hit(line: Line) -> bool:
        return targets.matches(line) is positive

    if sub is None and quantifier in ("any", "none"):
        # Without sub-rules only the existence of a hit counts: no need to
        # collect the matching lines. (A plain loop with `matches` inlined:
        # this runs per rule per new cart, and a generator is an allocation.)
        matches = targets.matches

        def some_hit(env: RuleEnv) -> bool:
            for ln in env.order.lines:
                if matches(ln) is positive:
                    return True
            return False

        if quantifier == "any":
            return some_hit
        return lambda env: not some_hit(env)

    def group_ok(lines: Sequence[Line], now: datetime) -> bool:
        return bool(lines) and (sub is None or sub(lines, now))

    if quantifier == "any":
        return lambda env: group_ok([ln for ln in env.order.lines if hit(ln)], env.now)
    if quantifier == "none":
        return lambda env: not group_ok([ln for ln in env.order.lines if hit(ln)], env.now)

    def every(env: RuleEnv) -> bool:
        lines = env.order.lines
        return bool(lines) and all(hit(ln) for ln in lines) and group_ok(lines, env.now)

    return every


def _items_family(quantifier: str, kind: str | None) -> Callable[[Mapping[str, Any], str], Pred]:
    def build(rule: Mapping[str, Any], name: str) -> Pred:
        positive, targets = _target_condition(rule.get("conditions") or {}, name, kind)
        sub = _compile_group_rules(rule.get("rules"))
        if kind is not None:  # product.id & co: $in -> some line is one, $not_in -> none is
            return _quantified("any" if positive else "none", True, targets, sub)
        return _quantified(quantifier, positive, targets, sub)

    return build


def _price_family(every: bool) -> Callable[[Mapping[str, Any], str], Pred]:
    def build(rule: Mapping[str, Any], name: str) -> Pred:
        check = checker(rule.get("conditions") or {})

        def each(env: RuleEnv) -> bool:
            prices = [ln.price for ln in env.order.lines if ln.price is not None]
            return bool(prices) and all(check(p, env.now) for p in prices)

        def some(env: RuleEnv) -> bool:
            return any(check(ln.price, env.now) for ln in env.order.lines if ln.price is not None)

        return each if every else some

    return build


def _items_metadata(rule: Mapping[str, Any], name: str) -> Pred:
    prop = require_property(rule, name)
    check = checker(rule.get("conditions") or {})
    return lambda env: any(check(lookup(ln.metadata, prop), env.now) for ln in env.order.lines)


ITEM_FAMILIES: dict[str, Callable[[Mapping[str, Any], str], Pred]] = {
    "order.items.any": _items_family("any", None),
    "order.items.every": _items_family("every", None),
    "order.items.none": _items_family("none", None),
    "product.id": _items_family("any", "product"),
    "sku.id": _items_family("any", "sku"),
    "products_collection.id": _items_family("any", "products_collection"),
    "order.items.price_each": _price_family(every=True),
    "order.items.price_any": _price_family(every=False),
    "order.items.metadata": _items_metadata,
}

#: Every rule name `compile_rules` accepts.
