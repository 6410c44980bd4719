"""What every face (a subpackage's ``__init__``) shares: names that moved, and ``dir()``.

A face lists its API in ``__all__``; its implementation lives in private modules. A name that
an earlier release exported and that has moved or become internal raises
:class:`~tropattn.errors.MovedError` naming its new home, so old code fails with directions
rather than a bare ``AttributeError``::

    __getattr__, __dir__ = face(__name__, __all__, moved={"slice": "tropattn.slice_model"})

>>> getattr_, dir_ = face("demo", ["a"], moved={"old": "demo.a"})
>>> dir_()
['a']
>>> getattr_("old")
Traceback (most recent call last):
...
tropattn.errors.MovedError: demo.old was removed from the API; use demo.a
"""

from __future__ import annotations

from .errors import MovedError

__all__ = ["face"]


def face(module: str, public, moved=None, extra=()):
    """A face's module-level ``__getattr__`` and ``__dir__`` (PEP 562).

    Parameters
    ----------
    module : str
        The face's module name (``__name__``).
    public : sequence of str
        Its ``__all__``.
    moved : dict, optional
        Old name -> where it lives now (a sentence or a dotted name).
    extra : sequence of str, optional
        Further names ``dir()`` shows (the subpackages of the root package).

    Returns
    -------
    (callable, callable)
        ``__getattr__(name)`` raising :class:`MovedError` for a moved name (and AttributeError
        otherwise), and ``__dir__()`` listing ``public`` and ``extra``.
    """
    moved = dict(moved or {})

    def __getattr__(name):
        if name in moved:
            raise MovedError(f"{module}.{name} was removed from the API; use {moved[name]}")
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(public) | set(extra))

    return __getattr__, __dir__
