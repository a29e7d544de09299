"""Fill docs/reliability.md's results table from the reliability tests' own output.

The tests under tests/reliability/ write what they measured to
test-output/reliability-results.json (one section per test area, each with
the UTC time it was recorded). This script turns that file into the
Markdown table between the `reliability-results` markers of
docs/reliability.md, so the figures in the document are the ones a run
produced, never typed by hand.

    python -m pytest tests/reliability          # writes test-output/reliability-results.json
    python scripts/reliability_report.py        # rewrites the table in docs/reliability.md
    python scripts/reliability_report.py --print  # or just print it
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "test-output" / "reliability-results.json"
DOC = ROOT / "docs" / "reliability.md"
BEGIN = "<!-- reliability-results:begin -->"
END = "<!-- reliability-results:end -->"


def _n(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _when(section: dict[str, Any]) -> str:
    return f"{section.get('recorded_at', '?')} ({section.get('cpus', '?')} CPUs, Python {section.get('python', '?')})"


def rows(results: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    out: list[tuple[str, str, str, str]] = []
    c = results.get("concurrency")
    if c:
        r = c["reconciliation"]
        cards = r["cards"]
        spent = sum(card["spent"] for card in cards.values())
        out.append((
            "Load held",
            f"**{c['ops_per_second']:.0f} ops/s** with **{c['clients']} concurrent clients** x {_n(c['ops_per_client'])} "
            f"mixed operations ({_n(c['operations'])} in {c['seconds']} s; "
            + ", ".join(f"{k} {_n(v)}" for k, v in c["operations_by_kind"].items())
            + f"); {c['server_errors']} server errors",
            (f"reconciled: {_n(r['publications_acknowledged'])} publications, {_n(r['distinct_codes'])} distinct codes "
            f"(pool {_n(r['pool'])}, {_n(r['codes_held_at_end'])} held at the end incl. {r['coupon_rewards']} reward "
            f"coupons); {_n(r['purchases_approved'])} purchases approved / {_n(r['purchases_rejected'])} rejected, "
            f"{_n(spent)} points spent on {len(cards)} shared cards, every balance = opening + approved transactions; "
            f"mug stock {r['mug_stock']['opening']} -> {r['mug_stock']['final']} exact; "
            f"{_n(r['events_acknowledged'])} events and {_n(r['gift_credits_acknowledged'])} gift credits all applied"),
            _when(c),
        ))
    d = results.get("durability")
    if d:
        w = d["acknowledged_writes"]
        torn = sum(1 for rnd in d["rounds"] if rnd.get("torn_last_line"))
        out.append((
            "Faults survived",
            (f"**{d['sigkills']} SIGKILLs** of the served simulator in the middle of a {d['clients']}-client write load, "
            f"each followed by a restart from the journal ({_n(d['journal_lines'])} journal lines, {torn} torn last "
            f"line(s) dropped on replay); replaying the same journal twice gives byte-identical state"),
            (f"**{_n(d['acknowledged_operations'])} acknowledged answers, {d['lost']} lost**: "
            f"{_n(w['publications'])} publications, {_n(w['purchases'])} purchases (+{_n(w['free_grants'])} free "
            f"grants), {_n(w['events'])} events, {_n(w['gift_credits'])} gift credits all present after restart; "
            f"state consistent (balances, codes, stock, gift amounts)"),
            _when(d),
        ))
    cr = results.get("crash_recovery")
    if cr:
        kills = cr["sigkills"]
        tails = {k: v for k, v in cr["tails_planted"].items() if k != "none"}
        lost_answers = cr["lost_answers"]
        writes = {k: v for k, v in cr["acknowledged"].items() if k not in ("validate", "snapshot")}
        out.append((
            "Crashes injected (journal)",
            (f"**{kills['under_load'] + kills['during_restart']} SIGKILLs** at seeded random moments "
            f"(seed {cr['seed']}, {cr['rounds']} rounds in {cr['seconds']} s): {kills['under_load']} under a seeded "
            f"one-client load (writes, validations, clock advances, resets, snapshots, restores), "
            f"{kills['during_restart']} during the server's own restart; {_n(sum(tails.values()))} damaged tails planted after a kill ("
            + ", ".join(f"{k} {v}" for k, v in tails.items())
            + f"), {_n(cr['bytes_cut'])} bytes cut at the next start; {cr['restarts']} restarts, median "
            f"{_n(cr['restart_ms']['median'])} ms, max {_n(cr['restart_ms']['max'])} ms "
            f"({_n(cr['journal_lines'])} journal lines)"),
            (f"**{_n(cr['acknowledged_writes'])} acknowledged writes, {cr['lost']} lost** ("
            + ", ".join(f"{k} {_n(v)}" for k, v in writes.items())
            + f"): after every restart the served state equals an uninterrupted in-process simulator given "
            f"exactly the acknowledged requests, and every answer ({_n(cr['refused'])} refusals included) equals "
            f"its answer; of the requests whose answer died with the process, {lost_answers['journaled']} were "
            f"journaled (and applied), {lost_answers['not_journaled']} not"),
            _when(cr),
        ))
    b = results.get("bad_inputs")
    if b:
        out.append((
            "Bad inputs tried",
            f"**{_n(b['catalogue'])} malformed requests** across every endpoint ("
            + ", ".join(f"{k} {v}" for k, v in b["by_endpoint"].items())
            + f"), in-process; {_n(b['served_subset'])} of them also against `promolab serve`",
            (f"{_n(b['in_process_passed'])}/{_n(b['catalogue'])} in-process and {_n(b['served_passed'])}/"
            f"{_n(b['served_subset'])} served answered with the documented status and key, in the error shape with "
            f"a request_id, state dump byte-identical before and after"),
            _when(b),
        ))
    fuzz_runs = (("contract_fuzz", "Contract fuzzing"), ("contract_fuzz_long", "Contract fuzzing (`make fuzz-long`)"))
    for name, area in fuzz_runs:
        f = results.get(name)
        if not f:
            continue
        statuses = ", ".join(f"{k}: {_n(v)}" for k, v in f["statuses"].items())
        out.append((
            area,
            (f"**{_n(f['cases'])} generated requests** over {f['operations']} operations of the served /openapi.json "
            f"({f['examples_per_operation_and_mode']} examples per operation and mode, "
            f"{'random' if f.get('randomized') else 'derandomized'}); answers {statuses}"),
            ("no 5xx, every status documented, every body valid against the document, every error an ErrorBody "
            "with a request_id, schema-violating requests refused, auth enforced"),
            _when(f),
        ))
    lim = results.get("limits")
    if lim:
        parts = []
        if "body_limit_bytes" in lim:
            parts.append(f"413 above {_n(lim['body_limit_bytes'])} bytes (Content-Length and chunked)")
        if "timeout_504_after_s" in lim:
            parts.append(f"504 request_timeout after {lim['timeout_504_after_s']} s (`--timeout 0.5`, slow webhook)")
        if "rate_limit" in lim:
            rl = lim["rate_limit"]
            parts.append(f"429 after {rl['limit_per_minute']} requests/min with Retry-After {rl['retry_after_s']} s")
        if "client_retry" in lim:
            parts.append("`Client`/`AsyncClient` waited Retry-After and retried")
        read = lim.get("read_during_slow_webhook")
        write = lim.get("write_during_slow_webhook")
        note = "the write behind a 504 completed; the refused (429) write changed nothing"
        if read and write:
            note += (f"; during a 2 s webhook delivery another client's read answered {read['status']} in "
                     f"{read['seconds']} s and a write {write['status']} in {write['seconds']} s")
        out.append(("Limits", "; ".join(parts), note, _when(lim)))
    s = results.get("security")
    if s:
        out.append((
            "Secrets and auth",
            (f"{_n(s.get('error_bodies_checked', 0))} error bodies, {_n(s.get('server_log_bytes_checked', 0))} bytes of "
            f"server output (uvicorn trace level), {len(s.get('control_views_checked', []))} control views and the "
            f"journal searched for the 3 tokens and 2 webhook secrets; {s.get('auth_variants_checked', 0)} credential "
            f"variants through `hmac.compare_digest`"),
            (f"no secret found anywhere; every credential compared in constant time, even after a mismatch; "
            f"{s.get('control_routes_refusing_app_credentials', '?')} control routes refuse app credentials (401)"),
            _when(s),
        ))
    return out


def table(results: dict[str, Any]) -> str:
    lines = ["| Area | Held / tried | Nothing lost, nothing wrong | Recorded (UTC) |", "|---|---|---|---|"]
    for area, held, proof, when in rows(results):
        lines.append(f"| {area} | {held} | {proof} | {when} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--print", action="store_true", help="print the table instead of rewriting the doc")
    args = parser.parse_args(argv)
    try:
        results = json.loads(args.results.read_text(encoding="utf-8"))
    except FileNotFoundError:
        print(f"{args.results} not found: run `python -m pytest tests/reliability` first", file=sys.stderr)
        return 1
    rendered = table(results)
    if args.print:
        print(rendered)
        return 0
    doc = args.doc.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        print(f"{args.doc} has no {BEGIN} ... {END} markers", file=sys.stderr)
        return 1
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    args.doc.write_text(f"{head}{BEGIN}\n{rendered}\n{END}{tail}", encoding="utf-8")
    print(f"updated {args.doc} from {args.results}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
