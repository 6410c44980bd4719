"""Shared docstring fragments, filled in once (the pattern of scipy's ``_lib/doccer``).

Sibling functions that take the same parameters describe them once: a module defines the
fragments and decorates its functions with :func:`fill_doc`; a line of a docstring that
holds only ``%(name)s`` is replaced by the fragment ``name``, indented as that line::

    _DOC = {"X": "X : array_like, shape (n, d)\\n    Query points."}

    @fill_doc(**_DOC)
    def f(X):
        \"\"\"...

        Parameters
        ----------
        %(X)s
        \"\"\"

>>> @fill_doc(x="x : float\\n    A number.")
... def double(x):
...     '''Twice x.
...
...     Parameters
...     ----------
...     %(x)s
...     '''
...     return 2 * x
>>> print(double.__doc__.splitlines()[4:6])
['    x : float', '        A number.']
"""

from __future__ import annotations

import re

__all__ = ["fill_doc"]

_SLOT = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.M)


def fill_doc(**fragments):
    """A decorator that replaces each line ``%(name)s`` of a docstring by the fragment ``name``.

    Parameters
    ----------
    **fragments : str
        The fragments; their lines after the first keep their own relative indentation.

    Returns
    -------
    callable
        The decorator (it returns the function or class itself, its ``__doc__`` filled).

    Raises
    ------
    KeyError
        A docstring names a fragment that was not given (a typo in the source, found at import).
    """

    def fill(match):
        indent, name = match.group(1), match.group(2)
        if name not in fragments:
            raise KeyError(f"docstring slot %({name})s has no fragment; known: {sorted(fragments)}")
        return "\n".join(indent + line if line else line for line in fragments[name].strip("\n").split("\n"))

    def decorate(obj):
        if obj.__doc__:
            obj.__doc__ = _SLOT.sub(fill, obj.__doc__)
        return obj

    return decorate
