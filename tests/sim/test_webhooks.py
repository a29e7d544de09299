"""Webhook envelope, signing, delivery and retries on the simulated clock."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from promolab import Simulator, models
from promolab.sim.operations.balance import ADD_GIFT_BALANCE
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.operations.publishing import PUBLISH
from promolab.sim.operations.webhook_configs import DELETE_WEBHOOK
from promolab.sim.records import WebhookConfig
from promolab.sim.webhooks import MAX_ATTEMPTS, RETRY_OFFSETS
from promolab.webhooks import encode_body, sign, verify_signature

DEMO = Path(__file__).parents[2] / "data" / "scenarios" / "demo.yaml"
SECRET = "kestrel-webhook-secret"


@pytest.fixture(scope="module")
def demo_snapshot() -> dict[str, Any]:
    return Simulator.from_scenario(DEMO).snapshot()


@pytest.fixture
def sim(demo_snapshot: dict[str, Any]) -> Simulator:
    sim = Simulator.restore(demo_snapshot)
    sim.register_receiver("crm", lambda headers, body: 200)
    return sim


class Receiver:
    """Answers `statuses` in turn (then `then`), recording every call."""

    def __init__(self, sim: Simulator, statuses: list[Any] | None = None, then: Any = 200) -> None:
        self.sim = sim
        self.statuses = list(statuses or [])
        self.then = then
        self.calls: list[tuple[datetime, dict[str, str], bytes]] = []

    def __call__(self, headers: Mapping[str, str], body: bytes) -> Any:
        self.calls.append((self.sim.now, dict(headers), body))
        answer = self.statuses.pop(0) if self.statuses else self.then
        if isinstance(answer, BaseException):
            raise answer
        return answer


def add_balance(sim: Simulator, code: str, amount: int) -> models.BalanceResult:
    """Credit a gift card on the simulator itself (no HTTP): what fires the webhooks here."""
    return sim.apply(ADD_GIFT_BALANCE, code=code, request={"amount": amount})


def attempts(sim: Simulator, webhook_id: str = "wh_notebook") -> list[Any]:
    return [a for a in sim.state.webhook_deliveries if a.webhook_id == webhook_id]


# -- signing ------------------------------------------------------------------------------------------
def test_public_signature_vector() -> None:
    expected = "a17d2ac229d1ebbb5f10e839c7985c4818e5986eab297f7e5979196d4d7d3ed2"
    assert sign(b'{"a":1}', "secretKey") == expected
    assert sign('{"a":1}', b"secretKey") == expected
    assert verify_signature(b'{"a":1}', expected, "secretKey")
    assert verify_signature(b'{"a":1}', expected.upper(), "secretKey")
    assert not verify_signature(b'{"a": 1}', expected, "secretKey")  # whitespace matters
    assert not verify_signature(b'{"a":1}', expected, "otherKey")
    assert not verify_signature(b'{"a":1}', expected[:-1] + "0", "secretKey")
    assert encode_body({"a": 1}) == b'{"a":1}'
    assert encode_body({"name": "Zoë", "x": [1, {"y": None}]}) == '{"name":"Zoë","x":[1,{"y":null}]}'.encode()


def test_envelope_and_signature_of_a_delivery(sim: Simulator) -> None:
    notebook = Receiver(sim)
    sim.register_receiver("notebook", notebook)
    add_balance(sim, "GIFT-ALICE-50", 400)
    (_, headers, body), = notebook.calls
    assert headers["content-type"] == "application/json"
    assert verify_signature(body, headers["x-voucherify-signature"], SECRET)
    assert body == encode_body(json.loads(body))  # compact, like JSON.stringify
    envelope = json.loads(body)
    assert list(envelope) == ["id", "project_id", "created_at", "type", "data", "source", "event"]
    assert envelope["id"].startswith("whs_")
    assert envelope["project_id"] == "proj_kestrel"
    assert envelope["created_at"] == "2026-03-06T10:00:00.000Z"
    assert envelope["type"] == "customer.voucher.gift.balance_added"
    assert envelope["source"] == {"id": "wh_notebook", "object": "webhook", "target_url": "receiver://notebook"}
    event = envelope["event"]
    assert event["id"].startswith("evcus_") and event["type"] == "customer.voucher.gift.balance_added"
    assert event["created_at"] == envelope["created_at"]
    assert event["entity_id"] == envelope["data"]["voucher"]["id"]
    assert event["group_id"].startswith("v-") and event["event_source"] == {"channel": "API"}
    assert set(envelope["data"]) == {"customer", "campaign", "voucher", "balance", "transaction"}
    # the other configuration got its own sendout of the same event
    (crm,) = attempts(sim, "wh_crm")
    assert crm.outcome == "delivered" and crm.sendout_id != envelope["id"]
    (mine,) = attempts(sim)
    assert crm.signature != mine.signature  # another secret, another sendout
    assert mine.signature == headers["x-voucherify-signature"] and mine.target == "receiver://notebook"


def test_every_attempt_carries_the_webhook_version(sim: Simulator) -> None:
    """The interface gives the event a webhook version (2024-01-01) that the
    envelope does not carry: each attempt says it in a header, retries too."""
    notebook = Receiver(sim, [500, TimeoutError()])
    sim.register_receiver("notebook", notebook)
    add_balance(sim, "GIFT-ALICE-50", 400)
    sim.advance(600)
    assert len(notebook.calls) == 3  # the first attempt and two retries
    for _, headers, _ in notebook.calls:
        assert headers["x-promolab-webhook-version"] == models.WEBHOOK_VERSION == "2024-01-01"
        assert list(headers) == [
            "content-type", "user-agent", "x-promolab-webhook-version", "x-voucherify-signature",
        ]


def test_each_configuration_signs_with_its_own_secret(sim: Simulator) -> None:
    bodies: dict[str, tuple[dict[str, str], bytes]] = {}
    sim.register_receiver("notebook", lambda h, b: bodies.__setitem__("notebook", (dict(h), b)))
    sim.register_receiver("crm", lambda h, b: bodies.__setitem__("crm", (dict(h), b)))
    add_balance(sim, "GIFT-ALICE-50", 400)
    for name, secret in (("notebook", SECRET), ("crm", "kestrel-crm-secret")):
        headers, body = bodies[name]
        assert verify_signature(body, headers["x-voucherify-signature"], secret)
    assert json.loads(bodies["notebook"][1])["event"]["id"] == json.loads(bodies["crm"][1])["event"]["id"]


# -- retries -------------------------------------------------------------------------------------------
def test_three_failures_then_success_is_delivered_once(sim: Simulator) -> None:
    notebook = Receiver(sim, [500, TimeoutError("slow"), RuntimeError("boom")])
    sim.register_receiver("notebook", notebook)
    t0 = sim.now
    add_balance(sim, "GIFT-ALICE-50", 400)
    assert len(notebook.calls) == 1
    sim.advance(59)
    assert len(notebook.calls) == 1  # not yet: the first retry is due at +1 min
    sim.advance(1)
    assert len(notebook.calls) == 2
    sim.advance(timedelta(days=3))
    log = attempts(sim)
    assert [a.attempted_at - t0 for a in log] == [timedelta(minutes=m) for m in (0, 1, 2, 4)]
    assert [call[0] - t0 for call in notebook.calls] == [timedelta(minutes=m) for m in (0, 1, 2, 4)]
    assert [a.outcome for a in log] == ["failed", "timeout", "error", "delivered"]
    assert [a.attempt for a in log] == [1, 2, 3, 4]
    assert [a.next_attempt_at - t0 if a.next_attempt_at else None for a in log] == [
        timedelta(minutes=1), timedelta(minutes=2), timedelta(minutes=4), None,
    ]
    assert log[0].status_code == 500 and "boom" in (log[2].error or "")
    assert len({call[2] for call in notebook.calls}) == 1  # the same body every time
    assert len({a.sendout_id for a in log}) == 1
    assert sum(a.outcome == "delivered" for a in log) == 1
    assert sim.state.pending_deliveries == []
    assert sim.state.webhooks["wh_notebook"].status == "ACTIVE"


def test_always_failing_receiver_ends_at_24_hours_and_disables(sim: Simulator) -> None:
    notebook = Receiver(sim, then=503)
    sim.register_receiver("notebook", notebook)
    t0 = sim.now
    add_balance(sim, "GIFT-ALICE-50", 400)
    sim.advance(timedelta(hours=23, minutes=59))
    assert len(attempts(sim)) == MAX_ATTEMPTS - 1
    sim.advance(timedelta(minutes=1))
    log = attempts(sim)
    offsets = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440]  # minutes after the first attempt
    assert [a.attempted_at - t0 for a in log] == [timedelta(minutes=m) for m in offsets]
    assert [a.attempt for a in log] == list(range(1, len(offsets) + 1)) and len(log) == MAX_ATTEMPTS
    assert RETRY_OFFSETS[-1] == timedelta(hours=24)
    assert all(a.outcome == "failed" and a.status_code == 503 for a in log)
    assert log[-1].next_attempt_at is None
    assert sim.state.webhooks["wh_notebook"].status == "DISABLED"
    assert sim.state.pending_deliveries == []
    # a disabled configuration gets nothing more; the other one still does
    add_balance(sim, "GIFT-ALICE-50", 100)
    sim.advance(timedelta(days=2))
    assert len(attempts(sim)) == MAX_ATTEMPTS and len(notebook.calls) == MAX_ATTEMPTS
    assert [a.outcome for a in attempts(sim, "wh_crm")] == ["delivered", "delivered"]


def test_unregistered_receiver_is_a_failed_attempt(sim: Simulator) -> None:
    add_balance(sim, "GIFT-ALICE-50", 400)
    (first,) = attempts(sim)
    assert first.outcome == "error" and "notebook" in (first.error or "")
    sim.register_receiver("notebook", Receiver(sim))
    sim.advance(60)
    assert [a.outcome for a in attempts(sim)] == ["error", "delivered"]


@pytest.mark.parametrize("answer", [302, 404, "OK", True])
def test_non_2xx_or_non_status_answers_fail(sim: Simulator, answer: Any) -> None:
    sim.register_receiver("notebook", Receiver(sim, then=answer))
    add_balance(sim, "GIFT-ALICE-50", 400)
    (first,) = attempts(sim)
    assert first.outcome in ("failed", "error") and first.next_attempt_at is not None


def test_pending_retries_survive_snapshot_and_restore(sim: Simulator) -> None:
    sim.register_receiver("notebook", Receiver(sim, then=500))
    add_balance(sim, "GIFT-ALICE-50", 400)
    restored = Simulator.restore(sim.snapshot())
    late = Receiver(restored)
    restored.register_receiver("notebook", late)
    restored.advance(60)
    assert len(late.calls) == 1
    assert [a.outcome for a in attempts(restored)] == ["failed", "delivered"]


# -- deleted configurations -----------------------------------------------------------------------------
def test_deleted_configuration_gets_nothing_more(sim: Simulator) -> None:
    notebook = Receiver(sim, then=500)
    sim.register_receiver("notebook", notebook)
    add_balance(sim, "GIFT-ALICE-50", 400)
    assert len(notebook.calls) == 1
    sim.client().delete_webhook("proj_kestrel", "wh_notebook")
    sim.advance(timedelta(days=2))
    add_balance(sim, "GIFT-ALICE-50", 100)
    sim.advance(timedelta(days=2))
    assert len(notebook.calls) == 1 and len(attempts(sim)) == 1
    assert all(p.webhook_id != "wh_notebook" for p in sim.state.pending_deliveries)


def test_status_is_checked_when_an_attempt_falls_due(sim: Simulator) -> None:
    notebook = Receiver(sim, then=500)
    sim.register_receiver("notebook", notebook)
    add_balance(sim, "GIFT-ALICE-50", 400)
    sim.state.webhooks["wh_notebook"].status = "DELETED"  # pending retries left in place
    sim.advance(timedelta(days=2))
    assert len(notebook.calls) == 1 and len(attempts(sim)) == 1
    assert sim.state.pending_deliveries == []


# -- deliveries follow a complete operation -----------------------------------------------------------------
def test_receiver_sees_the_completed_state_and_cannot_break_it(sim: Simulator) -> None:
    seen: list[tuple[int, int]] = []

    def nosy(headers: Mapping[str, str], body: bytes) -> int:
        alice = sim.state.vouchers[sim.indexes.voucher_by_code["GIFT-ALICE-50"]]
        assert alice.gift is not None
        seen.append((alice.gift.balance, len(sim.state.voucher_transactions)))
        raise RuntimeError("receiver bug")

    sim.register_receiver("notebook", nosy)
    result = add_balance(sim, "GIFT-ALICE-50", 400)
    assert result.balance == 5400
    assert seen == [(5400, 1)]
    assert attempts(sim)[0].outcome == "error"
    through_client = sim.client().add_gift_balance("GIFT-ALICE-50", 100)
    assert through_client.balance == 5500 and seen[-1] == (5500, 2)


def test_receiver_may_call_back_into_the_simulator(sim: Simulator) -> None:
    def reentrant(headers: Mapping[str, str], body: bytes) -> None:
        customer = json.loads(body)["data"]["customer"]["id"]
        sim.apply(PUBLISH, request={"customer": {"id": customer}, "campaign": {"id": "camp_newsletter"}})

    sim.register_receiver("notebook", reentrant)
    add_balance(sim, "GIFT-ALICE-50", 400)
    assert [a.outcome for a in attempts(sim)] == ["delivered"]
    assert [p.customer_id for p in sim.state.publications.values()] == ["cust_alice"]


@pytest.mark.timeout(30)
def test_receiver_may_advance_the_clock_from_a_delivery(sim: Simulator) -> None:
    """The other configuration's sendout is still due when the nested advance
    runs: it is the outer delivery's to make (the advance must not spin on it)."""
    moments: list[datetime] = []

    def advancing(headers: Mapping[str, str], body: bytes) -> None:
        moments.append(sim.advance(30))

    sim.register_receiver("notebook", advancing)
    t0 = sim.now
    add_balance(sim, "GIFT-ALICE-50", 400)
    assert moments == [t0 + timedelta(seconds=30)]
    assert [(a.webhook_id, a.outcome, a.attempted_at) for a in sim.state.webhook_deliveries] == [
        ("wh_notebook", "delivered", t0), ("wh_crm", "delivered", t0 + timedelta(seconds=30)),
    ]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("nested", [30, 3600], ids=["within", "past-the-outer-target"])
def test_receiver_advancing_from_a_retry_during_an_advance(demo_snapshot: dict[str, Any], nested: int) -> None:
    """A retry falls due inside `advance(120)` and its receiver advances the
    clock (maybe past 120 s) and writes: the clock never goes back, the outer
    advance ends at the later of the two ends, and the journal replays on a
    fresh simulator without a line starting before the one above it."""
    from promolab.replay import record, replay

    sim = Simulator.restore(demo_snapshot)
    calls: list[datetime] = []

    def receiver(headers: Mapping[str, str], body: bytes) -> int | None:
        calls.append(sim.now)
        if len(calls) == 1:
            return 500  # retried 1 min later, inside the advance below
        if len(calls) == 2:
            sim.advance(nested)
            sim.apply(PUBLISH, request={"customer": {"id": "cust_alice"}, "campaign": {"id": "camp_newsletter"}})
        return None

    sim.register_receiver("notebook", receiver)
    with record(sim) as lines:
        add_balance(sim, "GIFT-ALICE-50", 400)
        t0 = sim.now
        ended = sim.advance(120)
    assert calls[:2] == [t0, t0 + timedelta(seconds=60)]
    assert ended == sim.now == t0 + timedelta(seconds=max(120, 60 + nested))
    ops = [(json.loads(line)["op"], json.loads(line)["at"]) for line in lines]
    assert [op for op, _ in ops] == ["add_gift_balance", "advance", "publish", "advance"]
    assert ops[-1][1] == sim.clock.iso()

    again = replay(Simulator.restore(demo_snapshot), lines)
    assert again.ok and again.applied == 4
    assert again.ended_at == sim.now


