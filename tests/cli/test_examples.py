"""examples/: the model files every ``--help`` example uses, and every such example run verbatim.

The examples are read from each sub-command's ``--help`` epilog through :func:`tropattn.cli.build_parser`
(the lines under ``examples:``), split as a shell would (a trailing ``# comment`` dropped) and run with
:func:`tropattn.cli.main` in a scratch folder that holds a link to examples/, so the pictures and tables
they write never land in the repository.  An example that still names a bare ``model.json`` (or
``poly.json``, ``sites.json``) instead of the examples/ file is skipped with the reason.  The examples
that train torch models at their default sizes run verbatim in the long pass; the slow pass runs each
of them shortened (:data:`SHORTENED`).
"""

import argparse
import importlib.util
import shlex
from pathlib import Path

import pytest

from extras import importable
from tropattn.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FILES = ("model.json", "model_weights.json", "model.npz", "sites.json", "poly.json")
#: Examples too slow for every test run, and why (they still parse: test_slow_examples_parse).
SLOW = {("table",): "regenerates the whole data/region_counts.csv (about 150 s); `table --quick` runs here",
        ("dyck", "intervene", "--k", "20", "--m", "10", "--length", "40", "--d", "64", "--steps", "4000"):
        "the paper's shape trains for about 2 CPU-minutes (its figures: data/dyck_experiments_k20.json)"}


def subparsers(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield path + (name,), sub
                yield from subparsers(sub, path + (name,))


def help_examples():
    """``[(command path, example line)]`` from every sub-command's ``--help`` epilog, in order."""
    out = []
    for path, sub in subparsers(build_parser()):
        lines = (sub.epilog or "").splitlines()
        if "examples:" not in lines:
            continue
        for line in lines[lines.index("examples:") + 1:]:
            if not line.strip():
                break
            out.append((path, line.strip()))
    return out


EXAMPLE_LINES = help_examples()


def argv_of(line):
    words = shlex.split(line, comments=True)
    assert words[0] == "tropattn", line
    return words[1:]


def not_rewritten(argv):
    """The bare example-file names ``argv`` uses where it should name ``examples/<name>``."""
    return [w for w in argv if w in FILES]


def test_every_subcommand_has_examples():
    paths = {path for path, _ in subparsers(build_parser())}
    with_examples = {path for path, _ in EXAMPLE_LINES}
    assert paths == with_examples, sorted(paths - with_examples)


def test_examples_are_made_by_the_script():
    for name in FILES:
        assert (EXAMPLES / name).is_file(), name
    spec = importlib.util.spec_from_file_location("make_examples", ROOT / "scripts" / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.files()
    assert sorted(made) == sorted(FILES)
    stale = [name for name, data in made.items() if (EXAMPLES / name).read_bytes() != data]
    assert not stale, f"run python scripts/make_examples.py ({stale})"


def test_examples_readme_names_every_file():
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in text for name in FILES)


@pytest.mark.parametrize("name", FILES)
def test_every_example_file_is_used_by_a_help_example(name):
    users = [line for _, line in EXAMPLE_LINES if f"examples/{name}" in argv_of(line)]
    if not users:
        pytest.skip(f"no --help example names examples/{name} yet (add one to the command's epilog)")


#: Examples that train or simulate for seconds: run with ``python -m pytest -m slow``.
SLOW_EXAMPLES = ("--train", "dyck --partition", "dyck --k 3 --m 4 --plot", "dyck train", "dyck probe", "dyck intervene",
                 "markov train", "markov --m 1.7", "dynamics flow", "dynamics threshold", "dynamics mean-field",
                 "dynamics fixed-points", "dynamics heads", "dynamics wasserstein")


#: Examples that train torch models at their default sizes (about 35-65 CPU-s each), or simulate
#: particles for 30-120 CPU-s (``dynamics mean-field``, ``dynamics threshold``): run verbatim in the
#: long pass (``python -m pytest -m long``); the slow pass (and CI) runs each once more with these
#: words appended, which takes the same path (training by steps, the JSON, the picture) on less work.
SHORTENED = {"dyck train": ("--steps", "40"), "dyck probe": ("--steps", "40"),
             "dyck intervene --seeds": ("--steps", "40", "--test-words", "12", "--seeds", "0,1"), "markov train": ("--steps", "40"),
             "dynamics mean-field": ("--T", "4", "--seeds", "2", "--betas", "0.5,3,7"), "dynamics threshold": ("--seeds", "1", "--points", "4")}


def _example_params(path, line):
    """The example as run verbatim, and a training example once more, shortened."""
    short = [extra for prefix, extra in SHORTENED.items() if prefix in line]
    if short:
        return [pytest.param(path, line, (), marks=pytest.mark.long, id=line),
                pytest.param(path, line, short[0], marks=pytest.mark.slow, id=f"{line} [{' '.join(short[0])}]")]
    marks = pytest.mark.slow if any(s in line for s in SLOW_EXAMPLES) else ()
    return [pytest.param(path, line, (), marks=marks, id=line)]


@pytest.mark.parametrize("path, line, extra", [p for pl in EXAMPLE_LINES for p in _example_params(*pl)])
def test_help_example_runs_verbatim(path, line, extra, tmp_path, monkeypatch, capsys):
    argv = argv_of(line) + list(extra)
    bare = not_rewritten(argv)
    if bare:
        pytest.skip(f"the help example names {', '.join(bare)}; it should name "
                    f"{', '.join('examples/' + b for b in bare)}")
    if tuple(argv_of(line)) in SLOW:
        pytest.skip(SLOW[tuple(argv_of(line))])
    if "needs torch" in line and not importable("torch"):
        pytest.skip("needs the optional torch extra")
    (tmp_path / "examples").symlink_to(EXAMPLES, target_is_directory=True)
    (tmp_path / "data").mkdir()                      # `tropattn table` writes data/region_counts.csv by default
    monkeypatch.chdir(tmp_path)
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, f"{line}\n{err}"
    assert out.strip(), line


@pytest.mark.parametrize("argv", sorted(SLOW))
def test_slow_examples_parse(argv):
    assert any(tuple(argv_of(line)) == argv for _, line in EXAMPLE_LINES), argv
    build_parser().parse_args(list(argv))
