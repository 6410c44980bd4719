"""The one lazy-import helper: heavy and optional modules are imported on first use.

Every module of tropattn that needs sympy, a scipy submodule, matplotlib, torch, dask,
safetensors or mpmath names it once at its top::

    spatial = lazy_import("scipy.spatial")
    torch = lazy_import("torch", extra="torch")

and uses ``spatial.ConvexHull`` where it needs it.  Nothing is imported until an
attribute is read, so ``import tropattn`` and a command such as ``tropattn regions`` load
only what they use (the pattern of ``networkx.lazy_imports``, without touching
``sys.modules`` before the first use).  An optional extra that is not installed raises
:class:`~tropattn.errors.MissingDependencyError` at that first use, with the ``pip``
command that installs it; the command line prints it as one line and exits 2.

>>> math = lazy_import("math")
>>> math.floor(2.5)                        # imported here, on first use
2
>>> missing = lazy_import("no_such_module_here", extra="demo")
>>> missing.anything                       # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tropattn.errors.MissingDependencyError: ... needs the optional package 'no_such_module_here'...
"""

from __future__ import annotations

import importlib
import importlib.util
import types

from .errors import MissingDependencyError

__all__ = ["lazy_import", "is_available"]

#: The extra of setup.cfg that installs each optional top-level package.
_EXTRAS = {"torch": "torch", "dask": "dask", "distributed": "dask", "safetensors": "safetensors",
           "plotly": "plotly", "pyarrow": "parquet", "pandas": "parquet", "transformers": "test"}


class _LazyModule(types.ModuleType):
    """A stand-in that imports the named module when one of its attributes is first read."""

    def __init__(self, name: str, extra: str | None, setup):
        super().__init__(name)
        self.__dict__["_lazy"] = (name, extra, setup)
        self.__dict__["_module"] = None

    def _load(self):
        module = self.__dict__["_module"]
        if module is None:
            name, extra, setup = self.__dict__["_lazy"]
            try:
                if setup is not None:
                    setup()
                module = importlib.import_module(name)
            except ImportError as exc:
                top = name.split(".")[0]
                extra = extra or _EXTRAS.get(top)
                how = f"pip install 'tropattn[{extra}]'" if extra else f"pip install {top}"
                raise MissingDependencyError(
                    f"this needs the optional package {top!r}, which is not installed ({exc}); install it with "
                    f"{how}") from None
            self.__dict__["_module"] = module
        return module

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # copy, pickle and doctest probes must not import anything
        return getattr(self._load(), attr)

    def __dir__(self):
        return dir(self._load())

    def __repr__(self):
        state = "loaded" if self.__dict__["_module"] is not None else "not loaded yet"
        return f"<lazy module {self.__dict__['_lazy'][0]!r} ({state})>"


def lazy_import(name: str, extra: str | None = None, setup=None) -> types.ModuleType:
    """A module object that imports ``name`` on first attribute access.

    Parameters
    ----------
    name : str
        The dotted module name (``"scipy.spatial"``, ``"matplotlib.pyplot"``).
    extra : str, optional
        The tropattn extra that installs it, named in the error when it is missing
        (default: looked up from the top-level package).
    setup : callable, optional
        Called once just before the import (e.g. to pick matplotlib's Agg backend).

    Returns
    -------
    module
        A stand-in: reading any attribute imports the module and forwards the read.

    Raises
    ------
    MissingDependencyError
        On first use, if the module cannot be imported.

    Examples
    --------
    >>> fractions = lazy_import("fractions")
    >>> fractions.Fraction(1, 3) + fractions.Fraction(1, 6)
    Fraction(1, 2)
    """
    return _LazyModule(name, extra, setup)


def is_available(name: str) -> bool:
    """Can the module ``name`` be imported here (without importing it if it is not yet)?

    >>> is_available("math"), is_available("no_such_module_here")
    (True, False)
    """
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
