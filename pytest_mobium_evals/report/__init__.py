"""Renderers of a loaded run: its computed view, report.md, the chart. Read from runfolder/ and analysis/; no
pytest."""
