"""A tier's validation rules as boolean masks over many orders.

One set of rules, two execution strategies: nothing here
re-implements a rule's meaning where the engine can be asked instead. Each
rule is evaluated ONCE per distinct subject through the engine's own
`compile_rules` / `compile_conditions`, then broadcast with numpy:

- per key (product/SKU of a line): `product.id`, `sku.id`,
  `products_collection.id`, `order.items.any|every|none` (line matches the
  targets), `order.items.metadata`, sub-rule `.metadata`;
- per customer (few): `customer.metadata`, `customer.segment`;
- once per sweep: `order.metadata` (orders from line items carry none),
  `redemption.metadata` (once per distinct request metadata: `metadata_sets`);
- per distinct value: `order.items.price_each|price_any`, sub-rules on
  `.price/.quantity/.amount/.subtotal_amount`, `.aggregated_quantity|amount`,
  and the order scalars under unusual operators;
- vectorized directly: `order.amount`, `order.initial_amount`,
  `order.items.count`, `order.items.quantity` under the numeric comparison
  and equality operators (integer thresholds derived from the bounds with the
  engine's number parser).

The logic string (`"1 and (2 or 3)"`) is evaluated with masks that mirror the
engine's short-circuit, so the reason reported for a failing order is the
engine's: the first failing rule *evaluated*.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_CEILING, ROUND_FLOOR
from typing import Any

import numpy as np

from ...engine import (
    CustomerContext,
    Line,
    NormalizedOrder,
    compile_conditions,
    compile_rules,
    numeric_value,
)
from .batch import Chunk, KeyTable
from .lineset import LineSet
from .logicmasks import Node, eval_logic, parse_logic

__all__ = [
    "REASONS",
    "REASON_CODE",
    "BoundRules",
    "NotVectorizable",
    "RuleProgram",
    "compile_program",
]

#: Reason keys in code order (code = index + 1; 0 = valid).
REASONS = (
    "promotion_inactive",
    "promotion_not_active_now",
    "order_rules_violated",
    "customer_rules_violated",
    "redemption_rules_violated",
)
REASON_CODE = {key: i + 1 for i, key in enumerate(REASONS)}
ORDER_FAIL = REASON_CODE["order_rules_violated"]


class NotVectorizable(ValueError):
    """A rule this module cannot turn into masks (the tier takes the engine path)."""


_EMPTY_ORDER = NormalizedOrder((), 0, 0, 0, 0, {}, None, None)
_SCALARS = {
    "order.amount": "amount",
    "order.total_amount": "total_amount",  # compiled only for a caller that sets `Chunk.total_amount`
    "order.initial_amount": "initial_amount",  # no initial_amount is sent: it equals the amount
    "order.items.count": "n_lines",
    "order.items.quantity": "total_quantity",
}
_ITEM_FAMILIES = {
    "order.items.any": ("any", None),
    "order.items.every": ("every", None),
    "order.items.none": ("none", None),
    "product.id": ("any", "product.id"),
    "sku.id": ("any", "sku.id"),
    "products_collection.id": ("any", "products_collection.id"),
}
_CUSTOMER = ("customer.metadata", "customer.segment")
_CONSTANT = ("order.metadata", "redemption.metadata")
_PRICES = {"order.items.price_each": True, "order.items.price_any": False}


def _reason(name: str) -> int:
    if name.startswith("customer."):
        return REASON_CODE["customer_rules_violated"]
    if name.startswith("redemption."):
        return REASON_CODE["redemption_rules_violated"]
    return ORDER_FAIL


def _one_line(line: Line) -> NormalizedOrder:
    return NormalizedOrder((line,), 0, 0, 0, 1, {}, None, None)


def _engine_ok(
    rule: Mapping[str, Any],
    order: NormalizedOrder,
    customer: CustomerContext | None,
    now: datetime,
    metadata: Mapping[str, Any],
) -> bool:
    return compile_rules({"rules": {"1": dict(rule)}}).evaluate(order, customer, now, metadata, False) is None


def _checker(conditions: Mapping[str, Any], now: datetime) -> Callable[[Any], bool]:
    compiled = compile_conditions(conditions)
    return lambda value: all(fn(value, args, now) for fn, args in compiled)


def check_values(
    values: np.ndarray, conditions: Mapping[str, Any], now: datetime, present: np.ndarray | None = None
) -> np.ndarray:
    """The engine's conditions on every element: evaluated once per distinct value."""
    check = _checker(conditions, now)
    out = np.zeros(values.shape, dtype=bool)
    sel = slice(None) if present is None else present
    vals = values[sel]
    if vals.size:
        uniq, inverse = np.unique(vals, return_inverse=True)
        table = np.fromiter((check(int(v)) for v in uniq), dtype=bool, count=uniq.size)
        out[sel] = table[inverse]
    if present is not None and not present.all():
        out[~present] = check(None)
    return out


