"""Values and rules, with no pytest and no I/O: tasks, verdicts, what one pass rate is about (`setting`: whether a
driver is a control, answered once), answers, grading, the dev/held-out split, a trial's record, a transcript's events
read as steps (`transcript`), and the one error hierarchy (`errors`).
"""
