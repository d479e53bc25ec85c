"""`mobium-evals plan`: what held-out tasks and repeats decide with the exact paired test, from the figures given
or an earlier run's (analysis/planning.py)."""

from __future__ import annotations

from pytest_mobium_evals.analysis.planning import held_out_shape, observed_discordance, plan_lines
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.runfolder.reading import load_run


def add_arguments(parser) -> None:
    parser.add_argument("--tasks", type=int, help="how many held-out tasks will judge the variant")
    parser.add_argument("--repeats", type=int, help="repeats a task and variant")
    parser.add_argument("--discordance", type=float, help="the share of paired trials whose outcomes differ")
    parser.add_argument("--from", dest="from_run", metavar="RUN", help="an earlier run: its discordance, and "
                        "(unless given) its held-out task count and its repeats")
    parser.add_argument("--difference", type=float, help="a difference in pass rate to decide (0.1 = 10 points): "
                        "the chance this run calls it clear, and the smallest held-out sets that would")
    parser.add_argument("--looks", type=int, metavar="N", help="as the hillclimb's held-out test: a look after "
                        "every --repeats repeats, at most N; its power, its trials on average, and the smallest "
                        "held-out sets for it")


def run(args) -> int:
    tasks, repeats, discordance = args.tasks, args.repeats, args.discordance
    if args.from_run:
        earlier = load_run(args.from_run, require_complete=False)
        held, ran = held_out_shape(earlier)
        if discordance is None:
            discordance = observed_discordance(earlier)
            if discordance is None:
                raise UsageError(f"{args.from_run}: no paired trials (needs variants or --repeats of 2 or more)")
            print(f"discordance in {args.from_run}: {100 * discordance:.1f}% of paired trials")
        if tasks is None:
            if not held:
                raise UsageError(f"{args.from_run}: no held-out trials; give --tasks")
            tasks = held
        repeats = repeats or ran or None
    if discordance is None or (tasks is None and args.difference is None):
        raise UsageError("give --tasks and --discordance, or --from RUN")
    if discordance == 0:
        raise UsageError("a discordance of 0: no trial pair differed, so no difference is measurable; state a rate")
    try:
        if args.looks is not None and args.looks < 1:
            raise ValueError(f"--looks {args.looks}: must be at least 1")
        for line in plan_lines(tasks, repeats or 1, discordance, args.difference, args.looks):
            print(line)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return 0
