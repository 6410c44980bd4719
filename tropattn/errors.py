"""The tropattn exception family.

Every error tropattn raises on purpose is a :class:`TropattnError`, so callers can
catch the whole family with one ``except``.  Bad input is an
:class:`InvalidInputError` (also a :class:`ValueError`); a configuration whose
answer is not well defined (a tie, a quadratic wall) is a
:class:`DegenerateInputError`.

>>> from tropattn.errors import InvalidInputError, TropattnError
>>> issubclass(InvalidInputError, TropattnError) and issubclass(InvalidInputError, ValueError)
True
"""

__all__ = [
    "TropattnError",
    "InvalidInputError",
    "DegenerateInputError",
    "TieError",
    "QuadraticWallError",
    "ModelFileError",
    "Interrupted",
    "InternalError",
    "MissingDependencyError",
    "MovedError",
]


class TropattnError(Exception):
    """Base class of every error raised by tropattn on purpose."""


class InvalidInputError(TropattnError, ValueError):
    """An argument is malformed: NaN, wrong shape, not a number, empty, ...

    The message says what was wrong and how to fix it.
    """


class DegenerateInputError(TropattnError):
    """The input is well formed but the question has no unique answer here."""


class TieError(DegenerateInputError):
    """Two or more scores tie at a point where a unique argmax was asked for.

    ``labels`` holds the indices that tie (for one head) so callers can report them.
    """

    def __init__(self, message, labels=()):
        super().__init__(message)
        self.labels = tuple(labels)

    def __reduce__(self):  # errors cross process boundaries (tropattn.backends) intact
        return type(self), (str(self), self.labels), self.__dict__


class QuadraticWallError(DegenerateInputError):
    """The query attends to itself: its score is quadratic and walls are quadrics."""


class ModelFileError(InvalidInputError):
    """A model or data file is malformed; ``path`` names the JSON path of the problem."""

    def __init__(self, message, path=""):
        super().__init__(f"{path}: {message}" if path else message)
        self.message, self.path = message, path

    def __reduce__(self):
        return type(self), (self.message, self.path), self.__dict__


class Interrupted(TropattnError):
    """A long computation was interrupted (Ctrl-C); ``partial`` holds what was found."""

    def __init__(self, message, partial=None):
        super().__init__(message)
        self.partial = partial

    def __reduce__(self):
        return type(self), (str(self), self.partial), self.__dict__


class InternalError(TropattnError):
    """A "cannot happen" path was reached: a bug in tropattn, never bad input.

    The message says what went wrong; please report it with the input that caused it.
    """


class MissingDependencyError(TropattnError, ImportError):
    """An optional package (torch, dask, safetensors, plotly, pyarrow) is needed but not installed.

    The message names the package and the ``pip install`` command that adds it.
    """


class MovedError(TropattnError, AttributeError):
    """A public name of an earlier release has moved: the message names its new home.

    >>> import tropattn
    >>> tropattn.slice                                  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.MovedError: tropattn.slice was removed ... tropattn.slice_model ...
    """
