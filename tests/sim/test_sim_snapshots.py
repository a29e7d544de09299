"""Determinism: snapshot/restore, same seed + same calls = same bytes, reset."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promolab import Simulator
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.operations.rewards import DELETE_REWARD
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.refusals import SimError
from promolab.sim.simulator import SNAPSHOT_FORMAT


def image(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot)


def play(sim: Simulator) -> None:
    """Some writes, some refusals and some time."""
    sim.advance(30)
    sim.apply(DELETE_REWARD, reward_id="lrew_retired")
    sim.advance(timedelta(minutes=5))
    with pytest.raises(SimError):
        sim.apply(DELETE_REWARD, reward_id="lrew_mug")
    sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_crm")
    sim.advance(0.25)
    sim.ids.next("card_transaction")  # the generator's counters are part of the image


def test_snapshot_restore_snapshot_is_byte_identical(sim: Simulator) -> None:
    first = sim.snapshot()
    assert first["format"] == SNAPSHOT_FORMAT
    assert image(Simulator.restore(first).snapshot()) == image(first)


def test_restore_after_operations_and_clock_advances(sim: Simulator) -> None:
    play(sim)
    taken = sim.snapshot()
    # Through text, as a snapshot saved to a file would travel.
    restored = Simulator.restore(json.loads(json.dumps(taken)))
    assert image(restored.snapshot()) == image(taken)
    assert restored.dump_json() == sim.dump_json()
    assert restored.now == sim.now == sim.clock.now
    assert restored.state.rewards["lrew_retired"].status == "DELETED"
    # ...and it goes on exactly as the original would.
    for target in (sim, restored):
        target.advance(60)
        target.ids.next("incentive")
    assert restored.dump_json() == sim.dump_json()
    assert restored.ids.next("reward") == sim.ids.next("reward")


def test_restore_keeps_secrets_of_a_full_snapshot(sim: Simulator) -> None:
    restored = Simulator.restore(sim.snapshot())
    assert restored.state.project.credentials.app_token.get_secret_value() == "kestrel-app-token"
    assert restored.client().get_incentive("linc_0a11ce01").id == "linc_0a11ce01"


def test_redacted_snapshot_has_no_secrets_and_full_one_has_them(sim: Simulator) -> None:
    assert "kestrel-app-token" in image(sim.snapshot())
    redacted, dump = image(sim.snapshot(redact=True)), sim.dump_json()
    for secret in ("kestrel-app-token", "kestrel-access-token", "kestrel-management-token", "kestrel-crm-secret"):
        assert secret not in redacted
        assert secret not in dump


def test_restore_refuses_what_is_not_a_snapshot(sim: Simulator) -> None:
    with pytest.raises(ValueError, match="not a promolab snapshot"):
        Simulator.restore({**sim.snapshot(), "format": "promolab.snapshot/0"})


def test_two_simulators_with_the_same_seed_and_calls_are_identical(demo_path: Any) -> None:
    a, b = Simulator.from_scenario(demo_path), Simulator.from_scenario(demo_path)
    play(a)
    play(b)
    assert a.dump_json() == b.dump_json()
    assert image(a.snapshot()) == image(b.snapshot())


def test_different_seeds_give_different_generated_ids() -> None:
    document = {"catalogue": {"products": [{"name": "Mug"}, {"id": "x", "name": "X"}]},
                "customers": [{"source_id": "ann"}],
                "loyalty": {"incentives": [{"name": "Mug", "type": "MATERIAL", "material": {"product": {"id": "x"}}}]}}

    def ids(seed: int) -> list[str]:
        sim = Simulator.from_scenario(document, seed=seed)
        state = sim.state
        generated = [p for p in state.products if p != "x"]  # "x": the product the incentive gives, named
        return [*generated, *state.customers, *state.incentives, sim.ids.next("card_transaction")]

    assert ids(1) == ids(1)
    one, two = ids(1), ids(2)
    assert all(x != y for x, y in zip(one, two, strict=True))
    assert [x.split("_")[0] for x in one] == [x.split("_")[0] for x in two] == ["prod", "cust", "linc", "lctx"]


def test_reset_returns_to_the_initial_dump(sim: Simulator) -> None:
    initial = sim.dump_json()
    play(sim)
    assert sim.dump_json() != initial
    sim.reset()
    assert sim.dump_json() == initial
    play(sim)  # and plays the same again
    sim.reset()
    assert sim.dump_json() == initial


def test_reset_after_restore_returns_to_the_restored_image(sim: Simulator) -> None:
    play(sim)
    restored = Simulator.restore(sim.snapshot())
    at_restore = restored.dump_json()
    restored.advance(3600)
    restored.reset()
    assert restored.dump_json() == at_restore


def test_simulators_do_not_share_state(sim: Simulator) -> None:
    other = Simulator.restore(sim.snapshot())
    sim.advance(60)
    sim.apply(DELETE_REWARD, reward_id="lrew_retired")
    assert other.now + timedelta(seconds=60) == sim.now
    assert other.state.rewards["lrew_retired"].status == "INACTIVE"


# -- property: any interleaving of calls is reproducible and restorable -------------

CALLS = st.one_of(
    st.tuples(st.just("advance"), st.integers(min_value=0, max_value=86_400)),
    st.tuples(st.just("delete_reward"), st.sampled_from(["lrew_retired", "lrew_mug", "lrew_nope", "lrew_coupon"])),
    st.tuples(st.just("delete_webhook"), st.sampled_from(["wh_crm", "wh_notebook", "wh_nope"])),
    st.tuples(st.just("get_incentive"), st.sampled_from(["linc_0a11ce01", "linc_0a11ce06", "linc_ffff", "bad"])),
    st.tuples(st.just("next_id"), st.sampled_from(["incentive", "reward", "card_transaction"])),
)


def call(sim: Simulator, step: tuple[str, Any]) -> Any:
    name, arg = step
    try:
        if name == "advance":
            return sim.advance(arg).isoformat()
        if name == "delete_webhook":
            return sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id=arg)
        if name == "next_id":
            return sim.ids.next(arg)
        if name == "delete_reward":
            return sim.apply(DELETE_REWARD, reward_id=arg).model_dump(mode="json")
        return sim.apply(GET_INCENTIVE, incentive_id=arg).model_dump(mode="json")
    except SimError as exc:
        return exc.body()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(CALLS, max_size=12), cut=st.integers(min_value=0, max_value=12))
def test_same_calls_same_bytes_and_a_snapshot_anywhere_resumes_exactly(
    _demo_document: dict[str, Any], steps: list[tuple[str, Any]], cut: int
) -> None:
    import copy

    a = Simulator.from_scenario(copy.deepcopy(_demo_document))
    b = Simulator.from_scenario(copy.deepcopy(_demo_document))
    results_a = [call(a, s) for s in steps]
    cut = min(cut, len(steps))
    results_b = [call(b, s) for s in steps[:cut]]
    snap = b.snapshot()
    assert image(Simulator.restore(snap).snapshot()) == image(snap)
    c = Simulator.restore(json.loads(json.dumps(snap)))
    results_b += [call(c, s) for s in steps[cut:]]
    assert results_b == results_a
    assert c.dump_json() == a.dump_json()
