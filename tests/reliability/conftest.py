"""Fixtures of the reliability suite (helpers live in relsupport.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from relsupport import DEMO, SUMMARY_LINES, Server, ServerFactory


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[ServerFactory]:
    factory = ServerFactory(tmp_path / "logs")
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture(scope="module")
def module_server_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerFactory]:
    factory = ServerFactory(tmp_path_factory.mktemp("serve-logs"))
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture(scope="module")
def demo_server(module_server_factory: ServerFactory) -> Server:
    """The demo scenario served once per module (read-mostly tests)."""
    return module_server_factory(DEMO)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if SUMMARY_LINES:
        terminalreporter.section("reliability figures")
        for line in SUMMARY_LINES:
            terminalreporter.write_line(line.strip())
