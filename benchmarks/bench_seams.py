"""Speed at the seams: the in-process HTTP face against what it wraps, both targets in one run.

Prints, never asserts; every figure and ratio comes from this one run.

(1) GET incentive (demo scenario, `linc_0a11ce02`): `sim.client().get_incentive(id)`
    against the bare httpx round trip of bench_get_incentive.py (an
    `httpx.MockTransport` answering the exact bytes and headers the client
    receives, then `models.Incentive.model_validate_json`). Target <= 1.5x.
(2) A stacked validation of 5 redeemables (bench_stacking.py's request):
    `sim.client().validate_stacked(...)` against the operation called
    in-process, `sim.apply(VALIDATE_STACKED, ...)`. Target <= 2x.

Where the time of (2) goes, each piece timed alone in the same rounds: the
operation; serialising its answer (the HTTP face's `_encode` of the
`Rendered` answer, done once); the HTTP face around it (`App.handle` minus the
operation); the bare httpx round trip on the same bytes (the floor of any
httpx client); parsing the bytes into `StackedValidationResponse` (what the
typed client must do). The floor of the ratio is (operation + bare httpx +
parse) / operation: what no change to promolab's own layers can go under
while the client is an httpx client returning a parsed model.

Pieces timed alone run hot in the CPU's caches and sum to much less than the
chained call, so three rows time them chained, one after the other in each
call: the operation then `.model()` (the typed answer, no HTTP at all);
`App.handle` then the parse (the HTTP face without httpx); the bare httpx
round trip with `App.handle` run inside its echo, then the parse (all but
promolab's transport conversions and client code: the client call minus
this row is what those add).

What they showed (benchmarks/README.md has the figures):
- the one piece of work done twice was the client's URL: httpx's
  `URL.join` parses the path, joins with urllib and parses again, ~30 us a
  call; each client now keeps the URLs it joined (client/_clients.py). What
  promolab's transport and client add to the chain fell from ~190 to 30-50
  us, and (1) from ~2.05x to ~1.33x;
- the rest of the "unexplained" time is the chain itself: the same code run
  one piece after another costs 1.5-1.6x the pieces alone (caches; ~10 %
  is the garbage collector), not code run twice;
- (2) stays over 2x for any client returning a validated model: the typed
  answer without any HTTP (operation + `model()`, chained) is already
  2.2-2.5x the operation, and the HTTP face + parse without httpx 2.6-2.9x.

Timing: bench_validation.measure (warm-up, ROUNDS interleaved rounds, CPU time
of this process, garbage collector on); median and minimum of the per-round
means, in µs per call.

Run: .venv/bin/python benchmarks/bench_seams.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
from pathlib import Path
from typing import Any

import bench_stacking
import httpx
from bench_validation import measure

from promolab import Simulator, models
from promolab.http import SimulatorTransport
from promolab.http.app import App, _encode
from promolab.http.messages import HttpRequest
from promolab.sim.operations.stacked_validation import VALIDATE_STACKED

DEMO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "demo.yaml"
BASE = "http://promolab.local"
INCENTIVE = "linc_0a11ce02"


def _echo(first: httpx.Response) -> httpx.Client:
    """An httpx client whose transport answers `first`'s exact bytes and headers."""
    payload, headers = first.content, list(first.headers.items())
    return httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200, content=payload, headers=headers)))


def _incentive_variants() -> dict[str, tuple[Any, int]]:
    sim = Simulator.from_scenario(DEMO)
    client = sim.client()
    creds = sim.state.project.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token.get_secret_value(),
               "Authorization": f"Bearer {creds.access_token.get_secret_value()}"}
    url = f"{BASE}/v2/loyalties/incentives/{INCENTIVE}"
    first = httpx.Client(transport=SimulatorTransport(sim)).get(url, headers=headers)
    assert first.status_code == 200, first.text
    bare = _echo(first)

    def bare_parse() -> models.Incentive:
        return models.Incentive.model_validate_json(bare.get(url, headers=headers).content)

    assert client.get_incentive(INCENTIVE) == bare_parse()
    return {"incentive client": (lambda: client.get_incentive(INCENTIVE), 200),
            "incentive bare+parse": (bare_parse, 200)}


