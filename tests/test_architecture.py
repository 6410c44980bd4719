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
    "errors": 0, "_version": 0, "_progress": 0,
    "exact": 1,
    "geometry": 2,
    "tropical": 3,
    "attention": 4, "backends": 4,
    "regions": 5, "region_bounds": 5, "temperature": 5,
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
