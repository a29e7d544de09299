"""Discounts: AMOUNT, PERCENT, FIXED and UNIT (single unit or ADD_MANY_ITEMS).

``Discount`` is a tagged union. UNIT has two shapes that share ``type: "UNIT"``; the
``effect`` tells them apart (ADD_MANY_ITEMS carries ``units[]``), hence a callable
discriminator rather than a plain field discriminator.

Defaults for an omitted ``effect`` follow the semantics notes §2: AMOUNT and PERCENT
default to APPLY_TO_ORDER (the documented default when no products are scoped; product
scoping lives in validation rules the model cannot see, so the simulator sets
APPLY_TO_ITEMS itself when it knows), UNIT defaults to ADD_MISSING_ITEMS. FIXED has no
documented default, so its effect is required.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Discriminator, Field, Tag, TypeAdapter
from pydantic_core import PydanticCustomError

from ._base import WireModel, checked_after, fail
from .common import Money, NonNegativeInt64

__all__ = [
    "UNIT_TYPE_PATTERN",
    "AmountDiscount",
    "AmountEffect",
    "Discount",
    "DiscountAdapter",
    "DiscountProduct",
    "DiscountSku",
    "DiscountType",
    "DiscountUnitEntry",
    "FixedDiscount",
    "FixedEffect",
    "PercentDiscount",
    "PercentEffect",
    "UnitDiscount",
    "UnitEffect",
    "UnitManyDiscount",
]

#: A unit is a product (``prod_…``) or a SKU (``sku_…``).
UNIT_TYPE_PATTERN = r"^(prod|sku)_\S+$"


class DiscountType(StrEnum):
    AMOUNT = "AMOUNT"
    PERCENT = "PERCENT"
    FIXED = "FIXED"
    UNIT = "UNIT"


class AmountEffect(StrEnum):
    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"
    APPLY_TO_ITEMS_PROPORTIONALLY = "APPLY_TO_ITEMS_PROPORTIONALLY"
    APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY = "APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY"
    APPLY_TO_ITEMS_BY_QUANTITY = "APPLY_TO_ITEMS_BY_QUANTITY"


class PercentEffect(StrEnum):
    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"


class FixedEffect(StrEnum):
    APPLY_TO_ORDER = "APPLY_TO_ORDER"
    APPLY_TO_ITEMS = "APPLY_TO_ITEMS"


class UnitEffect(StrEnum):
    """Effects of one unit; ADD_MANY_ITEMS is the shape-changing effect of the union."""

    ADD_MISSING_ITEMS = "ADD_MISSING_ITEMS"
    ADD_NEW_ITEMS = "ADD_NEW_ITEMS"


def _number_only(value: Any) -> Any:
    # percent_off is a JSON number; "10" or true are caller bugs, not percentages.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("number_type", "Input should be a number")
    return value


#: A percentage in (0, 100]; ints stay ints so ``10`` is sent back as ``10``, not ``10.0``.
Percent = Annotated[int | float, BeforeValidator(_number_only), Field(gt=0, le=100)]


class DiscountProduct(WireModel):
    """The product behind a UNIT discount, expanded with its names."""

    __omit_if_none__ = frozenset({"source_id", "name"})

    id: str = Field(min_length=1)
    source_id: str | None = None
    name: str | None = None


class DiscountSku(WireModel):
    __omit_if_none__ = frozenset({"source_id", "sku"})

    id: str = Field(min_length=1)
    source_id: str | None = None
    sku: str | None = None


class AmountDiscount(WireModel):
    __omit_if_none__ = frozenset({"amount_limit", "aggregated_amount_limit"})

    type: Literal["AMOUNT"] = "AMOUNT"
    amount_off: Money
    effect: AmountEffect = AmountEffect.APPLY_TO_ORDER
    amount_limit: Money | None = None
    aggregated_amount_limit: Money | None = None


class PercentDiscount(WireModel):
    __omit_if_none__ = frozenset({"amount_limit", "aggregated_amount_limit"})

    type: Literal["PERCENT"] = "PERCENT"
    percent_off: Percent
    effect: PercentEffect = PercentEffect.APPLY_TO_ORDER
    amount_limit: Money | None = None
    aggregated_amount_limit: Money | None = None


class FixedDiscount(WireModel):
    """A new price. ``fixed_amount`` is optional: the interface's FIXED example shows none
    (the new unit price then comes from ``applicable_to.data[].price``)."""

    __omit_if_none__ = frozenset({"fixed_amount"})

    type: Literal["FIXED"] = "FIXED"
    fixed_amount: Money | None = None
    effect: FixedEffect


def _check_unit_sku(unit: UnitDiscount | DiscountUnitEntry) -> None:
    # Interface: "sku only when a sku is the unit" - and then it is that very sku.
    if unit.sku is not None and unit.sku.id != unit.unit_type:
        fail(
            "sku",
            f"sku is only sent when the unit is that sku (unit_type {unit.unit_type})",
            unit.sku.id,
        )


class UnitDiscount(WireModel):
    """``unit_off`` free units of ``unit_type``, added as new items or topped up."""

    __omit_if_none__ = frozenset({"sku", "product"})

    type: Literal["UNIT"] = "UNIT"
    effect: UnitEffect = UnitEffect.ADD_MISSING_ITEMS
    unit_off: NonNegativeInt64
    unit_type: str = Field(pattern=UNIT_TYPE_PATTERN)
    sku: DiscountSku | None = None
    product: DiscountProduct | None = None

    _sku_only_for_sku_units = checked_after(_check_unit_sku)


class DiscountUnitEntry(WireModel):
    """One entry of an ADD_MANY_ITEMS discount; its own effect is required."""

    __omit_if_none__ = frozenset({"sku", "product"})

    effect: UnitEffect
    unit_off: NonNegativeInt64
    unit_type: str = Field(pattern=UNIT_TYPE_PATTERN)
    sku: DiscountSku | None = None
    product: DiscountProduct | None = None

    _sku_only_for_sku_units = checked_after(_check_unit_sku)


class UnitManyDiscount(WireModel):
    """Several UNIT discounts applied one after the other."""

    type: Literal["UNIT"] = "UNIT"
    effect: Literal["ADD_MANY_ITEMS"] = "ADD_MANY_ITEMS"
    units: list[DiscountUnitEntry] = Field(min_length=1)


def _discount_tag(value: Any) -> str | None:
    if isinstance(value, dict):
        kind, effect = value.get("type"), value.get("effect")
    else:
        kind, effect = getattr(value, "type", None), getattr(value, "effect", None)
    if kind == "UNIT":
        return "UNIT_MANY" if effect == "ADD_MANY_ITEMS" else "UNIT"
    if kind in ("AMOUNT", "PERCENT", "FIXED"):
        return str(kind)
    return None


Discount = Annotated[
    Annotated[AmountDiscount, Tag("AMOUNT")]
    | Annotated[PercentDiscount, Tag("PERCENT")]
    | Annotated[FixedDiscount, Tag("FIXED")]
    | Annotated[UnitDiscount, Tag("UNIT")]
    | Annotated[UnitManyDiscount, Tag("UNIT_MANY")],
    Discriminator(
        _discount_tag,
        custom_error_type="discount_type",
        custom_error_message="discount.type should be one of AMOUNT, PERCENT, FIXED, UNIT",
    ),
]

#: Validate/dump a bare discount (scenario files, tests) without a wrapping model.
DiscountAdapter: TypeAdapter[Discount] = TypeAdapter(Discount)
