"""Generate the sample event sequences in data/events/ (fixed seed, same bytes every run).

    .venv/bin/python scripts/make_event_samples.py [--out-dir data/events] [--check]

- `demo_day.jsonl`: a scripted Friday at Kestrel Coffee Roasters (the demo
  scenario), every operation of the format at least once, with notes.
- `demo_week.jsonl`: a seeded week of the shop: orders (validated, then
  `order_placed` events earning points and stars), reviews, newsletter codes
  published (join_once), referral conversions by new customers, reward
  purchases settling on the clock, gift card top-ups firing webhooks (retried
  across the week: the demo's receivers are not registered in a plain replay),
  a webhook deletion, reward deletions, an advance at the close of each day.

Every line is generated against a shadow simulator loaded from the demo
scenario, so the choices are realistic (members buy what they can afford,
mostly) and the outcome of every line is known: a line the simulator refuses
carries a note starting with `expect <error key>`; every other line applies.
`tests/replay/test_samples.py` replays the files and checks exactly that, and
that this script reproduces them byte for byte.

`week_entries(...)` is also the line generator of benchmarks/bench_replay.py.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "scenarios" / "demo.yaml"
OUT_DIR = ROOT / "data" / "events"
SEED = 20260306

PROGRAM = "lprg_coffee_club"
PROJECT = "proj_kestrel"
#: (product id, weight) of what people buy.
PRODUCTS = [
    ("prod_beans_ethiopia", 6), ("prod_beans_colombia", 6), ("prod_espresso_blend", 5), ("prod_mug", 3),
    ("prod_tote", 1), ("prod_filters", 3), ("prod_grinder", 1), ("prod_kettle", 1),
]
#: Known customers and how often they shop.
REGULARS = [("alice", 5), ("bob", 3), ("carol", 2), ("dave", 4), ("erin", 1), ("frank", 2)]
MEMBERS = {"alice": "lmbr_alice", "bob": "lmbr_bob", "carol": "lmbr_carol", "dave": "lmbr_dave",
           "frank": "lmbr_frank"}
#: reward id -> (card definition it is paid from, points)
#: Who tries to buy rewards, and how often (Carol's membership is inactive).
PURCHASERS = [("alice", 4), ("bob", 2), ("dave", 3), ("frank", 2), ("carol", 1)]
REWARDS = {"lrew_mug": ("lcdef_beans", 500), "lrew_beans_1kg": ("lcdef_beans", 1500),
           "lrew_coupon": ("lcdef_beans", 300), "lrew_gift_25": ("lcdef_stars", 10),
           "lrew_sticker": ("lcdef_beans", 0)}


def iso(moment: datetime) -> str:
    from promolab.sim.clock import format_instant

    return format_instant(moment)


def line(at: datetime | None, op: str, args: dict[str, Any], note: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if at is not None:
        entry["at"] = iso(at)
    entry["op"] = op
    entry["args"] = args
    if note:
        entry["note"] = note
    return entry


def order(items: list[tuple[str, int]]) -> dict[str, Any]:
    return {"items": [{"product_id": p, "quantity": q} for p, q in items]}


# -- the shadow simulator ---------------------------------------------------------------


class Shadow:
    """Applies each generated line to a demo simulator, as a replay will, and
    notes the refusals (`expect <key>`) so the file documents its outcomes."""

    def __init__(self) -> None:
        from promolab import Simulator

        self.sim = Simulator.from_scenario(DEMO)
        self.entries: list[dict[str, Any]] = []
        #: What the last line returned (None when refused).
        self.last: Any = None

    def run(self, entry: dict[str, Any]) -> Any:
        from promolab.replay.reader import entry_fields
        from promolab.replay.runner import _run, _time_problem
        from promolab.sim.clock import parse_instant
        from promolab.sim.refusals import SimError

        if "at" in entry and parse_instant(entry["at"]) < self.sim.now:
            entry["at"] = iso(self.sim.now)  # an order's event may run past the next planned action
        event = entry_fields(entry, len(self.entries) + 1)
        if type(event) is not tuple:  # a BadLine
            raise AssertionError(f"generated a bad line: {event}")
        if _time_problem(event, self.sim.now) is not None:
            raise AssertionError(f"generated a line in the past: {entry}")
        self.entries.append(entry)
        self.last = None
        try:
            _, op, args, at, _ = event
            self.last = _run(self.sim, op, args, at, self.sim.now)
        except SimError as exc:
            expected = f"expect {exc.key}"
            note = entry.get("note")
            if note is None or not note.startswith(expected):
                entry["note"] = f"{expected}: {exc.details}" if note is None else f"{expected}: {note}"
        return self.last

    def balance(self, member_id: str, definition: str) -> int:
        for card in self.sim.state.cards.values():
            if card.member_id == member_id and card.card_definition_id == definition:
                return card.balance
        return 0


# -- a scripted day ---------------------------------------------------------------------------


def day_entries() -> list[dict[str, Any]]:
    """Friday 2026-03-06, from the demo's opening clock (10:00Z) to midnight."""
    shadow = Shadow()
    day = datetime.fromisoformat("2026-03-06T00:00:00+00:00")

    def at(hhmm: str) -> datetime:
        hours, minutes = hhmm.split(":")
        return day + timedelta(hours=int(hours), minutes=int(minutes))

    cart = order([("prod_mug", 2), ("prod_grinder", 1)])
    script = [
        line(at("10:00"), "validate", {"request": {"customer": {"source_id": "alice"}, "order": cart}},
             "Alice checks her cart: which tiers apply, and the best discount"),
        line(at("10:02"), "publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                                  "customer": {"source_id": "carol"}, "channel": "newsletter"},
                                      "join_once": True},
             "Carol gets a newsletter code"),
        line(at("10:03"), "publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                                  "customer": {"source_id": "carol"}}, "join_once": True},
             "join_once: asking again gives the same code back"),
        line(at("10:15"), "track_event", {"request": {"event": "order_placed", "customer": {"source_id": "alice"},
                                                      "metadata": {"amount": 10170, "channel": "web"}}},
             "Alice orders: 1 point per dollar, and stars (gold)"),
        line(at("10:30"), "track_event", {"request": {"event": "review_written", "customer": {"source_id": "bob"},
                                                      "metadata": {"rating": 5}}},
             "Bob reviews: 50 points"),
        line(at("10:31"), "track_event", {"request": {"event": "review_written", "customer": {"source_id": "bob"},
                                                      "metadata": {"rating": 9}}},
             "expect metadata_validation_failed: a rating out of the schema's range"),
        line(at("11:00"), "publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                                  "customer": {"source_id": "zoe", "name": "Zoe Novak"}},
                                      "join_once": True},
             "a new customer, created by her first publication"),
        line(at("11:05"), "track_event", {"request": {"event": "first_order_placed",
                                                      "customer": {"source_id": "zoe"},
                                                      "referral": {"code": "REF-ALICE"},
                                                      "metadata": {"amount": 3400}}},
             "Zoe was referred by Alice: Alice earns 500 points"),
        line(at("11:10"), "purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_alice",
                                              "request": {"reward_id": "lrew_mug"}},
             "Alice buys a mug with points: 202, PENDING"),
        line(at("11:10"), "purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_bob",
                                              "request": {"reward_id": "lrew_mug"}},
             "expect insufficient_card_balance: Bob has 400 points, the mug costs 500"),
        line(at("11:12"), "purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_carol",
                                              "request": {"reward_id": "lrew_coupon"}},
             "expect non_active_member: Carol's membership is inactive"),
        line(None, "advance", {"seconds": 60}, "a minute later the purchase has settled (2 s delay)"),
        line(at("12:00"), "add_gift_balance", {"code": "GIFT-ALICE-50", "request": {"amount": 2500}},
             "topping up Alice's gift card fires BALANCE_ADDED to both webhooks"),
        line(at("12:01"), "purchase_reward", {"program_id": PROGRAM, "member_id": "lmbr_dave",
                                              "request": {"reward_id": "lrew_gift_25"}},
             "Dave spends 10 stars on a $25 gift card"),
        line(at("12:30"), "advance", {}, "advance to 12:30: the gift card is issued, webhook retries run"),
        line(at("13:00"), "delete_webhook", {"project_id": PROJECT, "webhook_id": "wh_crm"},
             "the CRM integration is switched off: its retries stop"),
        line(at("13:30"), "delete_reward", {"reward_id": "lrew_retired"}, "a retired reward goes"),
        line(at("13:31"), "delete_reward", {"reward_id": "lrew_mug"},
             "expect resource_in_use: the mug is still offered by the programs"),
        line(at("16:30"), "validate", {"request": {"customer": {"source_id": "frank"},
                                                   "order": order([("prod_espresso_blend", 2)]),
                                                   "metadata": {"channel": "app"}}},
             "app happy hour (16:00-18:00): espresso at $12"),
        line(at("17:00"), "track_event", {"request": {"event": "order_placed", "customer": {"source_id": "frank"},
                                                      "metadata": {"amount": 2400, "channel": "app"}}},
             "Frank orders in the app"),
        line(at("18:00"), "add_gift_balance", {"code": "GIFT-BOB-25", "request": {"amount": 1000}},
             "Bob's gift card gets $10"),
        line(at("18:05"), "add_gift_balance", {"code": "NO-SUCH-CARD", "request": {"amount": 1000}},
             "expect not_found: a mistyped code"),
        line(at("23:59"), "advance", {"seconds": 0}, "close of day"),
    ]
    for entry in script:
        shadow.run(entry)
    return shadow.entries


