# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 5. The Coffee Club: earning points, buying rewards
#
# Kestrel's loyalty program, the **Coffee Club**, gives members *beans* (points) for orders
# (one per dollar) and reviews (fifty each), and *stars* to gold and silver customers. Members
# spend them on rewards: a mug, a kilo of beans (one left!), a 10% coupon, a \$25 gift card.
#
# A reward purchase does not settle at once: the service answers **202** with a **PENDING**
# card transaction, and settles it shortly after (2 seconds in the demo scenario). In the
# simulator, "shortly after" happens when the **simulated clock** advances, so we can look at
# the world in between.
#
# Everything below goes through the typed client (`sim.client()`), as an application would.

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from promolab import ApiError, Simulator
from promolab.analysis import notebook_style
from promolab.analysis.plots import count_axis
from promolab.display import format_count, format_money
from promolab.widgets import readable

notebook_style()  # figure size, and twice the pixels: crisp on a slide
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_colwidth", 70)
pd.set_option("display.html.use_mathjax", False)  # "$10 ... $50" in a table is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
sim = Simulator.from_scenario(DATA / "scenarios" / "demo.yaml")
client = sim.client()
PROGRAM = "lprg_coffee_club"
MEMBERS = ["lmbr_alice", "lmbr_bob", "lmbr_carol", "lmbr_dave", "lmbr_frank"]
POINTS = ["balance", "reserved", "available"]  # counts, shown with separators by `readable`


def cards():
    """Every card of the club's members: balance, points held by pending purchases, available."""
    rows = []
    for member_id in MEMBERS:
        member = client.control.member(member_id)
        for card in member["cards"]:
            rows.append({"member": member_id, "status": member["status"], "card": card["id"],
                         "type": card["card_type"], "balance": card["balance"],
                         "reserved": card["reserved"], "available": card["available"]})
    return pd.DataFrame(rows)


def attempt(member_id, reward_id):
    """Buy a reward; a refusal is an answer too (status + error key)."""
    try:
        result = client.purchase_reward(PROGRAM, member_id, reward_id)
    except ApiError as error:
        return {"member": member_id, "reward": reward_id, "answer": f"{error.status} {error.error.key}",
                "why": error.error.details}
    transaction = result.transaction
    return {"member": member_id, "reward": reward_id, "answer": str(result.status),
            "why": f"{transaction.id} {transaction.status}" if transaction else result.message}


# %% [markdown]
# ## The club this morning
#
# It is Friday 10:00 on the simulated clock. Carol's membership is inactive; Dave has stars but
# no beans.

# %% tags=["nbval-check-output"]
print("clock:", client.control.clock()["now"])
before = cards()
readable(before, counts=POINTS)

# %% tags=["nbval-check-output"]
assignments = pd.DataFrame([
    {"reward": a.reward_id, "name": sim.state.rewards[a.reward_id].name,
     "costs": ", ".join(f"{format_count(c.points)} {c.card_definition_id}" for c in a.costs), "stock": a.stock}
    for a in sim.state.reward_assignments.values() if a.program_id == PROGRAM
]).astype({"stock": "Int64"})  # <NA>: unlimited
assignments

# %% [markdown]
# ## Earning through custom events
#
# The shop's backend tracks custom events (`POST /v1/events`); the program's earning rules turn
# them into points. The event names and their metadata are checked against the scenario's
# event schema.

# %% tags=["nbval-check-output"]
client.track_event(event="review_written", customer={"source_id": "bob"}, metadata={"rating": 5, "product_id": "prod_mug"})
client.track_event(event="order_placed", customer={"source_id": "bob"}, metadata={"amount": 12000, "channel": "web"})
client.track_event(event="order_placed", customer={"source_id": "frank"}, metadata={"amount": 4800, "channel": "app"})
try:
    client.track_event(event="order_placed", customer={"source_id": "bob"}, metadata={"amount": 100, "channel": "fax"})
except ApiError as error:
    print(f"refused: {error.status} {error.error.key}: {error.error.details}")
earned = sim.transactions()
readable(earned[["member_id", "card_id", "type", "status", "points", "reason"]], counts=["points"])

