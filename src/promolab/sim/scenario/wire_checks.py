"""Check the wire-shaped parts of a scenario against the wire models.

Discounts, incentives and rewards are written in a scenario exactly as the
service shows them, so the wire models are the authority on their shape; a
validation-rule object is checked by compiling it with the pricing engine's
rule compiler, the same code that will evaluate it.
"""

from __future__ import annotations

from typing import Any

from ... import models
from ..records import Incentive, Reward

__all__ = ["check_discount", "check_incentive", "check_reward", "check_rules"]


def check_discount(discount: dict[str, Any]) -> None:
    models.DiscountAdapter.validate_python(discount)


def check_rules(rules: dict[str, Any]) -> None:
    from ...engine import compile_rules

    compile_rules(rules)


def check_incentive(record: Incentive) -> None:
    from ..render import render_incentive

    render_incentive(record)


def check_reward(record: Reward) -> None:
    from ..render import render_reward

    render_reward(record)
