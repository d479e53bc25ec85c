"""A trial without pytest: reset, settings before, driver, settings after, outcome, grade, record."""