def _stacked_variants() -> tuple[dict[str, tuple[Any, int]], int]:
    sim = Simulator.from_scenario(bench_stacking.SCENARIO)
    request = bench_stacking.REQUEST
    client = sim.client()
    creds = sim.state.project.credentials
    headers = {"X-App-Id": creds.app_id, "X-App-Token": creds.app_token.get_secret_value()}
    url = f"{BASE}/v1/validations"
    first = httpx.Client(transport=SimulatorTransport(sim)).post(url, json=request, headers=headers)
    assert first.status_code == 200, first.text
    payload = first.content
    bare = _echo(first)
    app = App(sim)
    message = HttpRequest(method="POST", path="/v1/validations", query_string="",
                          headers={k.lower(): v for k, v in {**headers, "content-type": "application/json"}.items()},
                          body=json.dumps(request).encode(), repeated=frozenset())
    assert app.handle(message).status == 200
    answer = sim.apply(VALIDATE_STACKED, request=request)
    model = models.StackedValidationResponse
    # The round trip of "bare httpx" with the HTTP face run inside its echo
    # (its answer dropped for the canned one): the face and httpx chained, as
    # in the client, without promolab's transport conversions or client code.
    canned = httpx.Client(transport=httpx.MockTransport(
        lambda r: (app.handle(message), httpx.Response(200, content=payload, headers=list(first.headers.items())))[1]))
    return {
        "stacked client": (lambda: client.validate_stacked(request), 50),
        "stacked operation": (lambda: sim.apply(VALIDATE_STACKED, request=request), 100),
        "stacked serialise": (lambda: _encode(answer), 200),
        "stacked app.handle": (lambda: app.handle(message), 100),
        "stacked bare httpx": (lambda: bare.post(url, json=request, headers=headers).content, 100),
        "stacked parse": (lambda: model.model_validate_json(payload), 200),
        "stacked operation + model(), chained": (lambda: sim.apply(VALIDATE_STACKED, request=request).model(), 50),
        "stacked app.handle + parse, chained": (lambda: model.model_validate_json(app.handle(message).body), 50),
        "stacked in situ: httpx + app.handle + parse": (
            lambda: model.model_validate_json(canned.post(url, json=request, headers=headers).content), 50),
    }, len(payload)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    stacked, size = _stacked_variants()
    samples = measure({**_incentive_variants(), **stacked}, args.rounds)
    med = {name: statistics.median(values) for name, values in samples.items()}
    low = {name: min(values) for name, values in samples.items()}
    print(f"speed at the seams (python {platform.python_version()}, httpx {httpx.__version__}, CPU time, "
          f"{args.rounds} interleaved rounds, load average {os.getloadavg()[0]:.1f})")
    print(f"{'':44} {'median':>8} {'min':>8}  (us per call)")
    for name in samples:
        print(f"{name:44} {med[name]:8.1f} {low[name]:8.1f}")

    def ratio(a: str, b: str) -> str:
        return f"median {med[a] / med[b]:.2f}x, min {low[a] / low[b]:.2f}x"

    print(f"(1) GET incentive, client / bare httpx + parse:   {ratio('incentive client', 'incentive bare+parse')}"
          "   (target <= 1.5x)")
    print(f"(2) stacked validation ({size:,} bytes), client / operation in-process: "
          f"{ratio('stacked client', 'stacked operation')}   (target <= 2x)")
    face = med["stacked app.handle"] - med["stacked operation"]
    print(f"    where the client's time goes (medians): operation {med['stacked operation']:.0f}, "
          f"HTTP face around it {face:.0f} (of which serialising {med['stacked serialise']:.0f}), "
          f"httpx round trip {med['stacked bare httpx']:.0f}, parse {med['stacked parse']:.0f}, "
          f"the rest (transport conversions, client) "
          f"{med['stacked client'] - med['stacked app.handle'] - med['stacked bare httpx'] - med['stacked parse']:.0f}")
    floor = (med["stacked operation"] + med["stacked bare httpx"] + med["stacked parse"]) / med["stacked operation"]
    print(f"    floor of the ratio for any httpx client returning a parsed model: "
          f"(operation + bare httpx + parse) / operation = {floor:.2f}x")
    print(f"    the typed answer without any HTTP, chained: operation + model() / operation = "
          f"{ratio('stacked operation + model(), chained', 'stacked operation')}; "
          f"the HTTP face and the parse without httpx: {ratio('stacked app.handle + parse, chained', 'stacked operation')}")
    in_situ = med["stacked in situ: httpx + app.handle + parse"]
    alone = med["stacked app.handle"] + med["stacked bare httpx"] + med["stacked parse"]
    print(f"    chained: httpx + app.handle + parse cost {in_situ:.0f} in one round trip vs {alone:.0f} as pieces; "
          f"the client adds {med['stacked client'] - in_situ:.0f} (its transport's conversions, the request's "
          f"JSON, its bookkeeping)")


if __name__ == "__main__":
    main()
