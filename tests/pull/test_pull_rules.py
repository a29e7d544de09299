"""The rules of a pull, written back into their owners: the same terms the simulator holds."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from promolab import Simulator
from promolab.pull import Reader
from promolab.pull.rules import read_rules
from promolab.sim import inline_terms
from promolab.sim.validation_rule_objects import rule_body, rule_owners
from pull_support import Hostile, target_of


def test_every_owner_gets_back_the_terms_it_holds(demo: Simulator) -> None:
    rules = read_rules(Reader(target_of(demo)))
    owners = list(rule_owners(demo.state))
    assert sorted(rules.terms) == sorted(owner.id for owner in owners)
    for owner in owners:
        assert rules.terms[owner.id] == inline_terms(rule_body(owner))
    beans = rules.terms["promo_beans_15"]
    assert beans.applicable_to == {"included": [{"object": "products_collection", "id": "pc_beans",
                                                 "effect": "APPLY_TO_EVERY"}]}
    assert rules.unexpressed == []


def _more_assignments(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    body = json.loads(real().content)
    if request.url.params.get("page") == "1":
        first = body["data"][0]
        body["data"] += [{**first, "id": "asgm_x1", "related_object_type": "earning_rule", "related_object_id": "ern_1"},
                         {**first, "id": "asgm_x2", "rule_id": "val_gone"},
                         {**first, "id": "asgm_x3", "rule_id": body["data"][1]["rule_id"]}]
        body["total"] += 3
    return httpx.Response(200, content=json.dumps(body).encode())


def test_what_an_owner_cannot_hold_is_reported(demo: Simulator) -> None:
    transport = Hostile(demo, "/v1/validation-rules-assignments", _more_assignments)
    rules = read_rules(Reader(target_of(demo, transport)))
    first = next(iter(rule_owners(demo.state)))  # the owner of the first assignment listed
    kind = first.kind
    assert [(u.object, u.id, u.why.split(":")[0]) for u in rules.unexpressed] == [
        ("earning_rule", "ern_1", "a scenario's earning_rule has no rules of its own"),
        (kind, first.id, "its rule val_gone is not in the rules list"),
        (kind, first.id, f"a scenario's {kind} holds one rule"),
    ]
    assert rules.terms[first.id] == inline_terms(rule_body(first))  # its own rule kept, the second left out
