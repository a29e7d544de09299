"""One `promolab serve` per journal file: the journal's lock, against real processes.

- A second `promolab serve --journal` on the file a running server holds
  exits with status 2 and one line on stderr naming the file, before it
  reads, cuts or appends anything: the file is byte-identical, the first
  server keeps answering and journaling, and a restart from the journal
  gives exactly the state the first server answered from.
- The lock goes with the process: after a SIGKILL (no shutdown handler
  runs) and after a normal stop, the next start on the journal works.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relsupport import APP_HEADERS, DEMO, ROOT, Server, ServerFactory
from subprocess_helpers import free_port

pytestmark = [pytest.mark.served, pytest.mark.timeout(180)]


def _event(server: Server, who: str) -> None:
    with server.http() as http:
        r = http.post("/v1/events", headers=APP_HEADERS, json={"event": "review_written",
                                                               "customer": {"source_id": who},
                                                               "metadata": {"rating": 5}})
        assert r.status_code == 200, r.text


def _second_serve(journal: Path, seconds: float = 30.0) -> tuple[int, str]:
    """Run a second `promolab serve` on `journal`: (exit status, stderr).
    One that is still running after `seconds` got in: killed, and the test fails."""
    args = [sys.executable, "-m", "promolab.cli", "serve", "--host", "127.0.0.1", "--port", str(free_port()),
            "--log-level", "info", "--scenario", str(DEMO), "--journal", str(journal)]
    process = subprocess.Popen(args, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        _, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate(timeout=10)
        pytest.fail(f"a second server started on the journal in use:\n{err.decode('utf-8', 'replace')}")
    return process.returncode, err.decode("utf-8", "replace")


def test_a_second_server_on_a_journal_in_use_refuses_to_start_and_changes_nothing(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    journal = tmp_path / "j.jsonl"
    first = server_factory(DEMO, journal=journal)
    _event(first, "alice")
    # a fragment after the last line: a second server that got in would cut
    # it, then write its own lines into the file the first one appends to
    with journal.open("ab") as handle:
        handle.write(b'{"at":"2026-03-06T10:00:00.000Z","op":"track_ev')
    before = journal.read_bytes()

    status, err = _second_serve(journal)
    assert status == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [lines[0]] and lines[0].startswith(f"promolab: journal refused: {journal}: in use: "), err
    assert "Traceback" not in err
    assert journal.read_bytes() == before

    # the first server still owns the journal and keeps writing to it (the
    # planted fragment removed first: it would glue onto the next line)
    journal.write_bytes(before[: before.rindex(b"\n") + 1])
    _event(first, "bob")
    answered = first.state_json()
    first.kill()
    restarted = server_factory(DEMO, journal=journal)
    assert restarted.state_json() == answered
    assert "cut" not in restarted.log_text()


@pytest.mark.parametrize("how", ["SIGKILL", "stop"])
def test_the_lock_goes_with_the_process(server_factory: ServerFactory, tmp_path: Path, how: str) -> None:
    journal = tmp_path / "j.jsonl"
    first = server_factory(DEMO, journal=journal)
    _event(first, "alice")
    answered = first.state_json()
    if how == "SIGKILL":
        first.kill()  # no shutdown handler, no close: only the kernel releases the lock
    else:
        first.stop()  # SIGTERM: uvicorn shuts down, serve closes the journal
    restarted = server_factory(DEMO, journal=journal)
    assert restarted.state_json() == answered
    _event(restarted, "bob")
    assert _second_serve(journal)[0] == 2  # and the restarted one holds it in turn
