"""The pricing answers (`models.Rendered`) are served as rendered, byte for byte.

The HTTP face encodes a rendered answer with pydantic-core's encoder
(http/app.py, `_encode`), where it used `json.dumps(..., separators=(",",
":"), ensure_ascii=False)`. Differential: for each pricing operation on the
demo, and for JSON values of every kind in the metadata an answer echoes,
the bytes served are the bytes of the old encoder, and the answer's model
(`.model()`) equals what the typed client parses from them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo_keys import APP, BASE
from promolab import Simulator
from promolab.http import SimulatorTransport
from promolab.models.rendered import Rendered
from promolab.sim.operations import BY_NAME

CART = {"items": [{"product_id": "prod_grinder", "quantity": 1}, {"product_id": "prod_mug", "quantity": 2},
                  {"product_id": "prod_beans_ethiopia", "quantity": 3}]}
STACK = [
    {"object": "promotion_tier", "id": "promo_beans_15"},
    {"object": "voucher", "id": "WELCOME-OPEN-1"},
    {"object": "voucher", "id": "GIFT-BOB-25", "gift": {"credits": 1200}},
]

#: (operation, path, body): every pricing operation that answers with a Rendered model.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("validate", "/v1/promotions/validation", {"customer": {"source_id": "alice"}, "order": CART,
                                               "options": {"expand": ["category"]}}),
    ("validate", "/v1/promotions/validation", {"order": {"items": []}}),
    ("validate_stacked", "/v1/validations", {"customer": {"source_id": "bob"}, "order": CART, "redeemables": STACK}),
    ("qualifications", "/v1/qualifications", {"customer": {"source_id": "alice"}, "order": CART,
                                              "scenario": "ALL"}),
    ("redeem_stacked", "/v1/redemptions", {"customer": {"source_id": "bob"}, "order": CART, "redeemables": STACK}),
]


def _old_encoder(wire: dict[str, Any]) -> bytes:
    return json.dumps(wire, separators=(",", ":"), ensure_ascii=False).encode()


@pytest.mark.parametrize(("name", "path", "body"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_served_bytes_are_the_rendered_json(sim: Simulator, name: str, path: str, body: dict[str, Any]) -> None:
    twin = Simulator.restore(sim.snapshot())  # the same state, answered in-process
    served = httpx.Client(base_url=BASE, transport=SimulatorTransport(sim), headers=APP).post(path, json=body)
    assert served.status_code == 200, served.text
    answer = twin.apply(BY_NAME[name], request=body)
    assert isinstance(answer, Rendered)
    assert served.content == _old_encoder(answer.wire)
    endpoint = BY_NAME[name].endpoint
    assert endpoint is not None and endpoint.response is answer.model_type
    assert answer.model() == answer.model_type.model_validate_json(served.content)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f == 0 or 1e-4 <= abs(f) < 1e16)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(metadata=st.dictionaries(st.text(min_size=1, max_size=6), _JSON, max_size=4))
def test_echoed_metadata_is_encoded_as_before(sim: Simulator, metadata: dict[str, Any]) -> None:
    """A stacked validation echoes the order's metadata: any JSON value of it (floats
    outside [1e-4, 1e16) aside, whose exponent pydantic-core writes without
    padding, `1e-7` for `1e-07`: the same number) comes out as json.dumps wrote it."""
    body = {"customer": {"source_id": "bob"}, "order": {**CART, "metadata": metadata}, "redeemables": STACK[:1]}
    twin = Simulator.restore(sim.snapshot())
    served = httpx.Client(base_url=BASE, transport=SimulatorTransport(twin), headers=APP).post(
        "/v1/validations", json=body
    )
    assert served.status_code == 200, served.text
    assert json.loads(served.content)["order"]["metadata"] == metadata  # echoed, so encoded here
    assert served.content == _old_encoder(json.loads(served.content))
    assert served.content == _old_encoder(Simulator.restore(sim.snapshot()).apply(BY_NAME["validate_stacked"],
                                                                                  request=body).wire)
