"""Lists longer than their pages reach, read through exports (served: POST, GET, download).

The reach is shrunk (`Limits(max_pages=2)`: 200 objects a list) so that a
project of a few hundred customers and codes, all made at one instant,
goes past it without making 10,000 objects. The export path must give the
scenario bytes the page path gives (differential), the pulled simulator
must answer as the original does, a hostile export must stop the pull with
nothing written, and a resumed pull must not create a list's export again.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from test_pull_answers import _answers, _redeemables, _requests

from promolab import Simulator
from promolab.http.transport import SimulatorTransport
from promolab.pull import (
    Limits,
    ProjectFacts,
    PullError,
    PullOptions,
    pull,
    report_path,
    state_path,
)
from pull_support import SCENARIOS, target_of

#: Two pages of 100: past it, customers and codes are read through exports.
SHORT = Limits(max_pages=2, export_polls=3, export_poll_every=0.0)


def _project() -> dict[str, Any]:
    """The demo, with 250 more customers (a segment of some) and a campaign of 300 codes (some with
    their own discount, a metadata, a holder, a limit, dates): every list past two pages, at one instant."""
    doc: dict[str, Any] = yaml.safe_load((SCENARIOS / "demo.yaml").read_text(encoding="utf-8"))
    extra = [{"source_id": f"bulk-{n:03d}", "name": f"Bulk {n}", **({"metadata": {"tier": n % 3}} if n % 5 == 0 else {})}
             for n in range(250)]
    doc["customers"] = [*doc["customers"], *extra]
    doc["segments"] = [*doc.get("segments", []),
                       {"id": "seg_bulk", "name": "Bulk", "customers": [c["source_id"] for c in extra[::7]]}]
    codes = [{"code": f"BULK-{n:04d}",
              **({"discount": {"type": "PERCENT", "percent_off": 12.5, "amount_limit": 900,
                               "effect": "APPLY_TO_ORDER"}} if n % 60 == 0 else {}),
              **({"metadata": {"batch": n % 4}} if n % 9 == 0 else {}),
              **({"holder": f"bulk-{n:03d}"} if n < 250 and n % 11 == 0 else {}),
              **({"redemption_quantity": 3} if n % 13 == 0 else {}),
              **({"active": False} if n % 17 == 0 else {})} for n in range(300)]
    for n in (7, 77, 147):  # a unit discount of their own, dates, a note
        codes[n]["discount"] = {"type": "UNIT", "unit_off": 1, "unit_type": "prod_beans_ethiopia",
                                "effect": "ADD_MISSING_ITEMS"}
        codes[n + 1].update(start_date="2026-02-01T00:00:00Z", expiration_date="2026-12-31T00:00:00Z",
                            additional_info=f"note {n}")
    doc["campaigns"] = [*doc["campaigns"], {
        "id": "camp_bulk", "name": "Bulk $5", "type": "DISCOUNT_COUPONS",
        "discount": {"type": "AMOUNT", "amount_off": 500, "effect": "APPLY_TO_ORDER"}, "vouchers": codes}]
    return doc


def _facts(sim: Simulator) -> ProjectFacts:
    """The project's id and zone, which no read endpoint says (its answers' tracking ids read them)."""
    return ProjectFacts(sim.state.project.id, sim.state.project.timezone)


@pytest.fixture(scope="module")
def project() -> dict[str, Any]:
    return _project()


def _files(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.parent.iterdir()) if path.name != report_path(out).name}


@pytest.fixture(scope="module")
def pulled(project: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> tuple[Simulator, Path, Path]:
    """The project served, pulled through its pages and through exports (each into its own folder)."""
    served = Simulator.from_scenario(project)
    facts = _facts(served)
    paged = tmp_path_factory.mktemp("paged") / "pulled.yaml"
    pull(target_of(served), paged, PullOptions(project=facts))
    assert not served.state.exports  # within the endpoints' own reach: pages only
    exported = tmp_path_factory.mktemp("exported") / "pulled.yaml"
    pull(target_of(served), exported, PullOptions(limits=SHORT, project=facts))
    return served, paged, exported


def test_the_export_path_writes_the_page_paths_bytes(pulled: tuple[Simulator, Path, Path]) -> None:
    served, paged, exported = pulled
    assert sorted(record.exported_object for record in served.state.exports.values()) == ["customer", "voucher"]
    assert _files(exported) == _files(paged)  # the scenario and its tables (customers, codes), byte for byte
    paged_rows, exported_rows = _report(paged), _report(exported)
    own_codes = {code["code"] for code in _project()["campaigns"][-1]["vouchers"] if "discount" in code}
    own = {v.id for v in served.state.vouchers.values() if v.code in own_codes}
    assert len(own) == 8
    # what the export's columns cannot carry, and nothing else: the publications, each own discount's rest
    assert exported_rows - paged_rows == {("voucher", "", "publish.count"), *(("voucher", v, "discount") for v in own)}
    assert paged_rows <= exported_rows


def _report(out: Path) -> set[tuple[str, str, str]]:
    rows = csv.DictReader(io.StringIO(report_path(out).read_text(encoding="utf-8")))
    return {(row["object"], row["id"], row["field"]) for row in rows}


def test_the_scenario_pulled_through_exports_answers_as_the_original(pulled: tuple[Simulator, Path, Path]) -> None:
    served, _, exported = pulled
    ours = Simulator.from_scenario(exported)
    assert ours.state.vouchers == served.state.vouchers
    assert [c.source_id for c in ours.state.customers.values()] == [c.source_id for c in served.state.customers.values()]
    redeemables = [_redeemables(served, request) for _, request in _requests()]
    assert _answers(ours, redeemables) == _answers(served, redeemables)


class _Rewriting(httpx.BaseTransport):
    """The simulator's answers, except those `rewrite` changes (it gets the path and the real answer)."""

    def __init__(self, sim: Simulator, rewrite: Callable[[str, httpx.Response], httpx.Response | None]) -> None:
        self.inner, self.rewrite = SimulatorTransport(sim), rewrite
        self.paths: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(f"{request.method} {request.url.path}")
        response = self.inner.handle_request(request)
        response.read()
        return self.rewrite(request.url.path, response) or response


