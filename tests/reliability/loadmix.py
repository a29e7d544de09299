"""A mixed write/read load against a served simulator, and the reconciliation
of its outcome with the final state. Shared by the concurrency and the
durability tests.

`Load` runs one client thread: a seeded random mix of publications from one
campaign with a code pool, reward purchases on shared loyalty cards, events
that earn points, gift-balance credits, validations, incentive reads and
simulated-clock advances. Every ACKNOWLEDGED answer (2xx) is recorded with
what it promised; every refusal is counted by key. `reconcile()` checks the
final state against the opening state and the acknowledgements.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from relsupport import APP_HEADERS, LOYALTY_HEADERS, MANAGEMENT_HEADERS, demo_document

CAMPAIGN = "camp_newsletter"
POOL = 1200
GIFT_CODE = "GIFT-ALICE-50"
PROGRAM = "lprg_coffee_club"
#: Shared members (all threads buy on these cards) -> customer source_id, beans card, opening balance.
MEMBERS = {
    "lmbr_alice": ("alice", "lcrd_alice_beans", 20_000),
    "lmbr_bob": ("bob", "lcrd_bob_beans", 6_000),
    "lmbr_frank": ("frank", "lcrd_frank_beans", 9_000),
    "lmbr_dave": ("dave", "lcrd_dave_beans", 0),  # can only spend what events earn it
}
REWARDS = ["lrew_mug", "lrew_mug", "lrew_coupon", "lrew_sticker"]
MUG_ASSIGNMENT, MUG_STOCK = "lrewa_mug", 300
STICKER_ASSIGNMENT = "lrewa_sticker"
REVIEW_POINTS = 50  # linc_0a11ce01

#: Refusals each operation may answer under contention (anything else fails the run).
EXPECTED_REFUSALS = {
    "publish": {"no_voucher_suitable_for_publication"},
    "purchase": {"insufficient_card_balance", "zero_card_balance", "reward_out_of_stock"},
    "event": set(),
    "gift": set(),
    "validate": set(),
    "incentive": set(),
    "advance": set(),
}

MIX = [("publish", 25), ("purchase", 22), ("event", 20), ("validate", 15), ("gift", 10), ("incentive", 5),
       ("advance", 3)]


def load_scenario() -> dict[str, Any]:
    """The demo scenario with a bigger code pool, richer shared cards and more stock."""
    doc = demo_document()
    for campaign in doc["campaigns"]:
        if campaign["id"] == CAMPAIGN:
            campaign["code_pool"] = {"count": POOL, "prefix": "NEWS-", "length": 8}
    program = next(p for p in doc["loyalty"]["programs"] if p["id"] == PROGRAM)
    for member in program["members"]:
        if member["id"] in MEMBERS:
            for card in member["cards"]:
                if card["id"] == MEMBERS[member["id"]][1]:
                    card["balance"] = MEMBERS[member["id"]][2]
    for assignment in program["rewards"]:
        if assignment["id"] == MUG_ASSIGNMENT:
            assignment["stock"] = MUG_STOCK
    return doc


@dataclass
class Acks:
    """What the server acknowledged (2xx) to one client."""

    publications: list[tuple[str, str, str]] = field(default_factory=list)  # (publication id, source_id, code)
    purchases: list[tuple[str, str, str]] = field(default_factory=list)  # (member, reward, transaction id)
    free_grants: list[tuple[str, str]] = field(default_factory=list)  # (member, reward) NO_SPENT_ON_REWARD
    events: list[str] = field(default_factory=list)  # customer source_id of review_written events
    gift_amounts: list[int] = field(default_factory=list)
    refusals: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    ops: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)
    transport_errors: int = 0

    def merge(self, other: Acks) -> None:
        self.publications += other.publications
        self.purchases += other.purchases
        self.free_grants += other.free_grants
        self.events += other.events
        self.gift_amounts += other.gift_amounts
        self.refusals.update(other.refusals)
        self.statuses.update(other.statuses)
        self.ops.update(other.ops)
        self.unexpected += other.unexpected
        self.transport_errors += other.transport_errors


class Load:
    """One client thread's worth of mixed operations (bounded by `count` and `deadline`)."""

    def __init__(self, base_url: str, thread: int, count: int, *, seed: int = 0, deadline: float = 120.0,
                 stop: threading.Event | None = None, tolerate_transport_errors: bool = False) -> None:
        self.base_url = base_url
        self.thread = thread
        self.count = count
        self.random = random.Random(f"{seed}:{thread}")
        self.deadline = deadline
        self.stop = stop or threading.Event()
        self.tolerate = tolerate_transport_errors
        self.acks = Acks()
        self.error: BaseException | None = None

    def run(self) -> None:
        names = [name for name, weight in MIX for _ in range(weight)]
        started = time.monotonic()
        try:
            with httpx.Client(base_url=self.base_url, timeout=30.0) as http:
                for i in range(self.count):
                    if self.stop.is_set() or time.monotonic() - started > self.deadline:
                        break
                    op = self.random.choice(names)
                    try:
                        getattr(self, f"_{op}")(http, i)
                    except httpx.TransportError:
                        self.acks.transport_errors += 1
                        if not self.tolerate:
                            raise
                        break  # the server went away (durability test): stop this client
                    self.acks.ops[op] += 1
        except BaseException as exc:  # noqa: BLE001 - a worker thread: kept for the test to report
            self.error = exc

    # -- bookkeeping -------------------------------------------------------------------------
    def _answer(self, op: str, response: httpx.Response) -> dict[str, Any] | None:
        self.acks.statuses[response.status_code] += 1
        if 200 <= response.status_code < 300:
            return response.json() if response.content else {}
        try:
            key = response.json().get("key")
        except ValueError:
            key = None
        self.acks.refusals[f"{op}:{response.status_code}:{key}"] += 1
        if response.status_code >= 500 or key not in EXPECTED_REFUSALS[op]:
            self.acks.unexpected.append(f"{op} -> {response.status_code} {response.text[:300]}")
        return None

    # -- operations --------------------------------------------------------------------------
    def _publish(self, http: httpx.Client, i: int) -> None:
        source_id = f"load-{self.thread}-{i}"
        r = http.post("/client/v1/publish", headers=APP_HEADERS,
                      json={"campaign": {"id": CAMPAIGN}, "customer": {"source_id": source_id}})
        body = self._answer("publish", r)
        if body is not None:
            self.acks.publications.append((body["id"], source_id, body["voucher"]["code"]))

    def _purchase(self, http: httpx.Client, i: int) -> None:
        member = self.random.choice(list(MEMBERS))
        reward = self.random.choice(REWARDS)
        r = http.post(f"/v2/loyalties/programs/{PROGRAM}/members/{member}/rewards/purchases",
                      headers=LOYALTY_HEADERS, json={"reward_id": reward})
        body = self._answer("purchase", r)
        if body is not None:
            if body["status"] == "TRANSACTION_CREATED":
                self.acks.purchases.append((member, reward, body["transaction"]["id"]))
            else:
                self.acks.free_grants.append((member, reward))

    def _event(self, http: httpx.Client, i: int) -> None:
        source_id = MEMBERS[self.random.choice(list(MEMBERS))][0]
        r = http.post("/v1/events", headers=APP_HEADERS,
                      json={"event": "review_written", "customer": {"source_id": source_id},
                            "metadata": {"rating": self.random.randint(1, 5)}})
        if self._answer("event", r) is not None:
            self.acks.events.append(source_id)

    def _gift(self, http: httpx.Client, i: int) -> None:
        amount = self.random.randint(1, 500)
        r = http.post(f"/v1/vouchers/{GIFT_CODE}/balance", headers=APP_HEADERS, json={"amount": amount})
        if self._answer("gift", r) is not None:
            self.acks.gift_amounts.append(amount)

    def _validate(self, http: httpx.Client, i: int) -> None:
        source_id = MEMBERS[self.random.choice(list(MEMBERS))][0]
        r = http.post("/v1/promotions/validation", headers=APP_HEADERS, json={
            "customer": {"source_id": source_id},
            "order": {"items": [{"product_id": "prod_mug", "quantity": self.random.randint(1, 3)},
                                {"product_id": "prod_beans_ethiopia", "quantity": 1}]},
        })
        body = self._answer("validate", r)
        if body is not None and not isinstance(body.get("valid"), bool):
            self.acks.unexpected.append(f"validate answered {body!r:.200}")

    def _incentive(self, http: httpx.Client, i: int) -> None:
        self._answer("incentive", http.get("/v2/loyalties/incentives/linc_0a11ce01", headers=LOYALTY_HEADERS))

    def _advance(self, http: httpx.Client, i: int) -> None:
        self._answer("advance", http.post("/_sim/clock/advance", headers=MANAGEMENT_HEADERS, json={"seconds": 1}))


