"""The evaluation's task suites, as packages: `tasks.mobiumapp_tasks` (MobiumApp's tasks, one file each),
`tasks.t25` (its task file beside the test files it grades), and the JSON suites `ghost_bench/` and
`androidworld/` (data, read by their loaders). Being packages, the task files import what they share relatively
and are imported by one name everywhere: `pytest` from the repository root (its rootdir-based module names) and
the commands that read a stored run (`mobium-evals report --regrade`, compare, judge) alike."""
