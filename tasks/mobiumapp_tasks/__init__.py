"""MobiumApp's tasks (the suite `mobiumapp`, `-m mobiumapp`): one file per task, `test_tNN_<slug>.py`, with what
they share in `suite.py` (the app, its demo account, `@mobiumapp`, the reads and script steps) and the hard tier's
helpers in `hard.py`. Named apart from the virtual device's app (`pytest_mobium_evals.sim.apps.mobiumapp`) and from
the suite's marker, which both keep the name `mobiumapp`."""