# -- numeric fast path -------------------------------------------------------------------
_CMP = ("$more_than", "$more_than_or_equal", "$less_than", "$less_than_or_equal")
_EQ = ("$is", "$in", "$is_not", "$not_in")


def _fast_tests(conditions: Mapping[str, Any]) -> list[tuple[str, Any]] | None:
    """[(test, operand)] equivalent to the engine's operators on integer values, or None."""
    tests: list[tuple[str, Any]] = []
    for op, raw in conditions.items():
        args = tuple(raw) if isinstance(raw, list | tuple) else (raw,)
        if op in _CMP:
            bound = numeric_value(args[0]) if args else None
            if bound is None:
                tests.append(("const", False))
                continue
            if bound.is_nan():
                return None
            if bound.is_infinite():
                upward = op.startswith("$more")
                tests.append(("const", (bound < 0) == upward))
                continue
            floor = int(bound.to_integral_value(rounding=ROUND_FLOOR))
            ceil = int(bound.to_integral_value(rounding=ROUND_CEILING))
            tests.append({
                "$more_than": ("gt", floor),
                "$more_than_or_equal": ("ge", ceil),
                "$less_than": ("lt", ceil),
                "$less_than_or_equal": ("le", floor),
            }[op])
        elif op in _EQ:
            targets = []
            for a in args:
                if isinstance(a, bool):
                    continue
                n = numeric_value(a)
                if n is not None and n.is_finite() and n == n.to_integral_value():
                    targets.append(int(n))
            tests.append(("in" if op in ("$is", "$in") else "not_in", np.array(sorted(set(targets)), dtype=np.int64)))
        else:
            return None
    return tests


def _apply_fast(values: np.ndarray, tests: Sequence[tuple[str, Any]]) -> np.ndarray:
    out: np.ndarray | None = None
    for test, operand in tests:
        if test == "const":
            part = np.full(values.shape, bool(operand))
        elif test == "gt":
            part = values > operand
        elif test == "ge":
            part = values >= operand
        elif test == "lt":
            part = values < operand
        elif test == "le":
            part = values <= operand
        elif test == "in":
            part = np.isin(values, operand)
        else:
            part = ~np.isin(values, operand)
        out = part if out is None else out & part
    return out if out is not None else np.ones(values.shape, dtype=bool)


# -- static program ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaf:
    rid: str
    family: str
    rule: Mapping[str, Any]
    fast: tuple[tuple[str, Any], ...] | None = None


@dataclass(frozen=True)
class RuleProgram:
    """A tier's rules, checked for vectorizability; bind it to a batch to evaluate."""

    tree: Node | None
    leaves: Mapping[str, Leaf]

    def bind(
        self,
        keys: KeyTable,
        customers: Sequence[CustomerContext | None],
        now: datetime,
        metadata: Mapping[str, Any],
        metadata_sets: Sequence[Mapping[str, Any]] | None = None,
    ) -> BoundRules:
        """`metadata_sets`: distinct per-order metadata (`Chunk.metadata_code`); None: all send `metadata`."""
        return BoundRules(self, keys, customers, now, metadata, metadata_sets)


def _sub_rule_ids(rule: Mapping[str, Any]) -> tuple[Node | None, dict[str, Mapping[str, Any]]]:
    raw = rule.get("rules")
    if not raw:
        return None, {}
    ids = [k for k in raw if k != "logic"]
    if not ids:
        return None, {}
    logic = raw.get("logic") or " and ".join(ids)
    return parse_logic(logic), {k: raw[k] for k in ids}


def compile_program(validation_rule: Mapping[str, Any] | None, *, total_amount: bool = False) -> RuleProgram:
    """Raises `NotVectorizable` naming the first rule it cannot vectorize (`total_amount`: see `_SCALARS`)."""
    if not validation_rule:
        return RuleProgram(None, {})
    rules = validation_rule.get("rules") or {}
    ids = [k for k in rules if k != "logic"]
    if not ids:
        return RuleProgram(None, {})
    logic = rules.get("logic") or validation_rule.get("logic") or " and ".join(ids)
    leaves: dict[str, Leaf] = {}
    for rid in ids:
        rule = rules[rid]
        name = rule.get("name")
        fast = None
        if name in _SCALARS and (name != "order.total_amount" or total_amount):
            tests = _fast_tests(rule.get("conditions") or {})
            fast = tuple(tests) if tests is not None else None
        elif name in _ITEM_FAMILIES:
            conditions = rule.get("conditions") or {}
            if len(conditions) != 1:
                raise NotVectorizable(f"rule {rid} ({name}) needs exactly one target operator")
            _sub_rule_ids(rule)  # parse check
        elif name not in _CUSTOMER and name not in _CONSTANT and name not in _PRICES and name != "order.items.metadata":
            raise NotVectorizable(f"rule {rid}: family {name!r} has no vectorized form")
        leaves[rid] = Leaf(rid, name, rule, fast)
    return RuleProgram(parse_logic(logic), leaves)


