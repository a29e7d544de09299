"""Hostile targets: each broken answer stops the pull with a clear error, in bounded time and memory,
and leaves no scenario behind (the pages read before are kept for `--resume`).
"""

from __future__ import annotations

import functools
import json
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from promolab import Simulator
from promolab.pull import Limits, PullError, PullOptions, pull, report_path, state_path
from promolab.shadow import Pace
from pull_support import SCENARIOS, Hostile, target_of

CUSTOMERS = "/v1/customers"


def _json(body: object, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, content=json.dumps(body).encode(), headers={"content-type": "application/json",
                                                                             **(headers or {})})


@functools.cache
def _template() -> dict[str, object]:
    with Simulator.from_scenario(SCENARIOS / "demo.yaml").client() as client:
        return client.list_customers(limit=1).customers[0].model_dump(mode="json")


def _fakes(real: Callable[[], httpx.Response], numbers: range) -> list[dict[str, object]]:
    """Customers as the simulator renders one, each with another id."""
    template = _template()
    return [{**template, "id": f"cust_fake_{n}", "source_id": f"fake-{n}"} for n in numbers]


def _page_one_always(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    body = json.loads(real().content)
    body["has_more"] = True
    body["customers"] = _fakes(real, range(100))
    body["total"] = 9_900  # within the pages' reach: a longer list is read through an export
    return _json(body)


def _more_forever(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    page = int(request.url.params.get("page", "1"))
    return _json({"object": "list", "data_ref": "customers", "total": 10**12, "has_more": True,
                  "customers": _fakes(real, range(page * 1000, page * 1000 + 100))})


def _beyond_total(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    page = int(request.url.params.get("page", "1"))
    return _json({"object": "list", "data_ref": "customers", "total": 150, "has_more": True,
                  "customers": _fakes(real, range(page * 1000, page * 1000 + 100))})


def _wrong_type(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    body = json.loads(real().content)
    body["customers"][1]["id"] = {"not": "a string"}
    return _json(body)


def _negative_total(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    body = json.loads(real().content)
    body["total"] = -3
    return _json(body)


def _too_long_a_page(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return _json({"object": "list", "data_ref": "customers", "total": 101, "has_more": False,
                  "customers": _fakes(real, range(101))})


def _fifty_megabytes(declared: bool) -> Callable[[httpx.Request, Callable[[], httpx.Response]], httpx.Response]:
    size = 50 * 2**20

    def chunks() -> Iterator[bytes]:
        yield b'{"object": "list", "customers": ["'
        block = b"x" * 2**16
        for _ in range(size // len(block)):
            yield block
        yield b'"]}'

    def answer(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
        headers = {"content-type": "application/json", **({"content-length": str(size + 38)} if declared else {})}
        return httpx.Response(200, stream=_Stream(chunks()), headers=headers)

    return answer


class _Stream(httpx.SyncByteStream):
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks


def _server_error_on_page_two(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    if request.url.params.get("page") == "2":
        return _json({"code": 500, "key": "internal", "message": "Internal server error"}, status=500)
    body = json.loads(real().content)
    body["customers"] = _fakes(real, range(99)) + body["customers"][:1]
    body["has_more"], body["total"] = True, 300
    return _json(body)


def _always_429(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return _json({"code": 429, "message": "Too many requests"}, status=429, headers={"retry-after": "0"})


def _not_json(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return httpx.Response(200, content=b"<html>maintenance</html>")


def _a_list(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return _json([1, 2, 3])


def _too_deep(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return httpx.Response(200, content=b"[" * 200_000 + b"]" * 200_000)


def _refused_keys(request: httpx.Request, real: Callable[[], httpx.Response]) -> httpx.Response:
    return _json({"code": 401, "key": "unauthorized", "message": "Unauthorized"}, status=401)


HOSTILE = [
    ("a cursor loop", _page_one_always, "the page repeats objects already read"),
    ("has_more forever", _more_forever, "the list's first page said 1,000,000,000,000"),
    ("more than the total", _beyond_total, "more objects than the 150 its first page declared"),
    ("a wrong type", _wrong_type, "customers.1.id: Input should be a valid string"),
    ("a negative total", _negative_total, "total: Input should be greater than or equal to 0"),
    ("a page longer than its limit", _too_long_a_page, "101 objects on a page of 100"),
    ("50 MB declared", _fifty_megabytes(True), "the answer is 52,428,838 bytes, more than the 8,388,608"),
    ("50 MB chunked", _fifty_megabytes(False), "the answer is more than the 8,388,608 bytes a page may hold"),
    ("a 500 mid-way", _server_error_on_page_two, "the target answered 500: Internal server error"),
    ("a 429 storm", _always_429, "rate limited: still 429 after 5 retries"),
    ("not JSON", _not_json, "the answer is not JSON"),
    ("a JSON array", _a_list, "the answer is list, not an object"),
    ("JSON nested too deep", _too_deep, "the answer is not JSON"),
    ("refused keys", _refused_keys, "the target answered 401: Unauthorized"),
]


@pytest.mark.parametrize(("case", "rewrite", "message"), HOSTILE, ids=[case for case, _, _ in HOSTILE])
def test_a_hostile_target_stops_the_pull_cleanly(case: str, rewrite: Callable[..., httpx.Response], message: str,
                                                 demo: Simulator, tmp_path: Path) -> None:
    out = tmp_path / "pulled.yaml"
    transport = Hostile(demo, CUSTOMERS, rewrite)
    started = time.perf_counter()
    tracemalloc.start()
    try:
        with pytest.raises(PullError) as caught:
            pull(target_of(demo, transport), out, PullOptions(pace=Pace(1, 0.0, retries=5)))
        peak_mb = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert message in str(caught.value)
    assert "list_customers" in str(caught.value)  # it names the call
    assert time.perf_counter() - started < 60
    # At most one page's bytes (8 MB) at a time, never the 50 MB page (has_more forever declares
    # more than the pages reach: its list is read through an export after its first page).
    assert peak_mb < 30, f"the pull's memory peaked at {peak_mb:.0f} MB"
    assert not out.exists() and not report_path(out).exists()
    assert list(tmp_path.iterdir()) in ([], [state_path(out)])  # no temporary file left either
    assert transport.calls <= 110


def test_the_page_size_bound_is_an_option(demo: Simulator, tmp_path: Path) -> None:
    with pytest.raises(PullError, match="bytes, more than the 1,000 a page may hold"):
        pull(target_of(demo), tmp_path / "p.yaml", PullOptions(limits=Limits(max_page_bytes=1000)))
