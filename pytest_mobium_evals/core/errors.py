"""Every error the harness raises on purpose, under one root, each said in one line that names what and where.

Which one to raise decides who is charged: an `InfraError` is never the agent's fault (the trial is recorded as
infra_error and may be rerun); a `UsageError` is the person's input (one line, exit status 2, never a traceback);
a `RecordError` is a run folder that cannot be read, resumed or written; a `TaskDefinitionError` is a task declared
wrongly (its file becomes one error item, the other files' tasks run). A new error is one class here, under the
kind it is."""

from __future__ import annotations


class MobiumEvalsError(Exception):
    """The root: anything the harness raises on purpose."""


class UsageError(MobiumEvalsError):
    """A user-facing error of a command: printed as one line, exit status 2, never a traceback."""


class InfraError(MobiumEvalsError):
    """The tool server could not be started, died, or stopped answering; the device or a model API failed: not the
    agent's fault."""


class DeviceError(InfraError):
    """The device did not answer, or answered something the harness cannot use: an infrastructure error."""


class DeviceUnavailable(MobiumEvalsError):
    """The asked-for device cannot be used; the message is the whole story (one line a device)."""


class RecordError(MobiumEvalsError):
    """A run folder that cannot be resumed or written: one line naming the file."""


class RecordInvalid(MobiumEvalsError, ValueError):
    """A record that does not fit the schema, said in one line (without the file: the caller names it)."""


class RunFolderWriteError(MobiumEvalsError):
    """The run folder refused a write (a full disk, a read-only folder): the run cannot go on. One line."""


class TaskDefinitionError(MobiumEvalsError, ValueError):
    """A task declared wrongly, in one line naming the file and the task. Nothing here knows pytest: its collection
    makes the file one error item with that line (plugin/broken_tasks.py), and the other files' tasks run."""
