"""Values and rules, with no pytest and no I/O: tasks, verdicts, answers, grading, the dev/held-out split, a trial's
record, and the one error hierarchy (`errors`).
"""
