"""The `promolab` command line as a person meets it: --version, help with defaults,
the demo scenario as everyone's default, `validate` (text and --json, money with its
currency, bad input = exit 2 and one line), `serve --access-log`, `dashboard`."""

from __future__ import annotations

import argparse
import copy
import importlib.metadata
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from promolab import Simulator, cli, samples
from promolab.cli import DEMO, main
from promolab.display import MISSING, format_money
from subprocess_helpers import free_port, serving, stop, wait_until_answering

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_ORDER = ROOT / "data" / "orders" / "sample_order.json"


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The installed entry point's code path, in a subprocess: real exit codes and streams."""
    return subprocess.run([sys.executable, "-m", "promolab.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, check=False)


def scenario_with(tmp_path: Path, demo: dict[str, Any], **project: Any) -> Path:
    document = copy.deepcopy(demo)
    document["project"].update(project)
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


# -- version, help, defaults ------------------------------------------------------


def test_version() -> None:
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"promolab {importlib.metadata.version('promolab')}"


@pytest.mark.parametrize("command", ["serve", "validate", "sweep", "forecast", "replay", "shadow", "dashboard"])
def test_every_option_has_help(command: str) -> None:
    parser = _subparsers()[command]
    for action in parser._actions:
        if action.option_strings:
            assert action.help, f"{command} {action.option_strings[0]} has no help"


@pytest.mark.parametrize("command, option, shown", [
    ("serve", "--scenario", cli.DEMO_DEFAULT),
    ("serve", "--host", "(default: 127.0.0.1)"),
    ("serve", "--port", "(default: 8000)"),
    ("serve", "--seed", "(default: the scenario's seed, else 0)"),
    ("serve", "--log-level", "(default: info)"),
    ("serve", "--timeout", "(default: 30.0)"),
    ("serve", "--access-log", "access log"),
    ("validate", "--scenario", cli.DEMO_DEFAULT),
    ("validate", "--json", "JSON"),
    ("sweep", "--scenario", cli.DEMO_DEFAULT),
    ("sweep", "--engine", "(default: pandas, dask with --scheduler)"),
    ("sweep", "--at", "(default: the scenario's clock)"),
    ("sweep", "--scheduler", "tcp://"),
    ("forecast", "--scenario", cli.DEMO_DEFAULT),
    ("forecast", "--policy", "(default: best)"),
    ("forecast", "--redemption-rate", "(default: 1.0)"),
    ("forecast", "--freq", "(default: day)"),
    ("forecast", "--out", "(default: print the summary only)"),
    ("replay", "--scenario", cli.DEMO_DEFAULT),
    ("replay", "--events", "JSON Lines"),
    ("replay", "--on-error", "(default: stop)"),
    ("replay", "--receiver", "webhooks.jsonl"),
    ("dashboard", "--port", "(default: 8866)"),
])
def test_help_says_what_an_option_does_and_its_default(command: str, option: str, shown: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert shown in option_help(text, option), text
    assert "(default: None)" not in text and "(default: False)" not in text


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_the_subcommands_are_listed_as_help_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    names = cli.subcommands()
    assert set(names) >= {"serve", "validate", "sweep", "forecast", "replay", "shadow", "dashboard"}
    listed = _help([], capsys).split("positional arguments:")[1]
    assert [listed.index(name) for name in names] == sorted(listed.index(name) for name in names)


@pytest.mark.parametrize("command", list(_subparsers()))
def test_no_option_says_its_default_twice(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A help that says its default in words (`(default: 100/3600)`) gets no second,
    argparse-made one (`(default: (100, 3600.0))`)."""
    text = _help([command], capsys)
    for action in _subparsers()[command]._actions:
        if action.option_strings and action.option_strings[0] != "-h":
            shown = option_help(text, action.option_strings[-1])
            assert shown.count("(default:") <= 1, shown


@pytest.mark.parametrize("command", list(_subparsers()))
def test_help_shows_no_path_of_this_machine(command: str, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The help reads the same from any clone: no absolute default path (which argparse
    would also wrap at a hyphen of it), the same text with the demo and the dashboard
    notebook somewhere else entirely (a CI clone: a hyphen and a space in its path)."""
    here = _help([command], capsys)
    assert str(ROOT) not in here and str(DEMO) not in here
    elsewhere = Path("/tmp/ci-run/a clone-with hyphens/repo")
    monkeypatch.setattr(cli, "DEMO", elsewhere / "data" / "scenarios" / "demo.yaml")
    monkeypatch.setattr(cli, "DASHBOARD", elsewhere / "notebooks" / "06-what-if.ipynb")
    assert _help([command], capsys) == here


def test_the_forecast_policies_offered_are_the_forecasts() -> None:
    from promolab.analysis.forecast import POLICIES

    assert cli.FORECAST_POLICIES == tuple(POLICIES)


#: What a help needs no more than argparse: every one of these takes a second or more to load.
HEAVY = ("pandas", "numpy", "pydantic", "httpx", "uvicorn", "promolab.sim", "promolab.models")


@pytest.mark.parametrize("argv", [[], *([command] for command in _subparsers())], ids=lambda a: a[0] if a else "promolab")
def test_help_loads_nothing_heavy(argv: list[str]) -> None:
    """`promolab [COMMAND] --help` imports no pandas, numpy, pydantic, httpx, uvicorn nor the
    simulator: what makes it answer at once (timed by benchmarks/bench_cli_help.py)."""
    script = ("import sys\nfrom promolab.cli import main\ntry:\n    main(sys.argv[1:] + ['--help'])\n"
              "except SystemExit:\n    pass\n"
              f"print(','.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", f"--help of {argv or 'promolab'} loaded {done.stderr.strip()}"


def test_importing_the_command_line_loads_nothing_heavy() -> None:
    script = f"import sys, promolab.cli\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr


def test_the_package_still_offers_its_names() -> None:
    """`import promolab` loads the public names lazily; each is still there, and is the
    object its module defines."""
    import promolab
    from promolab.client import ApiError, AsyncClient, Client
    from promolab.inprocess import Simulator
    from promolab.sim.scenario import ScenarioError

    assert (promolab.ApiError, promolab.AsyncClient, promolab.Client, promolab.Simulator,
            promolab.ScenarioError) == (ApiError, AsyncClient, Client, Simulator, ScenarioError)
    assert set(promolab.__all__) <= set(dir(promolab))
    with pytest.raises(AttributeError, match="no attribute 'Simulatr'"):
        promolab.Simulatr  # noqa: B018


def option_help(text: str, option: str) -> str:
    """The help of one option in argparse's output (its lines joined, wrapping undone)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line == f"  {option}" or line.startswith((f"  {option} ", f"  {option}, ")):
            entry = [line]
            for more in lines[i + 1:]:
                if not more.startswith("   "):  # the next option (2 spaces) or section
                    break
                entry.append(more)
            return " ".join(" ".join(entry).split())
    raise AssertionError(f"{option} not in the help")


@pytest.mark.parametrize("argv", [
    ["serve"], ["validate"], ["sweep", "--orders", "o.csv", "--out", "r.csv"], ["forecast", "--orders", "o.csv"],
    ["replay", "--events", "e.jsonl", "--out", "t.csv"], ["shadow", "--cassette", "run.jsonl"],
])
def test_every_subcommand_defaults_to_the_demo_scenario(argv: list[str]) -> None:
    assert cli._parser().parse_args(argv).scenario == DEMO


@pytest.mark.parametrize("argv", [
    ["serve", "--port", "99999"], ["serve", "--port", "http"], ["serve", "--log-level", "loud"],
    ["sweep", "--orders", "o.csv", "--out", "r.csv", "--engine", "spark"], ["frobnicate"],
    ["forecast", "--orders", "o.csv", "--redemption-rate", "2"], ["forecast", "--orders", "o.csv", "--policy", "x"],
    ["dashboard", "--port", "-1"],
])
def test_bad_usage_exits_2_with_one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(errors) == 1


# -- validate -----------------------------------------------------------------------


def test_validate_lists_every_tier_whole_with_money_and_free_shipping_as_missing(
        sim: Simulator, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--order", str(SAMPLE_ORDER)]) == 0
    printed = capsys.readouterr().out
    expected = sim.client().validate_promotions(json.loads(SAMPLE_ORDER.read_text(encoding="utf-8")))
    assert len(expected.promotions) >= 3
    assert any(len(t.name) > 40 for t in expected.promotions)  # the name that used to be cut
    lines = {line.split()[0]: line for line in printed.splitlines() if line.startswith("  promo_")}
    assert set(lines) == {t.id for t in expected.promotions}
    for tier in expected.promotions:
        line = lines[tier.id]
        assert tier.name in line
        cells = line.rsplit(None, 2)[-2:]
        discount = MISSING if tier.discount_amount is None else format_money(tier.discount_amount)
        assert cells == [discount, format_money(tier.order.total_amount)], line
    assert lines["promo_free_shipping"].rsplit(None, 2)[-2] == MISSING  # neither 0 nor None


def test_validate_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--order", str(SAMPLE_ORDER), "--customer", "bob", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["currency"] == "USD" and document["counts"]["tiers"] == 17
    tiers = {t["id"]: t for t in document["validation"]["promotions"]}
    assert "discount_amount" not in tiers["promo_free_shipping"]  # no monetary value: absent, as on the wire
    assert isinstance(tiers["promo_welcome_10"]["discount_amount"], int)  # minor units
    assert "promo_vip_10pct" not in tiers  # --customer bob replaced alice (not a VIP)
    assert main(["validate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["validation"] is None


def test_the_scenario_currency_is_shown_and_kept_out_of_the_state(
        tmp_path: Path, _demo_document: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = scenario_with(tmp_path, _demo_document, currency="EUR")
    assert main(["validate", "--scenario", str(path), "--order", str(SAMPLE_ORDER)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  promo_welcome_10"))
    assert line.rsplit(None, 2)[-2:] == ["€10.00", "€149.00"]
    assert main(["validate", "--scenario", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["currency"] == "EUR"
    plain = Simulator.from_scenario(copy.deepcopy(_demo_document)).dump_json()
    assert Simulator.from_scenario(path).dump_json() == plain  # state bytes do not depend on it


@pytest.mark.parametrize("currency", ["eur", "EURO", "E1R", ""])
def test_a_currency_that_is_not_an_iso_code_is_refused(
        currency: str, tmp_path: Path, _demo_document: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = scenario_with(tmp_path, _demo_document, currency=currency)
    assert main(["validate", "--scenario", str(path)]) == 2
    assert "project.currency" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    (b"{not json", "is not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b"\xff\xfe garbage", "not UTF-8"),
    (b'{"items": [{"product_id": "prod_nope", "quantity": 1}]}', "refused 400 invalid_payload"),
    (b'{"order": 5}', "refused 400 invalid_payload"),
])
def test_validate_bad_order_file_exits_2_with_one_line(content: bytes | None, message: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    order = tmp_path / "order.json"
    if content is not None:
        order.write_bytes(content)
    assert main(["validate", "--order", str(order)]) == 2  # an exception would fail the test
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_sample_order_file_is_beside_the_sample_data() -> None:
    document = json.loads(SAMPLE_ORDER.read_text(encoding="utf-8"))
    assert document["customer"] == {"source_id": "alice"} and document["order"]["items"]
    done = run_cli("validate", "--order", str(SAMPLE_ORDER))
    assert done.returncode == 0 and "promo_welcome_10" in done.stdout


# -- serve --access-log ---------------------------------------------------------------


@pytest.mark.served
@pytest.mark.parametrize("flag, logged", [(["--access-log"], True), ([], False)])
def test_serve_access_log(flag: list[str], logged: bool) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/openapi.json"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "promolab.cli", "serve", "--port", str(port), *flag],
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=ROOT,
        )
        try:
            wait_until_answering(process, url, name="promolab serve", output=lambda: "", seconds=60)
            assert httpx.get(f"http://127.0.0.1:{port}/v1/nothing-here", timeout=5).status_code == 404
        finally:
            stop(process)  # uvicorn logs its shutdown after the requests: the log is complete
        log.seek(0)
        text = log.read().decode("utf-8", errors="replace")
    assert "Application startup complete" in text
    assert ('"GET /v1/nothing-here HTTP/1.1" 404' in text) is logged, text


# -- dashboard --------------------------------------------------------------------------


def test_dashboard_runs_voila_on_the_what_if_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[str], Any]] = []

    class FakeVoila:
        def __init__(self, command: list[str], cwd: Any = None, start_new_session: bool = False) -> None:
            assert start_new_session  # its own group: promolab stops it, kernels included
            calls.append((command, cwd))

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(subprocess, "Popen", FakeVoila)
    assert main(["dashboard", "--port", "9911", "--no-browser"]) == 0
    ((command, cwd),) = calls
    notebook = ROOT / "notebooks" / "06-what-if.ipynb"
    assert cli.DASHBOARD == samples.whatif_notebook() == notebook  # in a checkout: the one copy
    assert command[:3] == [sys.executable, "-m", "voila"]
    assert command[3] == str(notebook) and "--port=9911" in command and "--no-browser" in command
    assert Path(cwd) == notebook.parent  # the notebook reads ../data


@pytest.mark.parametrize("problem, message", [("notebook", "notebook not found"), ("voila", "Voila is not installed"),
                                              ("packaged", "the packaged what-if notebook is missing")])
def test_dashboard_problems_exit_2(problem: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    argv = ["dashboard"]
    if problem == "notebook":
        argv += ["--notebook", str(tmp_path / "missing.ipynb")]
    elif problem == "packaged":  # a wheel without the notebook: the other commands still work
        monkeypatch.setattr(cli, "DASHBOARD", None)
    else:
        real = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: pytest.fail("voila must not start"))
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_dashboard_serves_for_real() -> None:
    pytest.importorskip("voila")
    port = free_port()
    started = time.monotonic()
    with serving(
        [sys.executable, "-m", "promolab.cli", "dashboard", "--no-browser", f"--port={port}"],
        # a static asset: answers once Voila listens, starts no kernel
        f"http://127.0.0.1:{port}/voila/static/favicon.ico", name="promolab dashboard", seconds=120,
        interval=0.25, probe_timeout=2.0, ready=lambda status: status < 500, cwd=ROOT, group=True, grace=20.0,
    ):
        assert time.monotonic() - started < 120


def _children(pid: int) -> list[int]:
    """The processes `pid` started (Linux: /proc/PID/task/PID/children)."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _port_is_free(port: int) -> bool:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads a process's children from /proc")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_stopping_the_dashboard_stops_its_voila_server(sig: str) -> None:
    """`kill` or Ctrl-C on `promolab dashboard` (the signal to promolab alone, not to a
    group, as a supervisor sends it): the Voila server it started is gone and its port
    is free again, and promolab reports 128 + the signal."""
    import signal

    pytest.importorskip("voila")
    port = free_port()
    with serving(
        [sys.executable, "-m", "promolab.cli", "dashboard", "--no-browser", f"--port={port}"],
        f"http://127.0.0.1:{port}/voila/static/favicon.ico", name="promolab dashboard", seconds=120,
        interval=0.25, probe_timeout=2.0, ready=lambda status: status < 500, cwd=ROOT, group=True, grace=20.0,
    ) as process:
        (voila,) = _children(process.pid)
        number = getattr(signal, sig)
        process.send_signal(number)
        assert process.wait(timeout=60) == 128 + number
        assert not Path(f"/proc/{voila}").exists()  # stopped and reaped by promolab
        assert _port_is_free(port)


# -- a closed stdout pipe ------------------------------------------------------------------


def _into_a_closed_pipe(*argv: str) -> subprocess.CompletedProcess[str]:
    """`promolab ARGV` with stdout a pipe whose read end is closed before promolab
    starts, so its first write fails every time (with `| head` it depends on who
    is quicker)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "promolab.cli", *argv], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=ROOT, check=False)
    finally:
        os.close(write)


@pytest.mark.parametrize("argv", [
    ["validate"],
    ["validate", "--json"],
    ["validate", "--order", str(SAMPLE_ORDER)],
], ids=["validate", "validate-json", "validate-order"])
def test_a_closed_pipe_ends_quietly_with_status_141(argv: list[str]) -> None:
    """`promolab validate --json | head -1` once head has gone: no traceback, no
    "Exception ignored" at exit, status 141 (128 + SIGPIPE, `cli.EXIT_BROKEN_PIPE`)."""
    done = _into_a_closed_pipe(*argv)
    assert done.stderr == ""
    assert done.returncode == cli.EXIT_BROKEN_PIPE == 141


@pytest.mark.parametrize("argv", [["--help"], ["dashboard", "--help"], ["--version"]])
def test_argparse_output_into_a_closed_pipe_is_quiet_too(argv: list[str]) -> None:
    """argparse writes help and version itself and (Python 3.11) ignores a failed
    write, status 0; whatever it leaves buffered, `main` flushes within its handler."""
    done = _into_a_closed_pipe(*argv)
    assert done.stderr == ""
    assert done.returncode in (0, cli.EXIT_BROKEN_PIPE)


def test_a_shell_pipeline_cut_short_reports_141_without_a_traceback() -> None:
    """The shell's own view, `set -o pipefail`: the reader (`true`) exits without reading,
    long before promolab has imported its modules and written."""
    script = f"set -o pipefail; {shlex.quote(sys.executable)} -m promolab.cli validate --json | true; echo status=$?"
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert done.stdout.strip() == "status=141"
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


def test_an_open_pipe_keeps_the_commands_own_status(tmp_path: Path) -> None:
    done = run_cli("validate", "--order", str(tmp_path / "no.json"))  # stdout: a pipe, read to the end
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_a_broken_stream_that_is_not_a_file_also_ends_with_141(monkeypatch: pytest.MonkeyPatch) -> None:
    """In process (a caller's stream, not a file descriptor): the same status, nothing to redirect."""
    import io

    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Gone())
    assert main(["validate", "--json"]) == cli.EXIT_BROKEN_PIPE
