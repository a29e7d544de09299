"""Scenario files: the documented format (`schema`), its loader, and changed copies."""

from .changes import ChangePath, with_changes
from .issues import ScenarioError
from .loader import LoadedScenario, load_scenario, read_scenario

__all__ = ["ChangePath", "LoadedScenario", "ScenarioError", "load_scenario", "read_scenario", "with_changes"]
