"""promolab's pytest plugin: a simulator, or a served one, as a fixture.

Installed with promolab (the `pytest11` entry point in pyproject.toml), so a
test suite that has promolab and pytest has these fixtures without a
conftest (docs/testing.md):

- `promolab_sim`: a fresh `promolab.Simulator` of the chosen scenario, one
  per test;
- `promolab_server`: that simulator served over real HTTP on a free port of
  127.0.0.1 for the test (`promolab.inprocess.Served`: `base_url`,
  `credentials`, `client()`, `async_client()`, and `sim` itself), stopped
  after it.

The scenario is, first found: the test's `promolab_scenario` marker
(`@pytest.mark.promolab_scenario("scenario.yaml", seed=7)`, a path relative
to the test's file, or a scenario document such as `with_changes` returns),
the `--promolab-scenario PATH` option (relative to where pytest runs), the
`promolab_scenario` ini setting (relative to the rootdir), and else the demo
scenario that ships with promolab. A file that is not there stops the run
before any test, naming the setting that named it.

Why a plugin: every suite testing against the simulator wrote the same
uvicorn-in-a-thread lines and its own scenario fixture; a fixture is the
form pytest users look for, and the plugin keeps one tested copy of it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import samples

if TYPE_CHECKING:  # imported by the fixtures: pytest loads this plugin in every session of the venv
    from .inprocess import Served, Simulator

__all__ = ["promolab_server", "promolab_sim"]

_OPTION = "--promolab-scenario"
_INI = "promolab_scenario"
_MARKER = "promolab_scenario"


@dataclass(frozen=True, slots=True)
class _Choice:
    """The scenario of one test, and its seed (None: the scenario's own)."""

    source: Path | Mapping[str, Any]
    seed: int | None = None


#: The run's scenario (`_configured`), chosen once when pytest configures the run.
_RUN_CHOICE = pytest.StashKey[_Choice]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("promolab", "promolab simulator fixtures")
    group.addoption(_OPTION, dest="promolab_scenario", default=None, metavar="PATH",
                    help="scenario file of the promolab_sim and promolab_server fixtures "
                         "(default: the ini setting promolab_scenario, else the demo scenario)")
    parser.addini(_INI, "scenario file of the promolab_sim and promolab_server fixtures, "
                        "relative to the rootdir (default: the demo scenario)", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{_MARKER}(scenario, seed=None): the scenario (a path relative to the test's file, "
                   "or a document) and seed of this test's promolab_sim and promolab_server")
    config.stash[_RUN_CHOICE] = _configured(config)  # a missing file stops the run here, before any test


def _configured(config: pytest.Config) -> _Choice:
    """The run's scenario: the option, the ini setting, or the demo."""
    given = config.getoption("promolab_scenario")
    if given:
        return _existing(config.invocation_params.dir / given, _OPTION)
    ini = str(config.getini(_INI) or "")
    if ini:
        return _existing(config.rootpath / ini, f"the ini setting {_INI}")
    return _Choice(samples.demo_scenario())


def _existing(path: Path, by: str) -> _Choice:
    if not path.is_file():
        raise pytest.UsageError(f"{by}: no scenario file {path}")
    return _Choice(path)


def _chosen(request: pytest.FixtureRequest) -> _Choice:
    marker = request.node.get_closest_marker(_MARKER)
    if marker is None:
        return request.config.stash[_RUN_CHOICE]
    by = f"@pytest.mark.{_MARKER}"
    unknown = sorted(set(marker.kwargs) - {"seed"})
    if len(marker.args) != 1 or unknown:
        pytest.fail(f"{by} takes one scenario (a path or a document) and seed=, "
                    f"not {len(marker.args)} arguments{' and ' + ', '.join(unknown) if unknown else ''}",
                    pytrace=False)
    scenario, seed = marker.args[0], marker.kwargs.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        pytest.fail(f"{by}: seed must be an integer, not {seed!r}", pytrace=False)
    if isinstance(scenario, Mapping):
        return _Choice(scenario, seed)
    if not isinstance(scenario, str | Path):
        pytest.fail(f"{by}: the scenario is a path or a document, not {type(scenario).__name__}", pytrace=False)
    path = Path(request.path).parent / scenario
    if not path.is_file():
        pytest.fail(f"{by}: no scenario file {path}", pytrace=False)
    return _Choice(path, seed)


@pytest.fixture
def promolab_sim(request: pytest.FixtureRequest) -> Simulator:
    """A fresh simulator of the chosen scenario (module docstring), one per test."""
    choice = _chosen(request)
    from .inprocess import Simulator

    return Simulator.from_scenario(choice.source, seed=choice.seed)


@pytest.fixture
def promolab_server(promolab_sim: Simulator) -> Iterator[Served]:
    """`promolab_sim` served over HTTP on a free port of 127.0.0.1 during the test."""
    with promolab_sim.served() as served:
        yield served