def test_gift_voucher_issued_during_clock_work_is_delivered_at_that_instant(sim: Simulator) -> None:
    from promolab.sim.gift import issue_gift_voucher

    notebook = Receiver(sim)
    sim.register_receiver("notebook", notebook)
    issue_gift_voucher(sim, campaign_id="camp_gift", customer_id="cust_erin", balance=2500)
    assert notebook.calls == []  # queued: outside an operation nothing is sent inline
    t = sim.now
    sim.advance(0)
    assert [call[0] for call in notebook.calls] == [t]


def test_same_calls_same_deliveries(demo_snapshot: dict[str, Any]) -> None:
    def run() -> tuple[list[bytes], list[dict[str, Any]]]:
        sim = Simulator.restore(demo_snapshot)
        notebook = Receiver(sim, [500, 500])
        sim.register_receiver("notebook", notebook)
        sim.register_receiver("crm", Receiver(sim))
        add_balance(sim, "GIFT-ALICE-50", 400)
        sim.advance(600)
        add_balance(sim, "GIFT-BOB-25", 250)
        return [c[2] for c in notebook.calls], [a.model_dump(mode="json") for a in sim.state.webhook_deliveries]

    assert run() == run()


# -- delivery log -------------------------------------------------------------------------------------------------
def test_delivery_log_as_frame_and_over_http(sim: Simulator) -> None:
    sim.register_receiver("notebook", Receiver(sim, [500]))
    add_balance(sim, "GIFT-ALICE-50", 400)
    sim.advance(60)
    frame = sim.webhook_deliveries()
    assert frame["outcome"].tolist() == ["failed", "delivered", "delivered"]
    assert str(frame["attempt"].dtype) == "Int64" and str(frame["attempted_at"].dt.tz) == "UTC"
    served = sim.client().control.webhook_deliveries()
    assert [d["outcome"] for d in served["data"]] == ["failed", "delivered", "delivered"]
    assert served["data"][0]["webhook_id"] == "wh_notebook" and served["data"][0]["status_code"] == 500


