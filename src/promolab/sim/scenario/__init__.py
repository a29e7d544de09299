"""Scenario files: the documented format (`schema`) and its loader."""

from .issues import ScenarioError
from .loader import LoadedScenario, load_scenario, read_scenario

__all__ = ["LoadedScenario", "ScenarioError", "load_scenario", "read_scenario"]
