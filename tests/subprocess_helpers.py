"""Start a server in a subprocess, wait until it answers, always stop it.

Shared by the test packages (importable because pytest puts this folder, the
one holding the root conftest.py, on sys.path): the served-simulator fixture
(conftest.py), the reliability suite's servers (reliability/relsupport.py)
and the Voila dashboard of the browser test each used to carry their own copy
of this loop, with their own bounds and their own way of reporting a server
that died on start.

Every wait here is bounded in count and in time, and a server that exits or
never answers fails the test with its own output, so a broken start reads as
the server's error, not as a timeout somewhere later.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx
import pytest

__all__ = ["free_port", "serving", "stop", "wait_until_answering"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _status_200(status: int) -> bool:
    return status == 200


def wait_until_answering(
    process: subprocess.Popen[bytes],
    url: str,
    *,
    name: str,
    output: Callable[[], str],
    seconds: float = 60.0,
    interval: float = 0.1,
    probe_timeout: float = 1.0,
    ready: Callable[[int], bool] = _status_200,
) -> None:
    """Poll `GET url` until `ready(status)`; fail the test with the server's
    `output()` if the process exits first or `seconds` pass.

    Choose a URL that changes nothing on the server (the served simulator's
    /openapi.json draws no request id; Voila's favicon starts no kernel).
    """
    deadline = time.monotonic() + seconds
    for _ in range(int(seconds / interval) + 1):  # bounded in count and in time
        if process.poll() is not None:
            pytest.fail(f"{name} exited with {process.returncode}:\n{output()}")
        try:
            if ready(httpx.get(url, timeout=probe_timeout).status_code):
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            break
        time.sleep(interval)
    pytest.fail(f"{name} did not answer within {seconds:g} s:\n{output()}")


def stop(process: subprocess.Popen[bytes], *, group: bool = False, grace: float = 10.0) -> None:
    """Terminate (the whole process group with `group`: a server's children,
    e.g. Voila's kernels, stop with it), then kill after `grace` seconds."""

    def send(sig: signal.Signals) -> None:
        try:
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
        except ProcessLookupError:
            pass

    if process.poll() is None:
        send(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        send(signal.SIGKILL)
        process.wait(timeout=10)


def _read(log: IO[bytes]) -> str:
    log.flush()
    log.seek(0)
    return log.read().decode("utf-8", errors="replace")


@contextmanager
def serving(
    args: Sequence[str],
    url: str,
    *,
    name: str,
    seconds: float = 60.0,
    interval: float = 0.1,
    probe_timeout: float = 1.0,
    ready: Callable[[int], bool] = _status_200,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    group: bool = False,
    grace: float = 10.0,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `args`, wait until `url` answers (see `wait_until_answering`),
    yield the process, and stop it (see `stop`) however the block ends.

    Output goes to a temporary file, shown only when the server fails to
    start. With `group` the server gets its own process group.
    """
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            list(args), cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None, start_new_session=group,
        )
        try:
            wait_until_answering(process, url, name=name, output=lambda: _read(log), seconds=seconds,
                                 interval=interval, probe_timeout=probe_timeout, ready=ready)
            yield process
        finally:
            stop(process, group=group, grace=grace)