# -- bound to a batch --------------------------------------------------------------------------
class BoundRules:
    """Per-key / per-customer / constant tables of a program for one batch."""

    def __init__(
        self,
        program: RuleProgram,
        keys: KeyTable,
        customers: Sequence[CustomerContext | None],
        now: datetime,
        metadata: Mapping[str, Any],
        metadata_sets: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        self.program = program
        self._metadata_sets = metadata_sets
        self.now = now
        self.codes = {rid: _reason(leaf.family) for rid, leaf in program.leaves.items()}
        self._keys = keys
        #: Same rule, same mask: tiers sharing a rule share its mask within a chunk.
        self.leaf_keys = {
            rid: json.dumps([leaf.family, leaf.rule], sort_keys=True, default=lambda o: f"{type(o).__name__}:{o!r}")
            for rid, leaf in program.leaves.items()
        }
        self._tables: dict[str, Any] = {}
        for rid, leaf in program.leaves.items():
            self._tables[rid] = self._bind_leaf(leaf, keys, customers, now, metadata)

    def _per_key(self, rule: Mapping[str, Any], keys: KeyTable) -> np.ndarray:
        ok = [_engine_ok(rule, _one_line(line), None, self.now, {}) for line in keys.lines]
        return np.array(ok, dtype=bool)

    def _bind_leaf(self, leaf: Leaf, keys: KeyTable, customers: Sequence[CustomerContext | None],
                   now: datetime, metadata: Mapping[str, Any]) -> Any:
        family, rule = leaf.family, leaf.rule
        if family == "redemption.metadata" and self._metadata_sets is not None:
            return np.array([_engine_ok(rule, _EMPTY_ORDER, None, now, m) for m in self._metadata_sets], dtype=bool)
        if family in _CONSTANT:
            return _engine_ok(rule, _EMPTY_ORDER, None, now, metadata)
        if family in _CUSTOMER:  # these read metadata and segments only: customers without either answer alike
            compiled = compile_rules({"rules": {"1": dict(rule)}})
            blank = compiled.evaluate(_EMPTY_ORDER, CustomerContext(), now, {}, False) is None
            table = [blank if c is not None and not c.metadata and not c.segment_ids
                     else compiled.evaluate(_EMPTY_ORDER, c, now, {}, False) is None for c in (*customers, None)]
            return np.array(table, dtype=bool)  # code -1 -> last entry (nobody)
        if family == "order.items.metadata":
            return self._per_key(rule, keys)
        if family in _ITEM_FAMILIES:
            quantifier, kind_name = _ITEM_FAMILIES[family]
            (op, raw), = (rule.get("conditions") or {}).items()
            positive = op in ("$in", "$is")
            match_rule = {"name": kind_name or "order.items.any", "conditions": {"$in": raw}}
            matches = self._per_key(match_rule, keys)
            if kind_name is not None:
                quantifier, hit = ("any" if positive else "none"), matches
            else:
                hit = matches if positive else ~matches
            tree, subs = _sub_rule_ids(rule)
            sub_tables: dict[str, tuple[str, Any]] = {}
            for sid, sub in subs.items():
                suffix = str(sub.get("name", "")).rsplit(".", 1)[-1]
                if suffix == "metadata":
                    meta_rule = {"name": "order.items.metadata", "property": sub.get("property"),
                                 "conditions": sub.get("conditions") or {}}
                    sub_tables[sid] = ("metadata", self._per_key(meta_rule, keys))
                else:
                    sub_tables[sid] = (suffix, sub.get("conditions") or {})
            return (quantifier, hit, tree, sub_tables)
        return None  # scalars and prices read the chunk directly

    # -- evaluation ------------------------------------------------------------------------
    def evaluate(self, chunk: Chunk, by_rule: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(passes, reason codes) per order of the chunk; reason 0 where it passes.

        `by_rule`: the code says which rule failed first (k + 1 for the k-th
        rule of `program.leaves`, `len(leaves) + 1` when none did: the logic
        failed as a whole), for callers that report the rule's own message.
        The masks returned are read-only to the caller: they may be shared
        with other tiers of the chunk (`chunk.masks`).
        """
        tree = self.program.tree
        if tree is None:
            return np.ones(chunk.n, dtype=bool), np.zeros(chunk.n, dtype=np.int8)
        codes = {rid: k + 1 for k, rid in enumerate(self.program.leaves)} if by_rule else self.codes
        generic_code = len(self.program.leaves) + 1 if by_rule else ORDER_FAIL
        if tree[0] == "leaf":  # one rule: its mask, its reason where it fails
            ok = self._leaf_mask(tree[1], chunk)
            return ok, np.where(ok, np.int8(0), np.int8(codes[tree[1]]))
        reason = np.zeros(chunk.n, dtype=np.int8)
        leaves = {rid: (lambda rid=rid: self._leaf_mask(rid, chunk)) for rid in self.program.leaves}
        ok = eval_logic(tree, leaves, np.ones(chunk.n, dtype=bool), reason, codes)
        generic = ~ok & (reason == 0)
        if generic.any():
            reason[generic] = generic_code
        reason[ok] = 0
        return ok, reason

    def _leaf_mask(self, rid: str, chunk: Chunk) -> np.ndarray:
        """A rule's mask, shared by every tier of the sweep with the same rule."""
        key = self.leaf_keys[rid]
        found = chunk.masks.get(key)
        if found is None:
            found = chunk.masks[key] = self._compute_leaf(rid, chunk)
        return found

    def _per_subject(self, chunk: Chunk, name: Any, make: Callable[[LineSet], np.ndarray]) -> np.ndarray:
        """A per-line-subject table, made once per set of subjects (once per sweep for a
        batch's distinct lines, once per chunk for a chunk's own lines)."""
        memo = chunk.lines.memo
        found = memo.get((id(self), name))
        if found is None:
            found = memo[(id(self), name)] = make(chunk.lines)
        return found

    def _compute_leaf(self, rid: str, chunk: Chunk) -> np.ndarray:
        leaf = self.program.leaves[rid]
        family, table = leaf.family, self._tables[rid]
        if family in _SCALARS:
            subject = _SCALARS[family]
            values = getattr(chunk, subject)
            if leaf.fast is not None:
                return _apply_fast(values, leaf.fast)
            return check_values(values, leaf.rule.get("conditions") or {}, self.now)
        if family in _CONSTANT:
            if isinstance(table, np.ndarray):  # per distinct request metadata
                return table[chunk.metadata_code] if chunk.metadata_code is not None else np.full(chunk.n, table[0])
            return np.full(chunk.n, bool(table))
        if family in _CUSTOMER:
            if chunk.customer is None:
                return np.full(chunk.n, bool(table[-1]))
            return table[chunk.customer]
        if family in _PRICES:
            conditions = leaf.rule.get("conditions") or {}
            priced = chunk.lines.has_price
            line_ok = self._per_subject(
                chunk, rid, lambda lines: check_values(lines.price, conditions, self.now, lines.has_price)
            )
            if _PRICES[family]:  # every priced line passes, and there is one
                return chunk.any_lines(priced) & chunk.all_lines(line_ok | ~priced)
            return chunk.any_lines(line_ok & priced)
        if family == "order.items.metadata":
            return chunk.any_lines(table.take(chunk.lines.key))
        quantifier, hit_table, tree, subs = table
        hit = hit_table.take(chunk.lines.key)
        group_ok = chunk.any_lines(hit)
        if tree is not None:
            group_ok &= self._sub_rules(rid, tree, subs, hit, chunk)
        if quantifier == "any":
            return group_ok
        if quantifier == "none":
            return ~group_ok
        return (chunk.n_lines > 0) & chunk.all_lines(hit) & group_ok

    def _sub_rules(self, rid: str, tree: Node, subs: Mapping[str, Any], group: np.ndarray,
                   chunk: Chunk) -> np.ndarray:
        """Sub-rules of an item family over the lines in `group` (one flag per line subject)."""
        def sub_mask(sid: str) -> np.ndarray:
            suffix, spec = subs[sid]
            if suffix == "discount_applicable":
                return np.ones(chunk.n, dtype=bool)
            if suffix == "metadata":
                return chunk.any_lines(group & spec.take(chunk.lines.key))
            if suffix == "aggregated_quantity":
                return check_values(chunk.sum_lines(np.where(group, chunk.lines.quantity, 0)), spec, self.now)
            if suffix == "aggregated_amount":
                return check_values(chunk.sum_lines(np.where(group, chunk.lines.amount, 0)), spec, self.now)
            line_ok = self._per_subject(chunk, (rid, sid), lambda lines: _line_check(suffix, lines, spec, self.now))
            return chunk.any_lines(group & line_ok)

        leaves = {sid: (lambda sid=sid: sub_mask(sid)) for sid in subs}
        return eval_logic(tree, leaves, np.ones(chunk.n, dtype=bool), None, {})


def _line_check(suffix: str, lines: LineSet, spec: Mapping[str, Any], now: datetime) -> np.ndarray:
    """A sub-rule's conditions on each line subject's quantity, price or amount."""
    if suffix == "quantity":
        return check_values(lines.quantity, spec, now)
    if suffix == "price":
        return check_values(lines.price, spec, now, lines.has_price)
    # amount, subtotal_amount: the line amount (None without a price)
    return check_values(lines.amount, spec, now, lines.has_price)
