"""The layout's rules, checked on the source: imports flow downward, every module has ``__all__``,
no function-local imports of tropattn's own modules, no module shadowed by a function."""

import ast
import importlib
import pathlib

import pytest

import tropattn

ROOT = pathlib.Path(tropattn.__file__).parent

#: Rank of each top-level part: a module may import only parts of lower or equal rank
#: (equal rank: only within the same part).  See docs/ARCHITECTURE.md.
RANK = {
    "errors": 0, "_version": 0,
    "_progress": 0.75, "_display": 0.5, "_lazy": 0.25, "_config": 0.5, "_validate": 0.5, "_face": 0.5, "_doc": 0.5,
    "exact": 1,
    "geometry": 2,
    "tropical": 3,
    "attention": 4, "backends": 4,
    "regions": 5, "region_bounds": 5, "soft": 5,
    "io": 6, "dynamics": 6, "tasks": 6, "exercises": 6,
    "plot": 7, "table": 7,
    "cli": 8,
    "__init__": 9, "__main__": 9,
}


def modules():
    return sorted(p for p in ROOT.rglob("*.py"))


def part_of(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_parts(path: pathlib.Path):
    """(part imported, line, at module level?) for every import of tropattn's own code."""
    tree = ast.parse(path.read_text())
    pkg = list(path.relative_to(ROOT).parent.parts)
    top_level = {id(n) for n in tree.body}
    for n in tree.body:   # imports for annotations only are fine where the module level is
        if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING":
            top_level.update(id(m) for m in n.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[:len(pkg) - node.level + 1] if node.level > 1 else pkg
                target = base + (node.module.split(".") if node.module else [])
                names = [target[0]] if target else [a.name for a in node.names]
            elif node.module and node.module.split(".")[0] == "tropattn":
                rest = node.module.split(".")[1:]
                names = [rest[0]] if rest else [a.name for a in node.names]
            else:
                continue
            for name in names:
                yield name, node.lineno, id(node) in top_level
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "tropattn" and len(parts) > 1:
                    yield parts[1], node.lineno, id(node) in top_level


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_flow_downward(path):
    mine = part_of(path)
    assert mine in RANK, f"{mine} has no rank: add it to RANK and docs/ARCHITECTURE.md"
    for part, line, top in imported_parts(path):
        assert part in RANK, f"{path}:{line} imports unknown part {part}"
        ok = RANK[part] < RANK[mine] or part == mine
        assert ok, f"{path.relative_to(ROOT)}:{line}: {mine} (rank {RANK[mine]}) imports {part} (rank {RANK[part]})"
        assert top, f"{path.relative_to(ROOT)}:{line}: a function-local import of tropattn.{part}; import it at the top"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_declares_all(path):
    if path.name == "__main__.py":
        return
    tree = ast.parse(path.read_text())
    names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert "__all__" in names, f"{path.relative_to(ROOT)} declares no __all__"
    rel = path.relative_to(ROOT).with_suffix("")
    name = ".".join(["tropattn", *rel.parts]).removesuffix(".__init__")
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


def test_no_module_is_shadowed_by_a_function():
    for path in modules():
        rel = path.relative_to(ROOT)
        if path.name.startswith("__") or len(rel.parts) > 2:
            continue
        parent = ".".join(["tropattn", *rel.parts[:-1]])
        package = importlib.import_module(parent)
        importlib.import_module(f"{parent}.{path.stem}")
        attr = getattr(package, path.stem, None)
        assert attr is None or isinstance(attr, type(tropattn)), \
            f"{parent}.{path.stem} is a {type(attr).__name__}, not the module: rename one of them"


# ---------------------------------------------------------------------------------------------------------------
# Faces: a subpackage offers what its __init__.__all__ lists, and keeps the rest to itself
# ---------------------------------------------------------------------------------------------------------------

#: Subpackages whose modules may decide in floats (simulators and pictures); exact/ certifies.
FLOAT_PARTS = {"exact", "dynamics", "tasks", "soft", "plot"}
#: numpy / math calls that decide in floats: solves, determinants, ranks, tolerance tests, signs.
FLOAT_DECISIONS = {"solve", "lstsq", "inv", "pinv", "det", "slogdet", "matrix_rank", "isclose", "allclose", "sign",
                   "signbit"}
#: Packages imported only through tropattn._lazy.lazy_import (heavy or optional).
HEAVY = {"scipy", "sympy", "networkx", "matplotlib", "mpl_toolkits", "torch", "dask", "distributed", "safetensors",
         "mpmath", "shapely", "plotly", "pyarrow", "transformers", "tqdm"}
#: The longest module (lines): split a module that grows past it.
MAX_LINES = 950


def _absolute(path, node):
    """The absolute dotted target of an ``ImportFrom`` (a list of parts after ``tropattn``), or None."""
    pkg = list(path.relative_to(ROOT).parent.parts)
    if node.level:
        base = pkg[:len(pkg) - node.level + 1] if node.level > 1 else pkg
        return base + (node.module.split(".") if node.module else [])
    if node.module and node.module.split(".")[0] == "tropattn":
        return node.module.split(".")[1:]
    return None


def _face(parts):
    """The module object of a face (a subpackage's __init__ or a top-level module)."""
    return importlib.import_module(".".join(["tropattn", *parts]))


def face_violations(path):
    """Every import of another part that names something its face does not export."""
    tree = ast.parse(path.read_text())
    mine = part_of(path)
    bound = {}  # local name -> face parts, for "from .. import exact" then exact.<attr>
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(path, node)
            if target is None:
                continue
            if not target:  # from .. import exact, regions
                for a in node.names:
                    if a.name != mine:
                        bound[a.asname or a.name] = [a.name]
                continue
            if target[0] == mine:
                continue
            if len(target) > 1:
                out.append(f"{node.lineno}: imports tropattn.{'.'.join(target)} past the face of {target[0]}")
                continue
            face = _face(target)
            for a in node.names:
                if a.name not in getattr(face, "__all__", ()):
                    out.append(f"{node.lineno}: imports {a.name} from tropattn.{target[0]}, "
                               f"which its __all__ does not export")
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "tropattn" and len(parts) > 2 and parts[1] != mine:
                    out.append(f"{node.lineno}: imports {a.name} past the face of {parts[1]}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            face = _face(bound[node.value.id])
            if node.attr not in getattr(face, "__all__", ()) and not isinstance(getattr(face, node.attr, None),
                                                                                 type(tropattn)):
                out.append(f"{node.lineno}: uses {node.value.id}.{node.attr}, which tropattn.{bound[node.value.id][0]}"
                           " does not export")
    return out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_across_parts_name_only_what_the_face_exports(path):
    bad = face_violations(path)
    assert not bad, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


def _call_name(node):
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr, ast.unparse(f.value)
    if isinstance(f, ast.Name):
        return f.id, ""
    return None, ""


def float_decisions(path):
    """Float tolerances in comparisons, float solves and float sign tests in a module."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name, owner = _call_name(node)
            if name in FLOAT_DECISIONS and (owner.startswith(("np", "numpy", "math", "scipy", "linalg"))
                                           or owner.endswith("linalg")):
                out.append(f"{node.lineno}: {owner}.{name}(...) decides in floats")
        elif isinstance(node, ast.Compare):
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Constant) and isinstance(sub.value, float) and 0 < abs(sub.value) <= 1e-6):
                    out.append(f"{node.lineno}: a float tolerance {sub.value!r} in a comparison")
    return out


@pytest.mark.parametrize("path", [p for p in modules() if part_of(p) not in FLOAT_PARTS],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_exact_decides_in_floats(path):
    bad = float_decisions(path)
    assert not bad, (f"{path.relative_to(ROOT)} decides in floats outside tropattn.exact (ask exact/ for a certified "
                     "answer):\n  " + "\n  ".join(bad))


def heavy_imports(path):
    """Imports of heavy or optional packages that do not go through tropattn._lazy, and function-local imports."""
    tree = ast.parse(path.read_text())
    top_level = {id(n) for n in tree.body}
    for n in tree.body:
        if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING":
            top_level.update(id(m) for m in n.body)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level:
                names = []
            heavy = [n for n in names if n.split(".")[0] in HEAVY]
            if heavy:
                out.append(f"{node.lineno}: imports {', '.join(heavy)}; use tropattn._lazy.lazy_import")
            elif id(node) not in top_level and path.name != "_lazy.py":
                out.append(f"{node.lineno}: a function-local import; import at the top (lazy_import for heavy ones)")
    return out


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_heavy_imports_go_through_the_lazy_helper(path):
    bad = heavy_imports(path)
    assert not bad, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_too_long(path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(ROOT)} has {n} lines; split it by concept (at most {MAX_LINES})"


def test_implementation_modules_are_private():
    public = [str(p.relative_to(ROOT)) for p in modules()
              if len(p.relative_to(ROOT).parts) > 1 and not p.name.startswith("_")]
    assert not public, f"implementation modules must be private (_name.py), the face is __init__: {public}"


TESTS = pathlib.Path(__file__).parent


def private_patches(path):
    """``monkeypatch.setattr`` calls that reach a private tropattn name."""
    tree = ast.parse(path.read_text())
    ours = set()  # names bound to tropattn's modules or objects by the test file's imports
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            ours.update((a.asname or a.name).split(".")[0] for a in node.names if a.name.startswith("tropattn"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tropattn"):
            ours.update(a.asname or a.name for a in node.names)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "setattr", "setitem", "delattr") and ast.unparse(node.func.value) == "monkeypatch":
            args = [ast.unparse(a) for a in node.args]
            text = " ".join(args)
            root = args[0].split(".")[0] if args else ""
            if "tropattn" in text or root in ours or any(a.strip("'\"").startswith("_") for a in args[1:2]) or any(
                    part.startswith("_") for a in args[:1] for part in a.split(".")):
                out.append(f"{node.lineno}: monkeypatch.{node.func.attr}({', '.join(args)})")
    return out


@pytest.mark.parametrize("path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: p.name)
def test_no_test_monkeypatches_a_private_name(path):
    bad = private_patches(path)
    assert not bad, (f"{path.name} steers a public call by patching tropattn internals (give the knob a parameter "
                     "or a tropattn.config entry):\n  " + "\n  ".join(bad))
