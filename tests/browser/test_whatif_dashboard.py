"""The what-if notebook as a Voila dashboard, driven in headless Chromium.

Serves notebooks/06-what-if.ipynb with Voila on a free 127.0.0.1 port, opens it
with Playwright's Python package on Debian's /usr/bin/chromium (no browser
download), changes widgets (the effect dropdown, then the discount slider by
keyboard), and checks that the tier table, the order table and the chart all
update. Screenshots go to test-output/: whatif-dashboard-before.png (as
loaded), whatif-dashboard.png (after the changes), whatif-dashboard-page.png.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from subprocess_helpers import free_port, serving

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "06-what-if.ipynb"
CHROMIUM = Path("/usr/bin/chromium")
OUTPUT = ROOT / "test-output"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium"),
]


@pytest.fixture(scope="module")
def voila_url() -> Iterator[str]:
    """Voila serving the notebook; stopped (with its kernels) in teardown."""
    pytest.importorskip("voila")
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with serving(
        [sys.executable, "-m", "voila", str(NOTEBOOK), "--no-browser", f"--port={port}",
         "--Voila.ip=127.0.0.1", "--show_tracebacks=True"],
        # a HEAD-like probe of a static asset: GET / would start a kernel
        f"{url}voila/static/favicon.ico", name="voila", seconds=120, interval=0.25, probe_timeout=2.0,
        ready=lambda status: status < 500, cwd=NOTEBOOK.parent,
        env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
        group=True, grace=20.0,  # its own process group: the kernels stop with it
    ):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def _expected_after_cost(effect: str, value_cents: int) -> str:
    """The `after` campaign cost the dashboard must show, from the controller itself."""
    from promolab import Simulator
    from promolab.widgets import WhatIfController, tier_display

    sim = Simulator.from_scenario(ROOT / "data" / "scenarios" / "demo.yaml")
    controller = WhatIfController(sim, pd.read_parquet(ROOT / "data" / "orders" / "sample_orders.parquet"))
    result = controller.update(effect=effect, value=value_cents)
    return str(tier_display(result).loc["campaign cost", "after"])


def _wait_for_change(read: object, old: object, timeout: float = 60.0) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = read()  # type: ignore[operator]
        if now != old:
            return now
        time.sleep(0.2)
    raise AssertionError(f"no change within {timeout} s (still {old!r:.200})")


def test_whatif_dashboard_updates_table_and_chart(voila_url: str, browser: object) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1500})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(voila_url, timeout=180_000)
        tier_table = page.locator(".promolab-tier-table")
        order_table = page.locator(".promolab-order-table")
        chart = page.locator("img.promolab-chart")
        status = page.locator(".promolab-status")
        tier_table.wait_for(timeout=180_000)
        chart.wait_for(timeout=60_000)

        # the initial state: the welcome tier as the scenario defines it, Alice's cart
        assert "promo_welcome_10: before vs after" in tier_table.inner_text()
        assert "$104,950.00" in tier_table.inner_text()
        assert "promo_welcome_10 (what-if)" in order_table.inner_text()
        assert "APPLY_TO_ORDER" in status.inner_text()
        page.locator(".promolab-whatif").screenshot(path=str(OUTPUT / "whatif-dashboard-before.png"))
        before_table, before_chart = tier_table.inner_text(), chart.screenshot()
        before_src = chart.get_attribute("src")

        # 1. the effect dropdown: $10 off every item instead of the order
        page.locator(".promolab-effect select").select_option("APPLY_TO_ITEMS")
        after_table = _wait_for_change(tier_table.inner_text, before_table)
        expected = _expected_after_cost("APPLY_TO_ITEMS", 1000)
        _wait_for_change(lambda: expected in tier_table.inner_text(), False)
        assert "APPLY_TO_ITEMS" in status.inner_text()
        _wait_for_change(lambda: chart.get_attribute("src"), before_src)
        after_chart = _wait_for_change(chart.screenshot, before_chart)
        assert after_chart != before_chart
        assert "$104,950.00" in str(after_table)  # `before` column unchanged

        # 2. the discount slider, by keyboard: one step right = +$0.50
        handle = page.locator(".promolab-value .noUi-handle")
        handle.focus()
        handle.press("ArrowRight")
        _wait_for_change(lambda: "$10.50 off" in status.inner_text(), False)
        expected = _expected_after_cost("APPLY_TO_ITEMS", 1050)
        _wait_for_change(lambda: expected in tier_table.inner_text(), False)
        _wait_for_change(chart.screenshot, after_chart)

        page.locator(".promolab-whatif").screenshot(path=str(OUTPUT / "whatif-dashboard.png"))
        page.screenshot(path=str(OUTPUT / "whatif-dashboard-page.png"), full_page=True)
        assert not errors, errors
    finally:
        page.close()
