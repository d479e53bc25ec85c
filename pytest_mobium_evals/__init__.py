"""pytest-mobium-evals: does an agent driving a phone app through Mobium's MCP tools get the job done,
and does it tell the truth about it?"""

__version__ = "0.1.0"