# %% [markdown]
# ## Buying rewards
#
# Bob now has 520 beans and buys a mug (500). Alice takes the last kilo of beans (1,500 of her
# 1,800). Dave spends 10 stars on a gift card. The others try their luck; the service checks
# each purchase against the points *available* (balance minus what pending purchases hold)
# and the stock not yet held, and refuses with **423** and a precise key.

# %% tags=["nbval-check-output"]
purchases = pd.DataFrame([
    attempt("lmbr_bob", "lrew_mug"),
    attempt("lmbr_alice", "lrew_beans_1kg"),
    attempt("lmbr_dave", "lrew_gift_25"),
    attempt("lmbr_alice", "lrew_mug"),         # 300 left once the beans are held
    attempt("lmbr_frank", "lrew_beans_1kg"),   # the last kilo is held by Alice's purchase
    attempt("lmbr_dave", "lrew_coupon"),       # no beans at all
    attempt("lmbr_carol", "lrew_coupon"),      # inactive member
    attempt("lmbr_frank", "lrew_sticker"),     # costs 0 points: granted at once
])
purchases

# %% [markdown]
# Between the purchase and its settlement, the points are **reserved**: the balance has not
# moved yet, the available points have.

# %% tags=["nbval-check-output"]
pending = cards()
readable(pending[pending["reserved"] > 0], counts=POINTS)

# %% [markdown]
# ## The clock advances; transactions settle
#
# `sim.advance(2)` moves the simulated clock two seconds: the pending purchases are processed
# at their due instant and approved (points debited, stock decremented, the reward granted: a
# material item recorded, or a gift card issued to the member).

# %% tags=["nbval-check-output"]
sim.advance(2)
print("clock:", client.control.clock()["now"])
ledger = sim.transactions()
spent = ledger.loc[ledger["type"] == "POINTS_SPENT_ON_REWARD",
                   ["member_id", "card_id", "reward_id", "status", "points", "created_at", "updated_at"]]
readable(spent, counts=["points"])

# %% tags=["nbval-check-output"]
granted = pd.DataFrame([
    {"member": m, "reward": r["reward_id"], "kind": r["kind"],
     "item": r["sku_id"] or r["product_id"] or r["voucher_code"], "granted_at": r["created_at"]}
    for m in MEMBERS for r in client.control.member(m)["rewards"]
])
granted

# %% [markdown]
# Dave's gift card is a real voucher of the gift card campaign, with its \$25 balance:

# %% tags=["nbval-check-output"]
code = granted.loc[granted["member"] == "lmbr_dave", "item"].iloc[0]
voucher = next(v for v in sim.state.vouchers.values() if v.code == code)
print(code, voucher.campaign_id, "holder:", voucher.holder_id, "balance:", format_money(voucher.gift.balance))

# %% [markdown]
# ## Before and after
#
# Beans per member this morning, before anything happened, and after the morning's events (Bob's
# review and order, Frank's order) and the purchases that settled (Alice's beans, Bob's mug).

# %% tags=["nbval-check-output"]
after = cards()
compare = before[["card", "balance"]].merge(after[["card", "balance"]], on="card", suffixes=("_before", "_after"))
compare["change"] = compare["balance_after"] - compare["balance_before"]
readable(compare, counts=["balance_before", "balance_after", "change"])

# %%
beans = compare[compare["card"].str.endswith("_beans")]
fig, ax = plt.subplots(figsize=(8, 3.8))
positions = range(len(beans))
ax.bar([p - 0.2 for p in positions], beans["balance_before"], width=0.4,
       label="this morning (10:00:00)", color="#9aa5b1")
after_bars = ax.bar([p + 0.2 for p in positions], beans["balance_after"], width=0.4,
                    label="after the events and the settled purchases (10:00:02)", color="#3b6ea5")
ax.bar_label(after_bars, labels=[("+" if c > 0 else "") + format_count(c) if c else "" for c in beans["change"]], fontsize="small", padding=2)
ax.set_xticks(list(positions), labels=[c.removeprefix("lcrd_").removesuffix("_beans") for c in beans["card"]])
ax.set_ylabel("beans (points)")
count_axis(ax.yaxis)
ax.set_ylim(0, beans[["balance_before", "balance_after"]].to_numpy().max() * 1.15)
ax.set_title("Coffee Club beans: earned through events, spent on rewards")
ax.legend()
fig.tight_layout()
plt.show()
