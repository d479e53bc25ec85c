"""Ghost Bench as a second suite: its JSON tasks, loaded and checked (`loading`, on what every JSON suite shares:
`suites/json_loading` and `suites/eval_check`), turned into our tasks (`adapter`) with derived controls (`controls`),
collected as test modules (`collection`), summarised in Ghost Bench's run shape (`summary`, imported by its own
name: it loads the run folder's reader, which the package's other users need not); `plugin` holds the pytest hooks
the harness registers.

Ghost Bench grades one thing: the eval command's output over ADB against `expect`, `expect_in` or `expect_contains`.
That check becomes the task's outcome; the agent's claim is set against it by our grader like any other suite's.
Adding a task is adding an object; its reference and wrong controls are derived, never written per task.
"""

from ..eval_check import EXPECTATIONS, Check
from ..json_loading import UI
from .adapter import HOME, SUITE, PreconditionError, evaluate, load_tasks, to_task
from .controls import ControlPlan, control_plan, search_words, setting_of
from .loading import GhostBenchError, GhostTask, load_dir, load_file

__all__ = ["EXPECTATIONS", "HOME", "SUITE", "UI", "Check", "ControlPlan", "GhostBenchError",
           "GhostTask", "PreconditionError", "control_plan", "evaluate", "load_dir", "load_file", "load_tasks",
           "search_words", "setting_of", "to_task"]