# -- real HTTP receivers -------------------------------------------------------------------------------------------
class _Hook(BaseHTTPRequestHandler):
    received: list[tuple[dict[str, str], bytes]]
    status = 200
    delay = 0.0

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        type(self).received.append(({k.lower(): v for k, v in self.headers.items()}, body))
        if self.delay:
            time.sleep(self.delay)
        self.send_response(self.status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_receiver() -> Iterator[tuple[str, type[_Hook]]]:
    handler = type("Hook", (_Hook,), {"received": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/promolab", handler
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _url_config(sim: Simulator, url: str, secret: str = "http-secret") -> None:
    from pydantic import SecretStr

    for config in sim.state.webhooks.values():
        config.status = "DISABLED"
    sim.state.webhooks["wh_http"] = WebhookConfig(
        id="wh_http", project_id=sim.state.project.id, url=url, secret=SecretStr(secret), created_at=sim.now
    )


@pytest.mark.served
def test_real_http_receiver_gets_a_body_that_verifies(sim: Simulator, http_receiver: tuple[str, type[_Hook]]) -> None:
    url, handler = http_receiver
    _url_config(sim, url)
    add_balance(sim, "GIFT-BOB-25", 400)
    (headers, body), = handler.received
    assert headers["content-type"] == "application/json"
    assert verify_signature(body, headers["x-voucherify-signature"], "http-secret")
    assert headers[models.WEBHOOK_VERSION_HEADER] == "2024-01-01"  # travels over HTTP too
    envelope = json.loads(body)
    assert envelope["source"] == {"id": "wh_http", "object": "webhook", "target_url": url}
    assert envelope["data"]["balance"]["amount"] == 400
    (attempt,) = attempts(sim, "wh_http")
    assert (attempt.outcome, attempt.status_code, attempt.target) == ("delivered", 200, url)


@pytest.mark.served
def test_real_http_receiver_errors_are_retried(sim: Simulator, http_receiver: tuple[str, type[_Hook]]) -> None:
    url, handler = http_receiver
    handler.status = 500
    _url_config(sim, url)
    add_balance(sim, "GIFT-BOB-25", 400)
    handler.status = 200
    sim.advance(60)
    assert [(a.outcome, a.status_code) for a in attempts(sim, "wh_http")] == [("failed", 500), ("delivered", 200)]
    assert len(handler.received) == 2 and handler.received[0][1] == handler.received[1][1]


@pytest.mark.served
def test_real_http_receiver_timeout(sim: Simulator, http_receiver: tuple[str, type[_Hook]]) -> None:
    url, handler = http_receiver
    handler.delay = 1.0
    sim.state.settings.webhook_timeout_seconds = 0.2
    _url_config(sim, url)
    result = add_balance(sim, "GIFT-BOB-25", 400)
    assert result.amount == 400
    (attempt,) = attempts(sim, "wh_http")
    assert attempt.outcome == "timeout" and attempt.next_attempt_at is not None


def test_unreachable_url_is_an_error(sim: Simulator) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _url_config(sim, f"http://127.0.0.1:{port}/nobody-listens")
    add_balance(sim, "GIFT-BOB-25", 400)
    (attempt,) = attempts(sim, "wh_http")
    assert attempt.outcome == "error" and attempt.status_code is None


# -- URL deliveries run outside the simulator's lock ---------------------------------------------------------------
@pytest.fixture
def url_hook(sim: Simulator, http_receiver: tuple[str, type[_Hook]]) -> type[_Hook]:
    """The receiver `sim` now delivers to (over HTTP, alone: see `_url_config`)."""
    url, handler = http_receiver
    _url_config(sim, url)
    return handler


def _wait_until(condition: Any, seconds: float = 10.0) -> None:
    """Poll `condition` (bounded in time), failing the test if it never holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


@contextmanager
def _credit_on_the_network(
    sim: Simulator, handler: type[_Hook], after: Callable[[], Any] | None = None
) -> Iterator[None]:
    """Credit GIFT-BOB-25 in another thread (its webhook goes to `handler`),
    and run the block while that POST is at the receiver; `after` runs in the
    writer thread once the credit has returned. Bounded waits."""
    arrived = len(handler.received) + 1

    def credit() -> None:
        add_balance(sim, "GIFT-BOB-25", 400)
        if after is not None:
            after()

    writer = threading.Thread(target=credit)
    writer.start()
    try:
        _wait_until(lambda: len(handler.received) >= arrived)
        yield
    finally:
        writer.join(10)
    assert not writer.is_alive(), "the credit did not return"


def _replayed(base: dict[str, Any], lines: list[str]) -> Simulator:
    from promolab.sim.journal import apply_entry, parse_line

    replay = Simulator.restore(base)
    for number, line in enumerate(lines, start=1):
        apply_entry(replay, parse_line(line, number))
    return replay


@pytest.mark.served
def test_slow_url_delivery_does_not_hold_other_callers(sim: Simulator, url_hook: type[_Hook]) -> None:
    handler = url_hook
    handler.delay = 1.0
    base = sim.snapshot()
    journal: list[str] = []
    sim.record_to(journal, fsync=False)
    # the synchronous promise: when the write returns, its attempt is logged
    log_on_return: list[str] = []
    with _credit_on_the_network(sim, handler, after=lambda: log_on_return.extend(
            a.outcome for a in attempts(sim, "wh_http"))):
        started = time.monotonic()
        incentive = sim.apply(GET_INCENTIVE, incentive_id="linc_0a11ce01")
        publication = sim.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})
        other_callers = time.monotonic() - started
        log_meanwhile = list(sim.state.webhook_deliveries)
    assert other_callers < 0.5, f"a read and a write waited {other_callers:.2f} s for a slow receiver"
    assert incentive.id == "linc_0a11ce01" and publication.voucher.code == "WELCOME-OPEN-1"
    assert log_meanwhile == [], "the attempt was recorded before its receiver answered"
    assert log_on_return == ["delivered"]
    # the same state as the calls one after the other, and as a replay of the journal
    assert [json.loads(line)["op"] for line in journal] == ["add_gift_balance", "publish"]
    sequential = Simulator.restore(base)
    add_balance(sequential, "GIFT-BOB-25", 400)
    sequential.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})
    assert sim.dump_json() == sequential.dump_json() == _replayed(base, journal).dump_json()


@pytest.mark.served
def test_advance_and_snapshot_wait_for_a_delivery_on_the_network(sim: Simulator, url_hook: type[_Hook]) -> None:
    """The retry of an attempt still on the network when `advance` is called
    is due during that advance: the advance waits for the outcome, then
    attempts the retry at its instant; a snapshot taken meanwhile holds the
    recorded attempt, never a sendout that is neither queued nor logged."""
    handler = url_hook
    handler.status, handler.delay = 500, 0.5
    t0 = sim.now
    with _credit_on_the_network(sim, handler):
        snapshot = sim.snapshot()
        handler.status, handler.delay = 200, 0.0
        sim.advance(120)
    in_snapshot = snapshot["state"]["webhook_deliveries"]
    assert [(a["outcome"], a["status_code"]) for a in in_snapshot] == [("failed", 500)]
    assert len(snapshot["state"]["pending_deliveries"]) == 1
    log = attempts(sim, "wh_http")
    assert [(a.outcome, a.attempted_at - t0) for a in log] == [
        ("failed", timedelta(0)), ("delivered", timedelta(minutes=1)),
    ]
    assert sim.state.pending_deliveries == []


@pytest.mark.served
def test_configuration_deleted_while_its_attempt_is_on_the_network(sim: Simulator, url_hook: type[_Hook]) -> None:
    handler = url_hook
    handler.status, handler.delay = 500, 0.5
    base = sim.snapshot()
    with _credit_on_the_network(sim, handler):
        sim.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_http")
    (attempt,) = attempts(sim, "wh_http")
    assert attempt.outcome == "failed" and attempt.next_attempt_at is not None  # planned, as logged
    assert sim.state.pending_deliveries == []  # ... but dropped by the deletion
    handler.delay = 0.0
    sequential = Simulator.restore(base)
    add_balance(sequential, "GIFT-BOB-25", 400)
    sequential.apply(DELETE_WEBHOOK, project_id="proj_kestrel", webhook_id="wh_http")
    assert sim.dump_json() == sequential.dump_json()
    sim.advance(timedelta(days=2))
    assert len(handler.received) == 2  # the live one and the sequential one: no retry


@pytest.mark.served
def test_reads_answer_during_an_advance_and_writes_wait_for_it(sim: Simulator, url_hook: type[_Hook]) -> None:
    handler = url_hook
    handler.status = 500
    t0 = sim.now
    add_balance(sim, "GIFT-BOB-25", 400)  # fails at once; its retry is due at +1 min
    journal: list[str] = []
    sim.record_to(journal, fsync=False)
    handler.status, handler.delay = 200, 0.8
    advancing = threading.Thread(target=sim.advance, args=(120,))
    advancing.start()
    published: list[Any] = []
    try:
        _wait_until(lambda: len(handler.received) == 2)  # the retry is on the network
        started = time.monotonic()
        incentive = sim.apply(GET_INCENTIVE, incentive_id="linc_0a11ce01")
        read_seconds = time.monotonic() - started
        clock_meanwhile = sim.now

        writer = threading.Thread(target=lambda: published.append(
            sim.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})))
        writer.start()
        writer.join(0.2)
        assert writer.is_alive(), "a write ran in the middle of an advance"
        writer.join(10)
    finally:
        advancing.join(10)
    assert incentive.id == "linc_0a11ce01" and read_seconds < 0.4
    assert clock_meanwhile == t0 + timedelta(minutes=1)  # a read sees the instant on the way
    # the write ran once the advance had ended, at its final instant, journaled after it
    assert published[0].created_at == t0 + timedelta(minutes=2)
    assert [json.loads(line)["op"] for line in journal] == ["advance", "publish"]
    assert [a.outcome for a in attempts(sim, "wh_http")] == ["failed", "delivered"]


@pytest.mark.served
def test_a_snapshot_waiting_for_a_delivery_holds_new_writes_back(sim: Simulator, url_hook: type[_Hook]) -> None:
    """Writes do not wait for deliveries on the network, but they do wait for
    an advance or snapshot that is itself waiting for them: otherwise a stream
    of writes with slow receivers could keep it waiting for ever."""
    url_hook.delay = 0.6
    snapshots: list[dict[str, Any]] = []
    publications: list[Any] = []
    with _credit_on_the_network(sim, url_hook):
        taking = threading.Thread(target=lambda: snapshots.append(sim.snapshot()))
        taking.start()
        _wait_until(lambda: sim._quiet_waiters == 1)  # white box: the snapshot is waiting
        writer = threading.Thread(target=lambda: publications.append(
            sim.apply(PUBLISH, request={"voucher": "WELCOME-OPEN-1", "customer": {"source_id": "erin"}})))
        writer.start()
        taking.join(10)
        writer.join(10)
    (snapshot,) = snapshots
    assert snapshot["state"]["publications"] == {}, "the write went ahead of the waiting snapshot"
    assert [a["outcome"] for a in snapshot["state"]["webhook_deliveries"]] == ["delivered"]
    assert len(publications) == 1 and len(sim.state.publications) == 1
