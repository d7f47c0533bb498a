"""`sdeval ARGS` as real processes forked from one warm one (multiprocessing's fork server, whose
server imports sdeval, pyHanko, pypdf and SQLAlchemy once): each command is its own process that
SIGKILL ends as it would end `sdeval`, but starts in milliseconds, so a test that kills many of them
spends its time in the commands' work rather than in Python's start-up, and a random kill lands in
that work (staging, verifying, storing, indexing) rather than in the imports before it."""

from __future__ import annotations

import multiprocessing
import os
import sys


def _warm() -> None:
    """What an `archive add` imports, loaded once in the fork server (its preload)."""
    import evaluator.archive.admitting  # noqa: F401
    import evaluator.archive.location  # noqa: F401
    import evaluator.cli.archive  # noqa: F401
    import evaluator.cli.commands  # noqa: F401
    from evaluator.verify.many import warm_up

    warm_up()


_warm()  # this module is the server's preload: importing it warms the server


def _run(args: list[str]) -> None:
    """In the forked process: the console entry point with these arguments, its output dropped."""
    from evaluator.cli.commands import main

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    sys.argv = ["sdeval", *args]
    main()


def context():
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


def start(ctx, *args: str):
    """`sdeval ARGS` started in its own process (a multiprocessing.Process: .kill(), .join(), .exitcode)."""
    process = ctx.Process(target=_run, args=([str(a) for a in args],), daemon=False)
    process.start()
    return process