def _exported(what: str) -> Callable[[str, httpx.Response], bool]:
    """Whether an answer is the download of the `what` export (its header's first column tells)."""
    return lambda path, response: path.endswith("/download") and response.text.startswith("id,code" if what == "voucher"
                                                                                           else "id,source_id")


def _status(status: str, url: str | None = None) -> Callable[[str, httpx.Response], httpx.Response | None]:
    def rewrite(path: str, response: httpx.Response) -> httpx.Response | None:
        if not (path.startswith("/v1/exports/") and not path.endswith("/download")):
            return None
        body = json.loads(response.content)
        body["status"] = status
        body["result"] = None if url is None and status != "DONE" else {"url": url}
        return httpx.Response(200, json=body)
    return rewrite


def _file(change: Callable[[list[list[str]]], list[list[str]]],
          what: str = "customer") -> Callable[[str, httpx.Response], httpx.Response | None]:
    def rewrite(path: str, response: httpx.Response) -> httpx.Response | None:
        if not _exported(what)(path, response):
            return None
        out = io.StringIO()
        csv.writer(out, lineterminator="\r\n").writerows(change(list(csv.reader(io.StringIO(response.text)))))
        return httpx.Response(200, content=out.getvalue().encode(), headers={"content-type": "text/csv"})
    return rewrite


def _cell(rows: list[list[str]], column: str, value: str) -> list[list[str]]:
    rows[1][rows[0].index(column)] = value
    return rows


