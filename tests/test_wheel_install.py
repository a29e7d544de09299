"""A wheel installed outside the checkout finds its own sample data.

The bug this guards against: after `pip install .`, `promolab replay` looked
for the demo scenario at a path computed from the installed module
(`lib/python3.11/data/scenarios/demo.yaml`) and failed. The demo scenario,
the event samples and the sample orders now travel in the wheel
(`promolab/_data/`, read by `promolab.samples`). Likewise `promolab dashboard`
looked for the what-if notebook in the checkout's notebooks/; the wheel now
carries it (`promolab/_notebooks/06-what-if.ipynb`, `samples.whatif_notebook()`).

What the test proves, and how: the wheel is built from this checkout
(`pip wheel --no-deps`), installed with `--no-deps` into a fresh venv created
without system site-packages, and the commands run from a directory outside
the checkout with no PYTHONPATH. promolab's dependencies are borrowed from
the running environment through a `.pth` line naming its site-packages: a
directory named by a `.pth` line is added to the path but its own `.pth`
files are not processed, so the checkout's editable-install hook
(`_editable_impl_promolab.pth`, which points at `src/`) stays inactive, and
the test checks that `promolab` is imported from the fresh venv. Installing
the dependencies from the index instead would prove nothing more about the
data and take minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pandas as pd
import pytest

#: Slow (builds the wheel and installs it in a venv of its own): run once, on the newest Python (`make test-compat` leaves it out).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{command}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(venv, a working directory outside the checkout, environment): promolab from the wheel."""
    base = tmp_path_factory.mktemp("wheel-install")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    wheels = base / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(wheels), str(ROOT)],
        cwd=base, env=env)
    (wheel,) = wheels.glob("promolab-*.whl")

    home = base / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(home)
    python = home / "bin" / "python"
    purelib = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       cwd=base, env=env).stdout.strip())
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet", str(wheel)],
        cwd=base, env=env)
    # The dependencies, borrowed (see the module docstring).
    (purelib / "zz_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = base / "elsewhere"
    work.mkdir()
    return home, work, env


def test_the_installed_package_is_the_wheel_not_the_checkout(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    home, work, env = installed
    probe = (
        "import json, promolab, promolab.samples as s; "
        "print(json.dumps([promolab.__file__, str(s.demo_scenario()), str(s.demo_events()), "
        "str(s.sample_orders()), str(s.sample_orders('csv'))]))"
    )
    package, *data = json.loads(run([str(home / "bin" / "python"), "-c", probe], cwd=work, env=env).stdout)
    assert Path(package).is_relative_to(home), package
    for path in map(Path, data):
        assert path.is_relative_to(home) and "_data" in path.parts and path.is_file(), path
        assert not path.is_relative_to(ROOT)
    # The whole of data/ ships, byte for byte: a file added there is packaged too.
    packaged = Path(package).parent / "_data"
    checkout = ROOT / "data"
    assert sorted(p.relative_to(packaged) for p in packaged.rglob("*") if p.is_file()) == sorted(
        p.relative_to(checkout) for p in checkout.rglob("*") if p.is_file()
    )
    for path in checkout.rglob("*"):
        if path.is_file():
            assert (packaged / path.relative_to(checkout)).read_bytes() == path.read_bytes(), path


def test_replay_defaults_to_the_packaged_demo(installed: tuple[Path, Path, dict[str, str]]) -> None:
    home, work, env = installed
    events = run([str(home / "bin" / "python"), "-c", "from promolab import samples; print(samples.demo_events())"],
                 cwd=work, env=env).stdout.strip()
    done = run([str(home / "bin" / "promolab"), "replay", "--events", events, "--out", "w.csv", "--no-progress"],
               cwd=work, env=env)
    assert "23 lines: 18 applied, 5 refused" in done.stdout, done.stdout
    timeline = pd.read_csv(work / "w.csv")
    assert len(timeline) == 23
    assert timeline["outcome"].value_counts()["ok"] == 18


def test_validate_reads_the_packaged_demo(installed: tuple[Path, Path, dict[str, str]]) -> None:
    home, work, env = installed
    scenario = run([str(home / "bin" / "python"), "-c", "from promolab import samples; print(samples.demo_scenario())"],
                   cwd=work, env=env).stdout.strip()
    done = run([str(home / "bin" / "promolab"), "validate", "--scenario", scenario], cwd=work, env=env)
    assert done.stdout.startswith(f"{scenario}: OK: "), done.stdout
    assert "17 tiers" in done.stdout, done.stdout


def test_the_what_if_notebook_is_packaged_and_runs_from_anywhere(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    home, work, env = installed
    python = str(home / "bin" / "python")
    probe = "import json, promolab.cli as c, promolab.samples as s; print(json.dumps([str(s.whatif_notebook()), str(c.DASHBOARD)]))"
    notebook, default = map(Path, json.loads(run([python, "-c", probe], cwd=work, env=env).stdout))
    assert notebook == default, "the dashboard's default is the packaged notebook"
    assert notebook.is_relative_to(home) and notebook.parts[-2:] == ("_notebooks", "06-what-if.ipynb"), notebook
    assert notebook.read_bytes() == (ROOT / "notebooks" / "06-what-if.ipynb").read_bytes()
    assert sorted(p.name for p in notebook.parent.iterdir()) == ["06-what-if.ipynb"]  # that notebook only
    # Its first code cell loads the scenario and the orders: through promolab.samples, so it runs
    # in the installed package's folder (as Voila runs it), where there is no ../data.
    setup = next(cell for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
                 if cell["cell_type"] == "code")
    script = "".join(setup["source"]) + "\nprint(len(sim.state.tiers), orders['order_id'].nunique())"
    done = run([python, "-c", script], cwd=notebook.parent, env={**env, "MPLBACKEND": "Agg"})
    assert done.stdout.split() == ["17", "12000"], done.stdout


def test_dashboard_help_works_outside_the_checkout(installed: tuple[Path, Path, dict[str, str]]) -> None:
    home, work, env = installed
    done = run([str(home / "bin" / "promolab"), "dashboard", "--help"], cwd=work, env=env)
    notebook = run([str(home / "bin" / "python"), "-c", "from promolab import samples; print(samples.whatif_notebook())"],
                   cwd=work, env=env).stdout.strip()
    assert "--notebook" in done.stdout and not done.stderr, done.stdout
    # its default is the packaged notebook (the test above), named, not shown as a path of this machine
    assert "(default: the bundled what-if notebook)" in " ".join(done.stdout.split()), done.stdout
    assert notebook not in "".join(done.stdout.split()), done.stdout
