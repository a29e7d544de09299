"""Bad input to `promolab shadow`: one line on stderr, exit status 2, never a
traceback, and nothing sent to any target."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from promolab.cli import main
from promolab.client._requests import ApiKeys
from promolab.shadow import FORMAT, Target, WritesRefused, shadow

ROOT = Path(__file__).resolve().parents[2]
DAY = str(ROOT / "data" / "events" / "demo_day.jsonl")


def fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["shadow", *argv, "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.startswith("promolab shadow: ")
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    return captured.err


@pytest.mark.usefixtures("no_target_env")
def test_credentials_come_from_the_environment_only(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(["--script", DAY, "--allow-writes"], capsys)
    for name in ("PROMOLAB_BASE_URL", "PROMOLAB_APP_ID", "PROMOLAB_APP_TOKEN", "PROMOLAB_ACCESS_TOKEN",
                 "PROMOLAB_MANAGEMENT_ID", "PROMOLAB_MANAGEMENT_TOKEN"):
        assert name in err
    err = fails(["--script", DAY, "--target", "http://127.0.0.1:9", "--allow-writes"], capsys)
    assert "PROMOLAB_BASE_URL" not in err and "PROMOLAB_APP_ID" in err
    with pytest.raises(SystemExit):
        main(["shadow", "--help"])
    options = [word for word in capsys.readouterr().out.split() if word.startswith("--")]
    assert "--target" in options and not [o for o in options if "token" in o or "key" in o or "secret" in o]


def test_a_script_needs_only_the_credentials_of_its_calls(monkeypatch: pytest.MonkeyPatch, no_target_env: None) -> None:
    monkeypatch.setenv("PROMOLAB_APP_ID", "a")
    monkeypatch.setenv("PROMOLAB_APP_TOKEN", "s3cr3t")
    target = Target.from_env("http://example.invalid", needs={"app"})
    assert "s3cr3t" not in repr(target) and repr(target) == "Target('http://example.invalid', drive_clock=False)"


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    (b"\xff\xfe not utf-8\n", "cannot read the script"),
    (b'{"op": "advance", "args": {"seconds": 1}}\n{"op": "teleport"}\n', "script line 2: unknown operation 'teleport'"),
    (b'{"op": "reset"}\n', "simulator's own control operations"),
])
def test_an_unusable_script(content: bytes | None, message: str, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str], no_target_env: None) -> None:
    script = tmp_path / "script.jsonl"
    if content is not None:
        script.write_bytes(content)
    assert message in fails(["--script", str(script), "--target", "http://127.0.0.1:9"], capsys)


@pytest.mark.parametrize("lines, message", [
    (None, "no such file"),
    ([], "empty file"),
    (["{}"], "not a shadow cassette"),
    ([json.dumps({"cassette": FORMAT}), "{not json"], "cassette line 2: not valid JSON"),
    ([json.dumps({"cassette": FORMAT}), json.dumps({"line": 1, "op": "validate"})], "cassette line 2: missing args, real, sim"),
    ([json.dumps({"cassette": FORMAT}), json.dumps({"line": 1, "op": "validate", "args": {}, "real": {"status": "200"},
                                                    "sim": {}})], "real.status must be an integer"),
])
def test_an_unreadable_cassette(lines: list[str] | None, message: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    cassette = tmp_path / "run.jsonl"
    if lines is not None:
        cassette.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    assert message in fails(["--cassette", str(cassette)], capsys)


@pytest.mark.parametrize("argv, message", [
    ([], "give --script"),
    (["--cassette", "run.jsonl", "--unmask", "voucher.code"], "names no mask"),
    (["--cassette", "run.jsonl", "--resume"], "go with --script"),
    (["--cassette", "run.jsonl", "--out", "d.txt"], "--out must end in .csv or .parquet"),
    (["--script", DAY, "--resume"], "--resume needs the --cassette"),
])
def test_wrong_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str], no_target_env: None) -> None:
    assert message in fails(argv, capsys)


def test_a_pace_is_calls_per_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["shadow", "--cassette", "run.jsonl", "--pace", "fast"])
    assert exit_.value.code == 2 and "CALLS/SECONDS" in capsys.readouterr().err


def test_writes_are_refused_before_anything_is_sent(demo_path: Path) -> None:
    sent: list[httpx.Request] = []
    target = Target("http://real.example", ApiKeys("a", "t", "b", "m", "mt"),
                    transport=httpx.MockTransport(lambda request: sent.append(request) or httpx.Response(500)))
    with pytest.raises(WritesRefused) as refused:
        shadow(DAY, target=target, scenario=demo_path, progress=False)
    assert sent == []
    lines = refused.value.lines
    assert (2, "publish") in lines and (9, "purchase_reward") in lines and (16, "delete_webhook") in lines
    assert not [line for line, op in lines if op == "validate"]  # a validation reads
    assert "--allow-writes" in str(refused.value)
