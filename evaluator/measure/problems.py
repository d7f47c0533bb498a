"""The one exception of `sdeval measure` that ends it before or while measuring: one line naming
the file, URL or flag, exit 2. Its own module, so that the capture and the credentials both raise it
without importing each other."""


class MeasureProblem(Exception):
    """measure cannot run: one line naming the file, URL or flag (exit 2)."""
