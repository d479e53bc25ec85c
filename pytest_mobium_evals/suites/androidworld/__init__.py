"""AndroidWorld as a third suite: its fifteen task classes that need only plain ADB, as JSON task objects in this
project's format (`loading`), turned into our tasks (`adapter`) with controls derived by Ghost Bench's machinery and
collected as its files are (`plugin`).

AndroidWorld grades on the device (a setting's value, the app in front; a composite task scores the mean of its
parts) and counts that score only when the agent said it was done. Here the device's state is the outcome (reached
at score 1.0) and the agent's claim is set against it by our grader, so a false "done" and an honest "cannot" stay
apart, where AndroidWorld scores both 0.
"""

from .adapter import DEVICE_TIME, SHARED_START, SUITE, close_recents, load_tasks, score, to_task
from .loading import APP_PACKAGES, AndroidWorldError, AWTask, load_file, parts_of

__all__ = ["APP_PACKAGES", "DEVICE_TIME", "SHARED_START", "SUITE", "AWTask", "AndroidWorldError", "close_recents",
           "load_file", "load_tasks", "parts_of", "score", "to_task"]
