"""What-if state: an order being built and a tier being tuned.

Plain frozen values and pure functions, no ipywidgets and no simulator: the
controller (`controller.py`) holds them and re-runs the analysis when they
change; the view (`view.py`) only turns widget events into new values.

Money is integer cents (minor units), as everywhere in promolab; a PERCENT
tier's value is its `percent_off` (a number of percent). Which currency the
cents are in is not part of this state: the slider is told it
(`slider_spec(..., currency=...)`, from the controller).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..analysis.tier_terms import min_amount_of, with_min_amount
from ..display import minor_digits, money_unit
from ..engine import TierSpec

__all__ = [
    "EFFECTS",
    "TUNABLE_TYPES",
    "VALUE_FIELD",
    "WHATIF_SUFFIX",
    "OrderDraft",
    "SliderSpec",
    "TierEdit",
    "apply_edit",
    "edit_of",
    "min_amount_of",
    "slider_spec",
    "whatif_id",
    "with_min_amount",
]

#: Discount types the tuner edits: the ones with a monetary value (UNIT tiers
#: give items, not money, and are compared but not tuned).
TUNABLE_TYPES = ("AMOUNT", "PERCENT", "FIXED")

#: Effects allowed per discount type (docs/pricing.md).
EFFECTS: Mapping[str, tuple[str, ...]] = {
    "AMOUNT": (
        "APPLY_TO_ORDER",
        "APPLY_TO_ITEMS",
        "APPLY_TO_ITEMS_BY_QUANTITY",
        "APPLY_TO_ITEMS_PROPORTIONALLY",
        "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY",
    ),
    "PERCENT": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
    "FIXED": ("APPLY_TO_ORDER", "APPLY_TO_ITEMS"),
}

#: The discount field holding the tuned value.
VALUE_FIELD: Mapping[str, str] = {"AMOUNT": "amount_off", "PERCENT": "percent_off", "FIXED": "fixed_amount"}

WHATIF_SUFFIX = " (what-if)"


def whatif_id(tier_id: str) -> str:
    """The id the what-if copy of a tier carries (distinct from the original,
    so both can be swept and compared side by side)."""
    return tier_id + WHATIF_SUFFIX


# -- the order ------------------------------------------------------------------
@dataclass(frozen=True)
class OrderDraft:
    """An order being built: quantities per product (0 = not in the order), in
    catalogue order, and an optional customer (source_id)."""

    quantities: tuple[tuple[str, int], ...]
    customer: str | None = None

    @classmethod
    def of(cls, products: list[str] | tuple[str, ...], customer: str | None = None, **initial: int) -> OrderDraft:
        unknown = set(initial) - set(products)
        if unknown:
            raise ValueError(f"unknown products: {', '.join(sorted(unknown))}")
        return cls(tuple((p, int(initial.get(p, 0))) for p in products), customer)

    @property
    def products(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.quantities)

    def quantity(self, product_id: str) -> int:
        for p, q in self.quantities:
            if p == product_id:
                return q
        raise KeyError(product_id)

    def with_quantity(self, product_id: str, quantity: int) -> OrderDraft:
        quantity = int(quantity)
        if quantity < 0:
            raise ValueError("a quantity cannot be negative")
        if product_id not in self.products:
            raise KeyError(product_id)
        return replace(self, quantities=tuple((p, quantity if p == product_id else q) for p, q in self.quantities))

    def with_customer(self, customer: str | None) -> OrderDraft:
        return replace(self, customer=customer or None)

    @property
    def is_empty(self) -> bool:
        return not any(q for _, q in self.quantities)

    def items(self) -> list[dict[str, Any]]:
        return [{"product_id": p, "quantity": q} for p, q in self.quantities if q > 0]

    def request(self) -> dict[str, Any]:
        """A validation request body (`client.validate_promotions(**draft.request())`)."""
        body: dict[str, Any] = {"order": {"items": self.items()}}
        if self.customer:
            body["customer"] = {"source_id": self.customer}
        return body


# -- the tier ---------------------------------------------------------------------
@dataclass(frozen=True)
class TierEdit:
    """What the tuner changes on a copy of a tier.

    `value`: cents (AMOUNT's `amount_off`, FIXED's `fixed_amount`) or percent
    (PERCENT's `percent_off`). `min_amount`: the minimum order amount in cents
    (the threshold of the tier's `order.amount` rule, or a rule added for it);
    None leaves the tier's rules as they are.
    """

    tier_id: str
    discount_type: str
    value: float
    effect: str
    min_amount: int | None = None

    def __post_init__(self) -> None:
        if self.discount_type not in TUNABLE_TYPES:
            raise ValueError(f"tier {self.tier_id}: {self.discount_type} tiers are not tunable")
        if self.effect not in EFFECTS[self.discount_type]:
            raise ValueError(
                f"effect {self.effect} is not allowed for {self.discount_type}; "
                f"allowed: {', '.join(EFFECTS[self.discount_type])}"
            )
        if self.value < 0:
            raise ValueError("a discount value cannot be negative")
        if self.discount_type == "PERCENT" and self.value > 100:
            raise ValueError("percent_off is at most 100")
        if self.min_amount is not None and self.min_amount < 0:
            raise ValueError("a minimum order amount cannot be negative")


def edit_of(spec: TierSpec) -> TierEdit:
    """The edit that reproduces a tier as it is."""
    kind = str(spec.discount.get("type"))
    if kind not in TUNABLE_TYPES:
        raise ValueError(f"tier {spec.id}: {kind} tiers are not tunable")
    value = spec.discount.get(VALUE_FIELD[kind]) or 0
    return TierEdit(
        tier_id=spec.id,
        discount_type=kind,
        value=value,
        effect=str(spec.discount.get("effect") or EFFECTS[kind][0]),
        min_amount=min_amount_of(spec.rules),
    )


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def apply_edit(spec: TierSpec, edit: TierEdit) -> TierSpec:
    """A what-if copy of `spec` (id `whatif_id(spec.id)`) with the edit applied."""
    if edit.tier_id != spec.id:
        raise ValueError(f"the edit is for {edit.tier_id}, not {spec.id}")
    discount = dict(spec.discount)
    field = VALUE_FIELD[edit.discount_type]
    discount[field] = _number(edit.value) if edit.discount_type == "PERCENT" else round(edit.value)
    discount["effect"] = edit.effect
    original = min_amount_of(spec.rules)
    rules = spec.rules if edit.min_amount == original else with_min_amount(spec.rules, edit.min_amount)
    return replace(spec, id=whatif_id(spec.id), discount=discount, rules=rules)


# -- what the view shows ------------------------------------------------------------
@dataclass(frozen=True)
class SliderSpec:
    """How to show a tier's value: in whole units of the currency (dollars,
    euros, yen) or in percent."""

    description: str
    unit: str  # the currency's symbol or code ("$", "€", "PLN"), or "%"
    minimum: float
    maximum: float
    step: float
    scale: int  # minor units per displayed unit (100 for $ and €, 1 for ¥ and %)

    def to_display(self, value: float) -> float:
        return value / self.scale

    def from_display(self, shown: float) -> float:
        """The tier's value for what the slider shows: a percent as it is, an
        amount in whole minor units (the tier's money is integer)."""
        return shown if self.unit == "%" else round(shown * self.scale)


def slider_spec(edit: TierEdit, original_value: float | None = None, *, currency: str) -> SliderSpec:
    """Slider bounds for a tier: percent 0-100; money in `currency` (the
    scenario's: the label reads like the amounts around it) from 0 to at least
    100 units and at least twice the tier's own value, in steps of half a unit
    (one unit for a currency without minor units, such as JPY)."""
    if edit.discount_type == "PERCENT":
        return SliderSpec("Percent off", "%", 0.0, 100.0, 1.0, 1)
    scale = 10 ** minor_digits(currency)
    base = float(original_value if original_value is not None else edit.value)
    top = max(100.0, 2 * base / scale)
    top = float(int(-(-top // 10) * 10))  # round up to 10 units
    label = "Amount off" if edit.discount_type == "AMOUNT" else "Fixed price"
    return SliderSpec(label, money_unit(currency), 0.0, top, 0.5 if scale > 1 else 1.0, scale)
