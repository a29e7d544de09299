# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 8. Shadow run: where does the simulator drift from the real service?
#
# A **shadow run** sends the same script of operations to a real deployment and to the
# simulator, line by line, and reports every field where the simulator's answer differs
# from the real one (docs/shadow.md). Ids each side generated are paired, values that can
# never match (request ids, timestamps) are masked, and amounts of money read as money.
#
# A real deployment needs credentials (environment variables only) and an hour per hundred
# calls in the sandbox. This notebook stands a **perturbed copy of the demo scenario** in for
# the real service, in-process, so it runs anywhere and gives the same answer every time:
# the stand-in draws its ids from another seed, and three things were changed on purpose.

# %%
import tempfile
from pathlib import Path

import pandas as pd

from promolab import Simulator, with_changes
from promolab.http.transport import SimulatorTransport
from promolab.shadow import Pace, Target, rediff, shadow
from promolab.shadow.sides import keys_of

pd.set_option("display.width", 160)
pd.set_option("display.max_columns", 20)
pd.set_option("display.max_colwidth", 80)
pd.set_option("display.html.use_mathjax", False)  # "$13.56 -> $11.30" is money, not maths

DATA = Path("..") / "data"  # notebooks run from notebooks/
SCENARIO = DATA / "scenarios" / "demo.yaml"
DAY = DATA / "events" / "demo_day.jsonl"

# %% [markdown]
# ## The planted differences
#
# The stand-in's scenario is the demo's with: the VIP tier `promo_vip_10pct` at 12% off
# instead of 10%; the mug reward at 450 points instead of 500; and customer Frank missing.
#
# The tier's change is a changed copy (`with_changes`, docs/scenarios.md "Changed copies"),
# which names tiers, campaigns and stacking rules by id and checks the result by loading it.
# It does not reach loyalty rewards nor remove a customer, so those two are made by hand on
# the copy it returns (a new document: the demo's file is left as it was).

# %% tags=["nbval-check-output"]
changed = with_changes(SCENARIO, {"tiers.promo_vip_10pct.discount.percent_off": 12})
# by hand: with_changes names no loyalty rewards, and sets values rather than removing a customer
for program in changed["loyalty"]["programs"]:
    for reward in program.get("rewards", []):
        if reward["id"] == "lrewa_mug":
            reward["costs"][0]["points"] = 450
    program["members"] = [m for m in program.get("members", []) if m.get("customer") != "cust_frank"]
changed["customers"] = [c for c in changed["customers"] if c["id"] != "cust_frank"]
for segment in changed["segments"]:
    segment["customers"] = [c for c in segment["customers"] if c != "cust_frank"]

real = Simulator.from_scenario(changed, seed=99)  # the stand-in for the real service
target = Target("http://real.example", keys_of(real), transport=SimulatorTransport(real), drive_clock=True)
target

# %% [markdown]
# ## The run
#
# The script is the Friday of notebook 4 (`demo_day.jsonl`, 23 lines). It writes (publications,
# events, purchases, top-ups, deletions), which a shadow run refuses unless told
# `allow_writes=True`: against a real project, point it at a sandbox. The pace is the sandbox's
# 100 calls an hour unless given; the stand-in needs none. Every exchange goes to the cassette.

# %% tags=["nbval-check-output"]
workdir = Path(tempfile.mkdtemp())
cassette = workdir / "run.jsonl"
run = shadow(DAY, target=target, scenario=SCENARIO, cassette=cassette, allow_writes=True,
             pace=Pace(1000, 1.0), progress=False)
print(run.report.text())

# %% [markdown]
# ## Every difference
#
# One row per (line, operation, field path). `expected` is the real service's value, `got`
# the simulator's; `shown` reads the difference for a person, money with its currency and
# the amount between the two sides (the data stays in cents: `difference`).

# %% tags=["nbval-check-output"]
run.report.differences[["line", "op", "path", "kind", "expected", "got", "difference", "shown"]]

# %% [markdown]
# What each planted change did:
#
# - the 12% VIP tier prices Alice's cart (line 1) \$13.56 off there, \$11.30 here: eight
#   amounts of that tier;
# - the cheaper mug: Alice's purchase spends 450 points there (line 9), and Bob, still short,
#   is told it costs 450 (line 10);
# - Frank missing: his cart has no customer there (line 19), and his first order there
#   (line 20) creates a new customer, with none of his details.

# %% [markdown]
# ## By operation and field

# %% tags=["nbval-check-output"]
run.report.summary()

# %% [markdown]
# ## Line by line
#
# Both statuses of every line, the simulated clock it ran at, and how many fields differ.

# %% tags=["nbval-check-output"]
run.report.lines

# %% [markdown]
# ## Ids paired on the way
#
# Publications, vouchers, codes, transactions and a customer got another id on each side.
# Each pair was recorded where both answers created it, so answers naming them compare
# equal and later lines could use them on both sides.

# %% tags=["nbval-check-output"]
pd.DataFrame(run.ids.pairs(), columns=["simulator", "real"])

# %% [markdown]
# ## Offline, from the cassette
#
# `rediff` runs the cassette's lines on a fresh simulator and compares with the recorded real
# answers: no network. After a change of the simulator or the scenario, this is how a team
# checks it against yesterday's real answers. Unchanged, it gives the same report.

# %% tags=["nbval-check-output"]
again = rediff(cassette, scenario=SCENARIO)
again.report.differences.equals(run.report.differences), len(cassette.read_text(encoding="utf-8").splitlines())

# %% [markdown]
# The same report as a standalone HTML page (`promolab shadow --report report.html`):

# %% tags=["nbval-check-output"]
report_page = workdir / "report.html"
run.report.write_html(report_page)
page = report_page.read_text(encoding="utf-8")
page.count("<tr>"), "$13.56 -&gt; $11.30 (-$2.26)" in page
