"""The pytest plugin (`promolab.pytest_plugin`), as a user's test suite meets it.

Each test writes a small test suite of its own with `pytester` (no conftest,
nothing but the fixtures `promolab_sim` and `promolab_server`) and runs it:
how the scenario is chosen (marker, option, ini, demo), that the served
simulator answers over real HTTP with the simulator's keys and is stopped
after its test, and that bad settings stop the run with one clear line.
"""

from __future__ import annotations

import re
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import httpcore  # noqa: F401  (see below)
import pytest

# httpx imports httpcore when it first makes a transport. pytester's
# in-process runs drop the modules first imported during a run; a run that
# imported httpcore would leave httpx holding a dropped module, and the next
# run's connection errors would escape httpx's mapping as httpcore's own.
# Imported here, httpcore is imported before any run and stays.
pytest_plugins = ["pytester"]

#: A scenario of one customer and one tier, told apart from the demo by ids.
SMALL = textwrap.dedent("""\
    seed: 5
    project: {id: proj_small}
    customers: [{id: cust_ann, source_id: ann}]
    campaigns:
      - id: camp_small
        name: Small
        tiers:
          - {id: promo_small_5, name: "$5 off", discount: {type: AMOUNT, amount_off: 500}}
    """)
ROOT = Path(__file__).resolve().parents[2]
OTHER = SMALL.replace("proj_small", "proj_other").replace("seed: 5", "seed: 6")


def run(pytester: pytest.Pytester, source: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_user_suite=textwrap.dedent(source))
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)


def test_the_plugin_is_installed_as_a_pytest11_entry_point() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("promolab") == "promolab.pytest_plugin"


def test_promolab_sim_is_the_demo_by_default_and_fresh_per_test(pytester: pytest.Pytester) -> None:
    result = run(pytester, """
        def test_first(promolab_sim):
            assert promolab_sim.state.project.id == "proj_kestrel"
            promolab_sim.state.rewards["lrew_retired"].status = "DELETED"

        def test_second_sees_none_of_the_first(promolab_sim):
            assert promolab_sim.state.rewards["lrew_retired"].status == "INACTIVE"
        """)
    result.assert_outcomes(passed=2)


def test_the_ini_setting_names_the_scenario(pytester: pytest.Pytester) -> None:
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "small.yaml").write_text(SMALL, encoding="utf-8")
    pytester.makeini("[pytest]\npromolab_scenario = scenarios/small.yaml\n")
    result = run(pytester, """
        def test_small(promolab_sim):
            assert promolab_sim.state.project.id == "proj_small"
            assert promolab_sim.seed == 5
        """)
    result.assert_outcomes(passed=1)


