"""The README's first command, `make lab`, run for real: it must start JupyterLab on the
notebooks as root or not, with no display, and answer on /lab.

The command runs exactly as the README writes it (`make lab`); only the environment
varies: no DISPLAY (a headless machine), a free LAB_PORT (so the test cannot collide
with a lab someone already runs), and the VENV/PYTHON of the interpreter running this
test, so that it reuses this venv instead of building another one. As root, the same
command is also run as an unprivileged user (the other half of "as root or not").
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)
#: How long JupyterLab may take to answer (its first start builds caches).
START_TIMEOUT_S = 120
#: The line Jupyter prints with the address to open, token included.
URL = re.compile(r"(http://(?:127\.0\.0\.1|localhost):(\d+)/lab\?token=[0-9a-f]+)")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.served,
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make"),
    pytest.mark.skipif(
        not (VENV / "bin" / "jupyter").exists(), reason="needs the lab extra in this venv"
    ),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stamp_is_current() -> bool:
    """`make lab` would reinstall the venv if its stamp were missing or older than
    pyproject.toml or constraints.txt; that is `make`'s job, not this test's, so skip
    rather than wait."""
    stamp = VENV / f".installed-{sys.version_info[0]}.{sys.version_info[1]}"
    newest = max((ROOT / name).stat().st_mtime for name in ("pyproject.toml", "constraints.txt"))
    return stamp.exists() and stamp.stat().st_mtime >= newest


def for_make(path: str | Path) -> str:
    """`path` as make can take it: relative to the checkout (make runs there), since
    make splits a variable that names a target at every space, and a clone may lie in
    a folder whose name holds one (.ci/run clones into such a folder)."""
    return os.path.relpath(path, ROOT)


def as_user(uid: int) -> list[str]:
    """A command prefix that drops to `uid` (root only; util-linux's setpriv)."""
    if uid == os.geteuid():
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def users() -> Iterator[int]:
    yield os.geteuid()
    if os.geteuid() == 0 and shutil.which("setpriv"):
        yield 65534  # nobody


@pytest.mark.parametrize("uid", list(users()), ids=lambda uid: "root" if uid == 0 else f"uid{uid}")
def test_make_lab_starts_headless_and_answers(uid: int, tmp_path: Path) -> None:
    if not stamp_is_current():
        pytest.skip("the venv's install stamp is older than pyproject.toml; run `make venv`")
    if uid != os.geteuid():
        # An unprivileged user must be able to read the checkout and the venv.
        runs = subprocess.run(
            # through a shell, as make runs it (exec from setpriv itself can differ)
            [*as_user(uid), "sh", "-c", f"'{sys.executable}' -c 'import promolab'"],
            cwd="/",
            capture_output=True,
            check=False,
        )
        if runs.returncode:
            pytest.skip(f"uid {uid} cannot run this venv's interpreter (under a private home?)")
    home = tmp_path / "home"
    home.mkdir()
    if os.geteuid() == 0:
        os.chown(home, uid, uid)
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DISPLAY", "WAYLAND_DISPLAY", "JUPYTER_TOKEN", "MAKEFLAGS", "MAKELEVEL"}
    }
    env.update(
        HOME=str(home),
        LAB_PORT=str(port),
        VENV=for_make(VENV),
        PYTHON=for_make(sys.executable),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
    )
    process = subprocess.Popen(
        [*as_user(uid), "make", "lab"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    try:
        url, answered_port = None, None
        deadline = time.monotonic() + START_TIMEOUT_S
        assert process.stdout is not None
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break  # exited
            output.append(line)
            found = URL.search(line)
            if found:
                url, answered_port = found.group(1), int(found.group(2))
        log = "".join(output)[-4000:]
        assert url is not None, f"no lab address printed; make exited {process.poll()}:\n{log}"
        assert "Warning" not in "".join(output), log  # none of our making (the Makefile's lab target)
        assert answered_port == port, log
        answer = httpx.get(url, timeout=30)
        assert answer.status_code == 200, log
        assert "JupyterLab" in answer.text
        tree = httpx.get(
            f"http://127.0.0.1:{port}/api/contents", params={"token": url.split("token=")[1]}
        )
        names = {item["name"] for item in tree.json()["content"]}
        assert "01-quickstart.ipynb" in names  # the lab opened on notebooks/
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