HOSTILE: list[tuple[str, Callable[[str, httpx.Response], httpx.Response | None], Limits, str]] = [
    ("never DONE", _status("IN_PROGRESS"), SHORT, "not DONE after 3 looks 0 s apart (still IN_PROGRESS)"),
    ("ERROR", _status("ERROR"), SHORT, "the target's export failed (status ERROR)"),
    ("a file elsewhere", _status("DONE", "https://elsewhere.example/x.csv"), SHORT, "not on the target"),
    ("no header", _file(lambda rows: []), SHORT, "the file is empty (no header)"),
    ("wrong columns", _file(lambda rows: [["name", *rows[0][1:]], *rows[1:]]), SHORT, "the header is 'name,"),
    ("a short row", _file(lambda rows: [*rows[:2], rows[2][:-1], *rows[3:]]), SHORT, "row 2 has 29 cells, the header 30"),
    ("money not an integer", _file(lambda rows: _cell(rows, "orders_total_amount", "12.50")), SHORT,
     "row 1, column orders_total_amount: '12.50' is not an integer"),
    ("an instant not an instant", _file(lambda rows: _cell(rows, "created_at", "yesterday")), SHORT,
     "export of customers: row 1 (cust_alice): created_at: Input should be an ISO 8601 date-time, got 'yesterday'"),
    ("a code's limit not an integer", _file(lambda rows: _cell(rows, "redemption_quantity", "3.5"), "voucher"), SHORT,
     ("list_vouchers (354 objects, past its pages' 200): export of vouchers: row 1, column redemption_quantity: "
      "'3.5' is not an integer")),
    ("a boolean not a boolean", _file(lambda rows: _cell(rows, "active", "yes"), "voucher"), SHORT,
     "column active: 'yes' is not true or false"),
    ("a row missing", _file(lambda rows: rows[:-1]), SHORT, "the file holds 255 customers, the list's first page said 256"),
    ("oversized", lambda path, response: None, Limits(max_pages=2, max_export_bytes=2_000), 
     "the answer is 30,603 bytes, more than the 2,000 an export's file may hold"),
]


@pytest.mark.parametrize(("case", "rewrite", "limits", "message"), HOSTILE, ids=[case for case, *_ in HOSTILE])
def test_a_hostile_export_stops_the_pull_with_nothing_written(
        case: str, rewrite: Callable[[str, httpx.Response], httpx.Response | None], limits: Limits, message: str,
        project: dict[str, Any], tmp_path: Path) -> None:
    served = Simulator.from_scenario(project)
    out = tmp_path / "pulled.yaml"
    with pytest.raises(PullError) as caught:
        pull(target_of(served, _Rewriting(served, rewrite)), out, PullOptions(limits=limits))
    assert message in str(caught.value)
    assert re.match(r"list_(customers \(256|vouchers \(354) objects, past its pages' 200\): ", str(caught.value))
    assert list(tmp_path.iterdir()) == [state_path(out)]  # the pages read, for --resume; no scenario, no report


def test_a_resumed_pull_creates_no_export_again(project: dict[str, Any], pulled: tuple[Simulator, Path, Path],
                                               tmp_path: Path) -> None:
    served = Simulator.from_scenario(project)
    out = tmp_path / "pulled.yaml"
    codes_file = _exported("voucher")
    cut = _Rewriting(served, lambda path, response: httpx.Response(500, json={"message": "cut"})
                     if codes_file(path, response) else None)
    with pytest.raises(PullError, match="download_export .*: the target answered 500: cut"):
        pull(target_of(served, cut), out, PullOptions(limits=SHORT, project=_facts(served)))
    assert len(served.state.exports) == 2  # the customers' (downloaded) and the codes' (its file cut)
    again = _Rewriting(served, lambda path, response: None)
    pull(target_of(served, again), out, PullOptions(limits=SHORT, resume=True, project=_facts(served)))
    assert len(served.state.exports) == 2  # neither made again
    assert [p for p in again.paths if "/v1/exports" in p] == [f"GET /v1/exports/{export}{end}" for export in
                                                             list(served.state.exports)[1:] for end in ("", "/download")]
    assert _files(out) == _files(pulled[2])


def test_an_export_in_progress_is_waited_for(project: dict[str, Any], pulled: tuple[Simulator, Path, Path],
                                              tmp_path: Path) -> None:
    """A target whose exports are IN_PROGRESS at their first two looks: the third (the last SHORT allows) finds
    them DONE, and the pull ends as if they had been DONE at once."""
    served = Simulator.from_scenario(project)
    looks: dict[str, int] = {}
    slow = _status("IN_PROGRESS")

    def rewrite(path: str, response: httpx.Response) -> httpx.Response | None:
        if path.startswith("/v1/exports/") and not path.endswith("/download"):
            looks[path] = looks.get(path, 0) + 1
            return slow(path, response) if looks[path] < SHORT.export_polls else None
        return None

    out = tmp_path / "pulled.yaml"
    pull(target_of(served, _Rewriting(served, rewrite)), out, PullOptions(limits=SHORT, project=_facts(served)))
    assert sorted(looks.values()) == [3, 3]
    assert _files(out) == _files(pulled[2])
