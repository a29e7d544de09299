"""An interrupted pull resumes from its state file and ends with the same scenario;
the segments' order is rebuilt from each customer's segments."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from promolab.pull import PullError, PullOptions, pull, state_path
from promolab.pull.customers import merged_order
from pull_support import SCENARIOS, target_of


class _CutAfter(httpx.BaseTransport):
    """The simulator's answers, until `calls` of them; then the connection drops."""

    def __init__(self, sim: Simulator, calls: int) -> None:
        self.inner = SimulatorTransport(sim)
        self.left = calls
        self.sent: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(str(request.url))
        if self.left == 0:
            raise httpx.ConnectError("connection dropped", request=request)
        self.left -= 1
        return self.inner.handle_request(request)


def _fresh() -> Simulator:
    return Simulator.from_scenario(SCENARIOS / "demo.yaml")


@pytest.mark.parametrize("cut", [1, 3, 7])
def test_a_resumed_pull_ends_with_the_uninterrupted_scenario(cut: int, tmp_path: Path) -> None:
    whole = tmp_path / "whole.yaml"
    everything = _CutAfter(_fresh(), 10**6)
    pull(target_of(_fresh(), everything), whole)

    out = tmp_path / "resumed.yaml"
    with pytest.raises(PullError, match="ConnectError: connection dropped"):
        pull(target_of(_fresh(), _CutAfter(_fresh(), cut)), out)
    assert not out.exists()
    assert len(state_path(out).read_text(encoding="utf-8").splitlines()) == 1 + cut  # a header, then each page
    with pytest.raises(ValueError, match="--resume to go on with it"):
        pull(target_of(_fresh()), out)  # not resumed: refused, the state left as it was

    rest = _CutAfter(_fresh(), 10**6)
    pull(target_of(_fresh(), rest), out, PullOptions(resume=True))
    assert out.read_bytes() == whole.read_bytes()
    assert len(rest.sent) == len(everything.sent) - cut  # the pages kept are not asked for again
    assert not state_path(out).exists()


def test_a_pull_cut_before_its_first_page_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "p.yaml"
    with pytest.raises(PullError):
        pull(target_of(_fresh(), _CutAfter(_fresh(), 0)), out)
    assert list(tmp_path.iterdir()) == []


def test_a_torn_last_line_is_dropped_and_read_again(tmp_path: Path) -> None:
    whole = tmp_path / "whole.yaml"
    everything = _CutAfter(_fresh(), 10**6)
    pull(target_of(_fresh(), everything), whole)
    out = tmp_path / "torn.yaml"
    with pytest.raises(PullError):
        pull(target_of(_fresh(), _CutAfter(_fresh(), 4)), out)
    state = state_path(out)
    lines = state.read_bytes().splitlines(keepends=True)
    state.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])  # the last page half written
    rest = _CutAfter(_fresh(), 10**6)
    pull(target_of(_fresh(), rest), out, PullOptions(resume=True))
    assert out.read_bytes() == whole.read_bytes()
    assert len(rest.sent) == len(everything.sent) - 3  # three whole pages kept; the torn one asked again


def test_resume_refuses_what_is_not_a_pulls_state(tmp_path: Path) -> None:
    out = tmp_path / "p.yaml"
    with pytest.raises(ValueError, match="does not exist"):
        pull(target_of(_fresh()), out, PullOptions(resume=True))
    state_path(out).write_text(json.dumps({"format": "something else"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a pull's state file"):
        pull(target_of(_fresh()), out, PullOptions(resume=True))


@given(st.permutations([f"seg_{n}" for n in range(8)]), st.lists(st.lists(st.booleans(), min_size=8, max_size=8)))
def test_the_merged_order_keeps_every_customers_order(order: list[str], picks: list[list[bool]]) -> None:
    sequences = [[sid for sid, kept in zip(order, pick, strict=True) if kept] for pick in picks]
    merged = merged_order(sequences)
    assert sorted(merged) == sorted({sid for s in sequences for sid in s})
    for sequence in sequences:
        assert [sid for sid in merged if sid in sequence] == sequence


def test_contradicting_orders_still_give_every_id_once() -> None:
    merged = merged_order([["a", "b"], ["b", "a"], ["c"]])
    assert sorted(merged) == ["a", "b", "c"]
    assert merged == merged_order([["a", "b"], ["b", "a"], ["c"]])