def test_the_option_wins_over_the_ini_setting(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", small=SMALL, other=OTHER)
    pytester.makeini("[pytest]\npromolab_scenario = small.yaml\n")
    result = run(pytester, """
        def test_other(promolab_sim):
            assert promolab_sim.state.project.id == "proj_other"
        """, "--promolab-scenario", "other.yaml")
    result.assert_outcomes(passed=1)


def test_the_marker_wins_over_both_relative_to_the_test_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", small=SMALL, other=OTHER)
    result = run(pytester, """
        import pytest

        pytestmark = pytest.mark.promolab_scenario("small.yaml")

        def test_module_marker(promolab_sim):
            assert promolab_sim.state.project.id == "proj_small"

        @pytest.mark.promolab_scenario("other.yaml", seed=42)
        def test_closest_marker_and_seed(promolab_sim):
            assert (promolab_sim.state.project.id, promolab_sim.seed) == ("proj_other", 42)

        @pytest.mark.promolab_scenario({"project": {"id": "proj_inline"}})
        def test_a_document(promolab_sim):
            assert promolab_sim.state.project.id == "proj_inline"
        """, "--promolab-scenario", "other.yaml")
    result.assert_outcomes(passed=3)


def test_promolab_server_answers_like_the_in_process_simulator(pytester: pytest.Pytester) -> None:
    result = run(pytester, """
        import httpx

        ORDER = {"items": [{"product_id": "prod_grinder", "quantity": 1},
                           {"product_id": "prod_beans_ethiopia", "quantity": 3}]}

        def test_served(promolab_server):
            assert promolab_server.base_url.startswith("http://127.0.0.1:")
            assert promolab_server.credentials["app_id"] == "kestrel-app"
            with promolab_server.client() as served:
                answer = served.validate_promotions(customer={"source_id": "alice"}, order=ORDER)
            with promolab_server.sim.client() as in_process:
                expected = in_process.validate_promotions(customer={"source_id": "alice"}, order=ORDER)
            assert answer == expected
            assert [t.discount_amount for t in answer.promotions][:1] == [1000]

        def test_writes_reach_the_served_simulator(promolab_server):
            with promolab_server.client() as served:
                served.delete_reward("lrew_retired")
            assert promolab_server.sim.state.rewards["lrew_retired"].status == "DELETED"

        def test_the_keys_are_checked(promolab_server):
            answer = httpx.get(promolab_server.base_url + "/v2/loyalties/incentives/linc_0a11ce01",
                               headers={"X-App-Id": "kestrel-app", "X-App-Token": "wrong"})
            assert answer.status_code == 401
        """)
    result.assert_outcomes(passed=3)


def test_each_test_gets_its_own_server_stopped_after_it(pytester: pytest.Pytester) -> None:
    result = run(pytester, """
        import httpx
        import pytest

        URLS = []

        def test_one(promolab_server):
            URLS.append(promolab_server.base_url)
            with promolab_server.client() as served:
                served.delete_reward("lrew_retired")

        def test_two(promolab_server):
            assert promolab_server.base_url != URLS[0]
            assert promolab_server.sim.state.rewards["lrew_retired"].status == "INACTIVE"
            with pytest.raises(httpx.ConnectError):
                httpx.get(URLS[0] + "/openapi.json", timeout=2.0)
        """)
    result.assert_outcomes(passed=2)


def test_the_async_client_of_the_served_simulator(pytester: pytest.Pytester) -> None:
    result = run(pytester, """
        import asyncio

        def test_async(promolab_server):
            async def main():
                async with promolab_server.async_client() as served:
                    return await served.get_incentive("linc_0a11ce01")
            assert asyncio.run(main()).name == "50 points for a review"
        """)
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(("setup", "args", "line"), [
    ("", ("--promolab-scenario", "missing.yaml"), "--promolab-scenario: no scenario file *missing.yaml"),
    ("[pytest]\npromolab_scenario = gone.yaml\n", (),
     "*the ini setting promolab_scenario: no scenario file *gone.yaml"),
])
def test_a_missing_scenario_file_stops_the_run(pytester: pytest.Pytester, setup: str, args: tuple[str, ...],
                                               line: str) -> None:
    if setup:
        pytester.makeini(setup)
    result = run(pytester, """
        def test_never_runs(promolab_sim):
            raise AssertionError("ran")
        """, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{line}*"])


@pytest.mark.parametrize(("marker", "line"), [
    ('"nowhere.yaml"', "*@pytest.mark.promolab_scenario: no scenario file *nowhere.yaml"),
    ('"a.yaml", "b.yaml"', "*takes one scenario (a path or a document) and seed=, not 2 arguments"),
    ('"small.yaml", sead=3', "*not 1 arguments and sead"),
    ('"small.yaml", seed="3"', "*seed must be an integer, not '3'"),
    ("42", "*the scenario is a path or a document, not int"),
])
def test_a_bad_marker_fails_its_test_with_one_line(pytester: pytest.Pytester, marker: str, line: str) -> None:
    pytester.makefile(".yaml", small=SMALL)
    result = run(pytester, f"""
        import pytest

        @pytest.mark.promolab_scenario({marker})
        def test_bad(promolab_sim):
            pass

        def test_others_still_run(promolab_sim):
            assert promolab_sim.state.project.id == "proj_kestrel"
        """)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([line])
    assert "Traceback" not in result.stdout.str()


def test_a_bad_scenario_file_names_the_file_and_the_path(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", broken="customers: [{emial: ann@example.com}]\n")
    result = run(pytester, """
        def test_broken(promolab_sim):
            pass
        """, "--promolab-scenario", "broken.yaml")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*broken.yaml: customers[[]0[]].emial (line *, column *): unknown key*"])


def test_the_marker_and_option_are_documented_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--help")
    result.stdout.fnmatch_lines(["*--promolab-scenario=PATH*", "*promolab_scenario (string):*"])
    markers = pytester.runpytest_inprocess("--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.promolab_scenario(scenario, seed=None):*"])


def _py_blocks(page: str) -> list[str]:
    """The ```py blocks of a page: test files as a reader would save them
    (```python blocks are the doctests Sybil runs; these are not Python
    sessions but a test suite's files)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return re.findall(r"^```py\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


@pytest.mark.parametrize(("page", "count"), [("README.md", 1), ("docs/testing.md", 2)])
def test_the_documented_test_files_pass_as_written(pytester: pytest.Pytester, page: str, count: int) -> None:
    blocks = _py_blocks(page)
    assert len(blocks) == count
    for number, block in enumerate(blocks):
        pytester.makepyfile(**{f"test_documented_{number}": block})
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    tests = sum(len(re.findall(r"^def test_", block, flags=re.MULTILINE)) for block in blocks)
    result.assert_outcomes(passed=tests)
