"""The README's Python example runs, and every commented value in it is what the code returns."""

import ast
import re
from pathlib import Path

from extras import importable

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def expected_values(comment):
    """The values a comment claims: the whole comment or a leading (...) literal, else the integers it names."""
    text = comment.lstrip("#").strip()
    for end in range(len(text), 0, -1):
        if end < len(text) and not text.startswith(("(", "[")):
            break
        try:
            return ast.literal_eval(text[:end])
        except (ValueError, SyntaxError):
            continue
    return tuple(int(v) for v in re.findall(r"(?<![\w^/])\d+(?![\w/])", text))


def flat(value):
    return tuple(value) if isinstance(value, tuple) else (value,)


def test_readme_python_example_values():
    blocks = python_blocks(README.read_text(encoding="utf-8"))
    assert blocks, "the README has no ```python block"
    checked = 0
    for block in blocks:
        if re.search(r"^import .*\btorch\b", block, flags=re.M) and not importable("torch"):
            continue                # the PyTorch example needs the optional torch extra
        namespace = {}
        tree = ast.parse(block)
        lines = block.splitlines()
        for node in tree.body:
            code = ast.get_source_segment(block, node)
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), "README.md", "eval"), namespace)
                line = lines[node.end_lineno - 1]
                assert "#" in line, f"README line {line!r} shows no value; add it as a comment"
                claimed = expected_values(line[line.index("#", node.end_col_offset):])
                assert flat(value) == flat(claimed), (code, value, claimed)
                checked += 1
            else:
                exec(compile(ast.Module([node], []), "README.md", "exec"), namespace)
    assert checked >= 3


def test_comment_reader():
    assert expected_values("# (6, 4)") == (6, 4)
    assert expected_values("# (81, 81): N^(dL)") == (81, 81)
    assert expected_values("# 5 regions, not N^H = 27") == (5, 27)
    assert expected_values("# 9") == 9