# -- a seeded week ------------------------------------------------------------------------------


def _cart(rng: random.Random) -> list[tuple[str, int]]:
    names = [p for p, _ in PRODUCTS]
    weights = [w for _, w in PRODUCTS]
    chosen = list(dict.fromkeys(rng.choices(names, weights, k=rng.choice((1, 1, 2, 2, 3)))))
    return [(p, rng.choice((1, 1, 1, 2, 3))) for p in chosen]


def _cart_amount(shadow: Shadow, items: list[tuple[str, int]]) -> int:
    products = shadow.sim.state.products
    return sum((products[p].price or 0) * q for p, q in items)


def week_entries(
    *,
    seed: int = SEED,
    days: int = 7,
    orders_per_day: tuple[int, int] = (18, 30),
    validate_share: float = 0.6,
) -> list[dict[str, Any]]:
    """A seeded sequence of `days` shop days from the demo's start (Friday
    2026-03-06 10:00Z). `validate_share` of the orders are validated first
    (their amount is then the best tier's total); the others pay list price."""
    rng = random.Random(seed)
    shadow = Shadow()
    start = shadow.sim.now
    names = [n for n, _ in REGULARS]
    weights = [w for _, w in REGULARS]
    guests = 0
    for day in range(days):
        midnight = (start + timedelta(days=day)).replace(hour=0, minute=0, second=0, microsecond=0)
        opening = max(start, midnight + timedelta(hours=8))
        closing = midnight + timedelta(hours=20)
        span = int((closing - opening).total_seconds())
        plan: list[tuple[int, int, str, Any]] = []  # (second of the day, tie-break, kind, data)

        def when(span: int = span) -> int:
            return rng.randrange(span)

        for n in range(rng.randint(*orders_per_day)):
            if rng.random() < 0.25:
                guests += 1
                who: tuple[str, bool] = (f"guest-{guests:04d}", True)
            else:
                who = (rng.choices(names, weights)[0], False)
            plan.append((when(), len(plan), "order", who))
        for _ in range(rng.randint(2, 5)):
            plan.append((when(), len(plan), "publish", rng.choice(names + ["guest"])))
        for _ in range(rng.randint(2, 6)):
            plan.append((when(), len(plan), "purchase", rng.choices(*zip(*PURCHASERS))[0]))
        for _ in range(rng.randint(1, 2)):
            plan.append((when(), len(plan), "gift", None))
        if day == 2:
            plan.append((span // 2, len(plan), "delete_webhook", "wh_crm"))
        if day == 3:
            plan.append((span // 3, len(plan), "delete_reward", "lrew_retired"))
            plan.append((span // 3 + 60, len(plan), "delete_reward", "lrew_beans_1kg"))
        plan.sort()
        for second, _, kind, data in plan:
            moment = opening + timedelta(seconds=second)
            for entry in _actions(rng, shadow, moment, kind, data, validate_share):
                shadow.run(entry)
        end_of_day = midnight + timedelta(hours=23, minutes=59, seconds=59)
        shadow.run(line(end_of_day, "advance", {}, "close of day"))
    return shadow.entries


def _actions(
    rng: random.Random, shadow: Shadow, moment: datetime, kind: str, data: Any, validate_share: float
) -> Iterator[dict[str, Any]]:
    """The line(s) of one planned action; the caller runs each line on the
    shadow before asking for the next, so a line may depend on the last result."""
    if kind == "order":
        who, is_guest = data
        items = _cart(rng)
        customer = {"source_id": who}
        amount = _cart_amount(shadow, items)
        channel = rng.choice(("web", "web", "app", "store"))
        if rng.random() < validate_share:
            request: dict[str, Any] = {"customer": customer, "order": order(items)}
            if channel == "app":
                request["metadata"] = {"channel": "app"}
            yield line(moment, "validate", {"request": request})
            result = shadow.last  # the caller ran the line before resuming us
            totals = [t["order"].get("total_amount", amount) for t in result.wire["promotions"]] if result else []
            amount = min([amount, *totals])
        moment += timedelta(seconds=rng.randint(30, 240))
        if is_guest and rng.random() < 0.35:
            code = rng.choice(("REF-ALICE", "REF-DAVE"))
            yield line(moment, "track_event", {"request": {
                "event": "first_order_placed", "customer": customer, "referral": {"code": code},
                "metadata": {"amount": amount}}})
        else:
            yield line(moment, "track_event", {"request": {
                "event": "order_placed", "customer": customer, "metadata": {"amount": amount, "channel": channel}}})
        if not is_guest and rng.random() < 0.15:
            yield line(moment, "track_event",
                       {"request": {"event": "review_written", "customer": customer,
                                    "metadata": {"rating": rng.randint(3, 5)}}})
    elif kind == "publish":
        who = data
        if who == "guest":
            who = f"guest-{rng.randint(1, 9999):04d}"
        yield line(moment, "publish", {"request": {"campaign": {"id": "camp_newsletter"},
                                                   "customer": {"source_id": who}, "channel": "newsletter"},
                                       "join_once": True})
    elif kind == "purchase":
        who = data
        member = MEMBERS[who]
        affordable = [r for r, (card, cost) in REWARDS.items() if shadow.balance(member, card) >= cost]
        reward = rng.choice(affordable) if affordable and rng.random() < 0.8 else rng.choice(sorted(REWARDS))
        yield line(moment, "purchase_reward", {"program_id": PROGRAM, "member_id": member,
                                               "request": {"reward_id": reward}})
    elif kind == "gift":
        codes = sorted(v.code for v in shadow.sim.state.vouchers.values()
                       if v.gift is not None and v.holder_id is not None)
        code = rng.choice(codes)
        yield line(moment, "add_gift_balance", {"code": code, "request": {"amount": rng.choice((1000, 2500, 5000))}})
    elif kind == "delete_webhook":
        yield line(moment, "delete_webhook", {"project_id": PROJECT, "webhook_id": data})
    elif kind == "delete_reward":
        yield line(moment, "delete_reward", {"reward_id": data})


# -- files ---------------------------------------------------------------------------------------


def encode(entry: dict[str, Any]) -> str:
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def write(path: Path, entries: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(encode(e) + "\n" for e in entries), encoding="utf-8")


def samples() -> dict[str, list[dict[str, Any]]]:
    return {"demo_day.jsonl": day_entries(), "demo_week.jsonl": week_entries()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    from promolab import Simulator
    from promolab.replay import replay

    for name, entries in samples().items():
        path = args.out_dir / name
        write(path, entries)
        result = replay(Simulator.from_scenario(DEMO), path)
        print(f"{path}: {len(entries)} lines; {result.applied} applied, {result.refused} refused (all expected), "
              f"{len(result.deliveries)} webhook attempts")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
