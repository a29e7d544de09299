"""Pulling a real project: its objects through the service's read endpoints, as a scenario (docs/pull.md).

    from promolab.pull import pull
    from promolab.shadow import Target

    pulled = pull(Target.from_env(needs=("app",)), Path("ours.yaml"))   # ours.yaml, ours.report.csv
    pulled.unexpressed        # what the project holds that the scenario cannot say
"""

from .errors import PullError
from .history import ORDER_COLUMNS, REDEMPTION_COLUMNS, History, read_history
from .project import Pulled, PullOptions, history_paths, pull, read_project, report_path
from .project_facts import ProjectFacts
from .reader import Limits, Reader, Sent
from .state_file import StateFile, state_path
from .unexpressed import REPORT_COLUMNS, Unexpressed
from .walk import walk

__all__ = [
    "ORDER_COLUMNS",
    "REDEMPTION_COLUMNS",
    "REPORT_COLUMNS",
    "History",
    "Limits",
    "ProjectFacts",
    "PullError",
    "PullOptions",
    "Pulled",
    "Reader",
    "Sent",
    "StateFile",
    "Unexpressed",
    "history_paths",
    "pull",
    "read_history",
    "read_project",
    "report_path",
    "state_path",
    "walk",
]
