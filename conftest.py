"""Root conftest: what every pytest run in this repository shares.

The plugin itself is loaded through its pytest11 entry point (an installed package), not from here, so that
`pytest tasks` in this checkout runs exactly what a user's installation runs. The plugin's own tests drive pytest
in pytest with the `pytester` fixture, enabled here once for the whole tree."""

pytest_plugins = ["pytester"]
