"""Renderers of a loaded run: its computed view, its facts in words, report.md, the chart, the HTML report, run
against run. Read from runfolder/ and analysis/; no pytest (pytest-html's hooks, which place the HTML report's
parts, are plugin/html_hooks.py)."""
