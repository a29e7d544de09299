"""A child process that stops with its parent: `promolab dashboard` runs Voila so.

Why a module of its own: stopping a server must stop what it started (a Voila
left listening holds its port and its kernels after `promolab dashboard` was
killed). It imports nothing of promolab (every layer may use it).
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

__all__ = ["STOP_GRACE_S", "run_until_stopped"]

#: How long the child may take to stop (Voila: its kernels with it) after SIGTERM before it is killed.
STOP_GRACE_S = 10.0


class _Stopped(Exception):
    """SIGTERM or SIGINT reached this process: stop what it started."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_until_stopped(command: list[str], cwd: Path) -> int:
    """Run `command` (Voila) until it exits, or until this process gets SIGINT or
    SIGTERM: then stop it, and the kernels it started, before returning 128 + the
    signal (as a shell reports a command the signal ended). Why its own process
    group: Ctrl-C at a terminal signals the whole foreground group, and Voila
    would ask "Shutdown this Voila server (y/[n])?" instead of stopping; here
    this process alone decides, and stops the group it started, kernels included."""

    def stopped(signum: int, _frame: object) -> None:
        raise _Stopped(signum)

    process: subprocess.Popen[bytes] | None = None
    previous = {sig: signal.signal(sig, stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        process = subprocess.Popen(command, cwd=cwd, start_new_session=True)
        return process.wait()
    except _Stopped as stop:
        for sig in previous:  # stopping already: a second Ctrl-C must not cut the clean-up short
            signal.signal(sig, signal.SIG_IGN)
        if process is None:
            return 128 + stop.signum
        _stop_group(process, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            _stop_group(process, signal.SIGKILL)
            process.wait()
        return 128 + stop.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stop_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Signal `process`'s group (its own: `start_new_session`); gone already is fine."""
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass
