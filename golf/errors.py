"""The one exception type for bad user input.

Everything a person can fix (a malformed file, an impossible parameter, a missing edge of a
symmetric graph) raises :class:`GolfError` with a message that names the file, the line, the
value and what was expected. The command line prints that message on one line and exits
non-zero; it never shows a traceback for such errors.
"""


class GolfError(Exception):
    """A problem with the user's input that the user can act on."""


class AgreedError(GolfError):
    """A GolfError that every MPI rank raised together (after a collective check): one rank
    prints it and every rank exits cleanly."""


class Interrupted(Exception):
    """SIGINT/SIGTERM stopped a run after it wrote a checkpoint; ``code`` is the exit status
    (128 + the signal)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code
