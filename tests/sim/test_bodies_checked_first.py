"""A body is checked before its operation runs, and validated once.

`operation.bind` puts the endpoint's request model in front of every
operation that takes a body (`request_parsing.enter_body`): a body the
model refuses never reaches the operation's code (issue 34, item 2: the
stored order was looked up by `order.source_id` before the body was
checked, a 500 for `{}`), and the operation's own `parse(Model, request)`
reuses the check instead of validating again. The HTTP-level cases, one
per property of every request model, are in
tests/reliability/test_bad_inputs.py (`checked-first`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pydantic import BaseModel

from promolab import Simulator
from promolab.sim import request_parsing
from promolab.sim.operations import BY_NAME
from promolab.sim.refusals import InvalidPayload

GOOD: dict[str, dict[str, Any]] = {
    "validate_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
    "redeem_stacked": {"redeemables": [{"object": "voucher", "id": "WELCOME-OPEN-1"}], "order": {"amount": 5000}},
    "qualifications": {"order": {"amount": 5000}},
    "validate": {"customer": {"source_id": "alice"}, "order": {"amount": 5000}},
    "publish": {"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}},
    "track_event": {"event": "review_written", "customer": {"source_id": "alice"}, "metadata": {"rating": 5}},
}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[type[BaseModel]]:
    """How many times each request model validates a body."""
    seen: Counter[type[BaseModel]] = Counter()
    real = request_parsing.validated

    def counting(model: type[BaseModel], data: Any) -> Any:
        seen[model] += 1
        return real(model, data)

    monkeypatch.setattr(request_parsing, "validated", counting)
    return seen


@pytest.mark.parametrize("name", list(GOOD))
def test_a_body_is_validated_once(sim: Simulator, counted: Counter[type[BaseModel]], name: str) -> None:
    op = BY_NAME[name]
    assert op.endpoint is not None and op.endpoint.request is not None
    sim.apply(op, request=GOOD[name])
    assert counted[op.endpoint.request] == 1, dict(counted)


#: (operation, module, a function of it that looks the state up): none may run for a refused body.
LOOKUPS = [
    ("redeem_stacked", "promolab.sim.operations.redemptions", "order_by_source"),
    ("redeem_stacked", "promolab.sim.operations.stacked_validation", "stacking_rules_in_force"),
    ("validate_stacked", "promolab.sim.operations.stacked_validation", "stacking_rules_in_force"),
    ("validate", "promolab.sim.operations.validation", "pricing_view"),
]


@pytest.mark.parametrize(("name", "module", "lookup"), LOOKUPS, ids=[f"{n}-{f}" for n, _, f in LOOKUPS])
@pytest.mark.parametrize("source_id", [{}, [1], 7], ids=["object", "array", "number"])
def test_a_bad_body_reaches_no_lookup(sim: Simulator, monkeypatch: pytest.MonkeyPatch, name: str, module: str,
                                      lookup: str, source_id: Any) -> None:
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{name} looked the state up ({lookup}) for a body its model refuses")

    monkeypatch.setattr(f"{module}.{lookup}", never)
    before = sim.dump_json()
    with pytest.raises(InvalidPayload) as refused:
        sim.apply(BY_NAME[name], request={**GOOD[name], "order": {"amount": 5000, "source_id": source_id}})
    assert refused.value.details.startswith("Property .order.source_id: ")
    assert sim.dump_json() == before