# -- reconciliation ------------------------------------------------------------------------------
def reconcile(opening: dict[str, Any], final: dict[str, Any], acks: Acks, *, exact_acks: bool = True) -> dict[str, Any]:
    """Check the final state against the opening state and what was acknowledged.

    With `exact_acks` (concurrency: every answer was received) the counts must
    match exactly; without (durability: answers lost with the killed server
    may have been applied and journaled), every acknowledgement must be in the
    state and the state must be internally consistent, but the state may hold
    writes whose answer never arrived.
    Returns the figures for the report; raises AssertionError on a mismatch.
    """
    o, f = opening["state"], final["state"]
    problems: list[str] = []

    def expect(ok: bool, message: str) -> None:
        if not ok:
            problems.append(message)

    # -- publications: no code published twice, every acknowledged one held --------------------
    codes = [code for _, _, code in acks.publications]
    expect(len(set(codes)) == len(codes), f"a code was acknowledged twice: {len(codes) - len(set(codes))} duplicates")
    customers_by_source = {c["source_id"]: cid for cid, c in f["customers"].items() if c.get("source_id")}
    vouchers_by_code = {v["code"]: v for v in f["vouchers"].values()}
    for pub_id, source_id, code in acks.publications:
        pub = f["publications"].get(pub_id)
        voucher = vouchers_by_code.get(code)
        expect(pub is not None, f"acknowledged publication {pub_id} missing")
        expect(voucher is not None and voucher["holder_id"] == customers_by_source.get(source_id),
               f"code {code} not held by {source_id}")
        if pub is not None and voucher is not None:
            expect(pub["voucher_id"] == voucher["id"], f"publication {pub_id} points at another voucher")
    published_vouchers = [p["voucher_id"] for p in f["publications"].values()]
    expect(len(published_vouchers) == len(set(published_vouchers)), "a voucher has two publications")
    pool = [v for v in f["vouchers"].values() if v["campaign_id"] == CAMPAIGN]
    held = [v for v in pool if v["holder_id"] is not None]
    opening_held = sum(1 for v in o["vouchers"].values() if v["campaign_id"] == CAMPAIGN and v["holder_id"])
    new_pubs = [p for pid, p in f["publications"].items() if pid not in o["publications"] and p["campaign_id"] == CAMPAIGN]
    expect(len(held) - opening_held == len(new_pubs),
           f"{len(held) - opening_held} newly held codes but {len(new_pubs)} new publications")
    coupon_grants = [g for gid, g in f["granted_rewards"].items() if gid not in o["granted_rewards"]
                     and g["kind"] == "DISCOUNT_COUPON"]
    if exact_acks:
        expect(len(new_pubs) == len(acks.publications) + len(coupon_grants),
               f"{len(new_pubs)} new publications != {len(acks.publications)} acknowledged + "
               f"{len(coupon_grants)} coupon rewards")
    else:
        expect(len(new_pubs) >= len(acks.publications) + len(coupon_grants), "publications lost")
    if any(k.startswith("publish:400:no_voucher_suitable") for k in acks.refusals):
        expect(len(held) == len(pool), "a publication was refused for an empty pool that still has free codes")

    # -- cards: balance = opening + approved transactions; nothing spent twice -----------------
    new_tx = {tid: t for tid, t in f["card_transactions"].items() if tid not in o["card_transactions"]}
    expect(not [t for t in new_tx.values() if t["status"] in ("PENDING", "PROCESSING")],
           "purchases still pending after settling")
    figures_cards = {}
    for source_id, card_id, _ in MEMBERS.values():
        opening_balance = o["cards"][card_id]["balance"]
        approved = [t for t in new_tx.values() if t["card_id"] == card_id and t["status"] == "APPROVED"]
        earned = sum(t["points"] for t in approved if t["points"] > 0)
        spent = -sum(t["points"] for t in approved if t["points"] < 0)
        balance = f["cards"][card_id]["balance"]
        expect(balance == opening_balance + earned - spent,
               f"{card_id}: balance {balance} != opening {opening_balance} + earned {earned} - spent {spent}")
        expect(balance >= 0 and spent <= opening_balance + earned, f"{card_id}: spent {spent} points it never had")
        reviews = sum(1 for s in acks.events if s == source_id)
        if exact_acks:
            expect(earned == REVIEW_POINTS * reviews, f"{card_id}: earned {earned} != {REVIEW_POINTS} x {reviews}")
        else:
            expect(earned >= REVIEW_POINTS * reviews, f"{card_id}: acknowledged earnings lost")
        figures_cards[card_id] = {"opening": opening_balance, "earned": earned, "spent": spent, "final": balance}
    for member, reward, tx_id in acks.purchases:
        tx = f["card_transactions"].get(tx_id)
        expect(tx is not None and tx["status"] in ("APPROVED", "REJECTED"), f"acknowledged purchase {tx_id} lost/pending")

    # -- stock ---------------------------------------------------------------------------------
    mug_approved = sum(1 for t in new_tx.values() if t["reward_assignment_id"] == MUG_ASSIGNMENT
                       and t["status"] == "APPROVED")
    mug_final = f["reward_assignments"][MUG_ASSIGNMENT]["stock"]
    expect(mug_final == o["reward_assignments"][MUG_ASSIGNMENT]["stock"] - mug_approved and mug_final >= 0,
           f"mug stock {mug_final} != opening - {mug_approved} approved")
    stickers = [g for gid, g in f["granted_rewards"].items() if gid not in o["granted_rewards"]
                and g["reward_id"] == "lrew_sticker"]
    sticker_final = f["reward_assignments"][STICKER_ASSIGNMENT]["stock"]
    expect(sticker_final == o["reward_assignments"][STICKER_ASSIGNMENT]["stock"] - len(stickers),
           "sticker stock does not match the stickers granted")
    if exact_acks:
        expect(len(stickers) == len(acks.free_grants), f"{len(stickers)} stickers granted != {len(acks.free_grants)} acks")
    else:
        expect(len(stickers) >= len(acks.free_grants), "acknowledged sticker grants lost")
    incentive_used = o["incentives"]["linc_0a11ce01"]["stock"] - f["incentives"]["linc_0a11ce01"]["stock"]
    earning_tx = sum(1 for t in new_tx.values() if t["points"] > 0 and t["status"] == "APPROVED")
    expect(incentive_used == earning_tx, f"incentive stock used {incentive_used} != {earning_tx} earnings")

    # -- gift balance --------------------------------------------------------------------------
    gift_o = next(v for v in o["vouchers"].values() if v["code"] == GIFT_CODE)["gift"]
    gift_f = vouchers_by_code[GIFT_CODE]["gift"]
    added = gift_f["balance"] - gift_o["balance"]
    if exact_acks:
        expect(added == sum(acks.gift_amounts), f"gift balance moved {added} != acknowledged {sum(acks.gift_amounts)}")
    else:
        expect(added >= sum(acks.gift_amounts), "acknowledged gift credits lost")
    expect(gift_f["amount"] - gift_o["amount"] == added, "gift amount and balance moved apart")

    # -- events --------------------------------------------------------------------------------
    new_events = [e for eid, e in f["events"].items() if eid not in o["events"]]
    if exact_acks:
        expect(len(new_events) == len(acks.events), f"{len(new_events)} events stored != {len(acks.events)} acked")
    else:
        expect(len(new_events) >= len(acks.events), "acknowledged events lost")

    assert not problems, "reconciliation failed:\n- " + "\n- ".join(problems)
    return {
        "publications_acknowledged": len(acks.publications),
        "distinct_codes": len(set(codes)),
        "pool": len(pool),
        "codes_held_at_end": len(held),
        "coupon_rewards": len(coupon_grants),
        "purchases_acknowledged": len(acks.purchases),
        "purchases_approved": sum(1 for t in new_tx.values() if t["type"] == "POINTS_SPENT_ON_REWARD"
                                  and t["status"] == "APPROVED"),
        "purchases_rejected": sum(1 for t in new_tx.values() if t["type"] == "POINTS_SPENT_ON_REWARD"
                                  and t["status"] == "REJECTED"),
        "rejection_reasons": dict(Counter(
            (t["details"].get("rejection") or {}).get("reason") for t in new_tx.values() if t["status"] == "REJECTED"
        )),
        "mug_stock": {"opening": o["reward_assignments"][MUG_ASSIGNMENT]["stock"], "final": mug_final},
        "events_acknowledged": len(acks.events),
        "gift_credits_acknowledged": len(acks.gift_amounts),
        "cards": figures_cards,
    }
