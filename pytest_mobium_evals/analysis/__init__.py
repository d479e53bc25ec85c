"""Numbers only: intervals, pass^k, the paired statistics, the figures of a setting, a regrade's verdicts. Pure
functions over loaded runs and trials; no pytest, no devices."""
