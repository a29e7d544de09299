"""GET /v2/loyalties/incentives/{id}: the in-process simulator vs a bare httpx round trip.

Prints, never asserts; every figure comes from this one run.

(a) promolab     `sim.client().get_incentive(ID)` on the demo scenario: the typed
                 client builds the request, httpx runs it through
                 `SimulatorTransport`, the HTTP face routes it, checks the three
                 credentials, runs the operation (record -> `models.Incentive`),
                 serialises it to JSON, and the client parses the bytes back into
                 `models.Incentive`.
(b) bare+parse   THE BASELINE. `httpx.Client(transport=httpx.MockTransport(echo))`
                 where `echo` returns `httpx.Response(200, content=PAYLOAD,
                 headers=<the simulator's response headers>)`, called as
                 `client.get(URL, headers=<the same 3 auth headers>)`, then
                 `models.Incentive.model_validate_json(response.content)`.
                 PAYLOAD is the exact byte string (a) receives. So (a) and (b)
                 share the httpx request/response machinery and the final parse;
                 the difference is what the simulator does in between (routing,
                 auth, operation, rendering, serialisation, header conversion)
                 plus the typed client's own bookkeeping.
(c) bare         (b) without the parse: the raw httpx round trip on a canned answer.

Ratios: a/b is the fair one (both end with a parsed model) -> target <= 1.5x;
a/c is shown for reference.

Timing: `time.perf_counter_ns`, warm-up first, then ROUNDS rounds; in each round
every variant runs BATCH calls back to back, variants interleaved so that a
slow moment of the machine hits all of them alike. Per variant the median
(and the minimum) of the per-round means is reported in µs per call. As a
cross-check against other processes sharing the machine, CPU time of this
process (`time.process_time_ns`) is measured the same way.

A breakdown of (a) by layer (each piece timed alone, same method) follows, so
the excess over (b) can be attributed. `--profile` adds a cProfile listing.

Run: .venv/bin/python benchmarks/bench_get_incentive.py [--incentive ID] [--rounds N] [--profile]
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

import httpx

from promolab import Client, Simulator, models
from promolab.http.app import _encode
from promolab.http.auth import authorized
from promolab.http.messages import HttpRequest
from promolab.http.transport import SimulatorTransport, _to_httpx, _to_message
from promolab.sim.operations.incentives import GET_INCENTIVE
from promolab.sim.render import render_incentive

DEMO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / "demo.yaml"
BASE_URL = "http://promolab.local"


def measure(variants: dict[str, Callable[[], object]], *, rounds: int, batch: int, warmup: int,
            clock: Callable[[], int]) -> dict[str, list[float]]:
    """Per-round mean µs per call for each variant, variants interleaved."""
    for func in variants.values():
        for _ in range(warmup):
            func()
    per_round: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, func in variants.items():
            start = clock()
            for _ in range(batch):
                func()
            per_round[name].append((clock() - start) / batch / 1000)
    return per_round


def summary(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), min(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--incentive", default="linc_0a11ce02", help="incentive id of the demo (default: a POINTS_PROPORTIONAL one)")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--batch", type=int, default=400)
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of (a)")
    args = parser.parse_args(argv)

    sim = Simulator.from_scenario(DEMO)
    client = sim.client()
    incentive_id = args.incentive
    url = f"{BASE_URL}/v2/loyalties/incentives/{incentive_id}"
    creds = sim.state.project.credentials
    request_headers = {
        "X-App-Id": creds.app_id,
        "X-App-Token": creds.app_token.get_secret_value(),
        "Authorization": f"Bearer {creds.access_token.get_secret_value()}",
    }

    # The exact bytes and headers (a) receives, replayed by the baseline.
    first = httpx.Client(transport=SimulatorTransport(sim)).get(url, headers=request_headers)
    assert first.status_code == 200, first.text
    payload = first.content
    response_headers = [(k, v) for k, v in first.headers.items()]
    assert client.get_incentive(incentive_id) == models.Incentive.model_validate_json(payload)

    bare = httpx.Client(transport=httpx.MockTransport(
        lambda request: httpx.Response(200, content=payload, headers=response_headers)))

    def a_promolab() -> object:
        return client.get_incentive(incentive_id)

    def b_bare_parse() -> object:
        return models.Incentive.model_validate_json(bare.get(url, headers=request_headers).content)

    def c_bare() -> object:
        return bare.get(url, headers=request_headers).content

    variants = {"(a) promolab": a_promolab, "(b) bare+parse": b_bare_parse, "(c) bare": c_bare}

    print(f"python {platform.python_version()} | httpx {httpx.__version__} | {platform.machine()} | "
          f"incentive {incentive_id} ({len(payload)} bytes)")
    print(f"{args.rounds} rounds x {args.batch} calls per variant, interleaved; µs per call\n")

    gc.collect()
    wall = measure(variants, rounds=args.rounds, batch=args.batch, warmup=500, clock=time.perf_counter_ns)
    cpu = measure(variants, rounds=args.rounds, batch=args.batch, warmup=50, clock=time.process_time_ns)

    print(f"{'variant':18} {'median':>9} {'min':>9}   {'cpu median':>10} {'cpu min':>9}")
    results = {}
    for name in variants:
        med, low = summary(wall[name])
        cmed, clow = summary(cpu[name])
        results[name] = (med, low, cmed, clow)
        print(f"{name:18} {med:9.1f} {low:9.1f}   {cmed:10.1f} {clow:9.1f}")
    a, b, c = (results[n] for n in variants)
    print()
    print(f"ratio a/b (fair: both parse)   median {a[0] / b[0]:.2f}x   min {a[1] / b[1]:.2f}x   "
          f"cpu median {a[2] / b[2]:.2f}x   (target <= 1.5x)")
    print(f"ratio a/c (baseline no parse)  median {a[0] / c[0]:.2f}x   min {a[1] / c[1]:.2f}x   "
          f"cpu median {a[2] / c[2]:.2f}x")
    print(f"excess of (a) over (b): {a[0] - b[0]:.1f} µs per call (median)")

    breakdown(sim, client, url, request_headers, incentive_id, payload, rounds=args.rounds, batch=args.batch)
    if args.profile:
        profile(a_promolab)
    return 0


def breakdown(sim: Simulator, client: Client, url: str, headers: dict[str, str], incentive_id: str,
              payload: bytes, *, rounds: int, batch: int) -> None:
    """Each layer of (a) alone, so the excess over (b) can be attributed."""
    http = client._http
    transport = cast(SimulatorTransport, http._transport)  # the one sim.client() gave its httpx client
    app = transport.app
    request = http.build_request("GET", url, headers=headers)
    message = _to_message(request, b"")
    answer = app.handle(message)
    record = sim.state.incentives[incentive_id]
    model = render_incentive(record)
    path = message.path
    credentials = sim.state.project.credentials
    route = app.router.match("GET", path).route
    assert route is not None
    pieces: dict[str, Callable[[], object]] = {
        "client: the call's URL (kept per client)": lambda: client._url(False, path),
        "  httpx URL.join (what it cost each call)": lambda: client._bases[False].join(path.lstrip("/")),
        "transport: httpx.Request -> HttpRequest": lambda: _to_message(request, b""),
        "app.handle (all of the HTTP face)": lambda: app.handle(message),
        "  routing (router.match)": lambda: app.router.match("GET", path),
        "  auth (3 constant-time compares)": lambda: authorized(route.auth, message.headers, credentials),
        "  operation + render (record -> model)": lambda: sim.apply(GET_INCENTIVE, incentive_id=incentive_id),
        "    render only": lambda: render_incentive(record),
        "  serialisation (model -> JSON bytes)": lambda: _encode(model),
        "transport: HttpResponse -> httpx.Response": lambda: _to_httpx(answer, request),
        "httpx.Response of the baseline echo": lambda: httpx.Response(200, content=payload, headers=answer.header_list()),
        "response parsing (validate_json)": lambda: models.Incentive.model_validate_json(payload),
        "whole transport.handle_request": lambda: transport.handle_request(request),
    }
    # In situ: the baseline (b) whose echo also runs app.handle (its answer
    # discarded). Minus (b), this is what the HTTP face costs inside the httpx
    # round trip, where its code and httpx's compete for the CPU caches.
    canned = httpx.Client(transport=httpx.MockTransport(
        lambda r: (app.handle(message), httpx.Response(200, content=payload, headers=answer.header_list()))[1]))
    bare = httpx.Client(transport=httpx.MockTransport(
        lambda r: httpx.Response(200, content=payload, headers=answer.header_list())))
    pieces["(b) with app.handle run inside the echo"] = (
        lambda: models.Incentive.model_validate_json(canned.get(url, headers=headers).content))
    pieces["(b) itself"] = lambda: models.Incentive.model_validate_json(bare.get(url, headers=headers).content)
    samples = measure(pieces, rounds=max(5, rounds // 3), batch=batch * 2, warmup=200, clock=time.perf_counter_ns)
    print("\nbreakdown of (a), each piece alone (median µs per call):")
    for name, values in samples.items():
        print(f"  {name:44} {statistics.median(values):7.1f}")
    in_situ = statistics.median(samples["(b) with app.handle run inside the echo"]) - statistics.median(samples["(b) itself"])
    alone = statistics.median(samples["app.handle (all of the HTTP face)"])
    print(f"  -> app.handle costs {in_situ:.1f} µs inside the round trip vs {alone:.1f} µs alone")
    _ = HttpRequest  # (the framework-free request type the transport builds)


def profile(func: Callable[[], object]) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5000):
        func()
    profiler.disable()
    print("\ncProfile of (a), 5000 calls, by cumulative time (cProfile inflates call-heavy code):")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    raise SystemExit(main())
