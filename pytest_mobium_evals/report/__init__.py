"""Renderers of a loaded run: its computed view, its facts in words, report.md, the chart, run against run. Read
from runfolder/ and analysis/; no pytest."""
