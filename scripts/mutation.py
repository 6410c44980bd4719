"""Mutation testing of the exact core with mutmut (PyPI): kill rate per module.

Usage::

    pip install -e ".[test,mutation]"            # mutmut 3
    python scripts/mutation.py                     # every module below (slow: hours)
    python scripts/mutation.py region_bounds       # one module
    python scripts/mutation.py --list              # the modules and their tests
    python scripts/mutation.py predicates --only dot_signs filtered_signs   # only these functions' mutants

For each module the project is copied into a scratch directory (the working tree is never
touched), a ``[mutmut]`` section naming that one file and its targeted tests is appended to the
copy's ``setup.cfg``, and ``mutmut run`` mutates it and runs only those tests against each mutant.
The kill rate is ``killed / (killed + survived)`` (timeouts count as killed, as mutmut does;
mutants no test reaches count as survived).  ``--keep`` leaves the scratch directories to inspect
the survivors with ``mutmut results`` / ``mutmut show <name>`` there.  Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: module name -> (source file, targeted tests)
MODULES = {
    "predicates": ("tropattn/exact/_predicates.py",
                   ["tests/exact/test_predicates_cancelling.py", "tests/exact/test_exact.py",
                    "tests/exact/test_predicates_mutants.py", "tests/exact/test_predicates_bounds.py",
                    "tests/exact/test_prepared_points.py"]),
    "lp": ("tropattn/exact/_lp.py", ["tests/exact/test_lp_mutants.py", "tests/exact/test_exact.py",
                                     "tests/geometry/test_polytope.py"]),
    "steps": ("tropattn/regions/_steps.py",
              ["tests/regions/test_steps_mutants.py", "tests/regions/test_integer_steps.py",
               "tests/regions/test_ties.py", "tests/regions/test_step_methods.py"]),
    "relu": ("tropattn/regions/_relu.py",
             ["tests/regions/test_steps_mutants.py", "tests/regions/test_integer_steps.py",
              "tests/regions/test_step_methods.py", "tests/regions/test_near_units.py",
              "tests/regions/test_steps_filtered.py"]),
    "search": ("tropattn/regions/_search.py",
               ["tests/regions/test_search_mutants.py", "tests/regions/test_graph.py"]),
    "region_bounds": ("tropattn/region_bounds.py", ["tests/test_bounds_nondegenerate.py", "tests/test_bounds.py"]),
    "soft": ("tropattn/soft/_kernel.py", ["tests/attention/test_attention.py", "tests/soft/test_soft.py",
                                          "tests/soft/test_stability_reports.py", "tests/soft/test_kernel_mutants.py"]),
}

SKIP = {".git", ".venv", "mutants", "__pycache__", ".hypothesis", ".pytest_cache", "build"}


def _copy_tree(dst: Path) -> None:
    def ignore(_dir, names):
        return [n for n in names if n in SKIP or n.endswith(".egg-info")]
    shutil.copytree(ROOT, dst, ignore=ignore, dirs_exist_ok=True)


def _config(source: str, tests: list) -> str:
    lines = ["", "[mutmut]", "source_paths = tropattn/", f"only_mutate = {source}",
             "pytest_add_cli_args_test_selection ="]
    lines += [f"    {t}" for t in tests if (ROOT / t).exists()]
    lines += ["pytest_add_cli_args =", "    -p", "    no:cacheprovider", "    -x", "    -m", "    not slow", ""]
    return "\n".join(lines)


def mutant_patterns(source: str, functions) -> list:
    """mutmut's names for the mutants of ``functions`` in ``source``.

    A module-level function ``fn`` is ``pkg.mod.x_fn__mutmut_*``; a method written ``Class.method``
    is ``pkg.mod.xǁClassǁmethod__mutmut_*`` (mutmut's class separator), and ``Class.*`` takes
    every method of the class.

    >>> mutant_patterns("tropattn/regions/_steps.py", ["wall_rows", "ReluStep.rows"])
    ['tropattn.regions._steps.x_wall_rows__mutmut_*', 'tropattn.regions._steps.xǁReluStepǁrows__mutmut_*']
    """
    module = source[:-3].replace("/", ".")
    patterns = []
    for fn in functions:
        if fn.count(".") > 1:
            raise SystemExit(f"--only {fn}: name a function or Class.method (one dot at most)")
        cls, _, method = fn.rpartition(".")
        patterns.append(f"{module}.xǁ{cls}ǁ{method}__mutmut_*" if cls else f"{module}.x_{fn}__mutmut_*")
    return patterns


def run_module(name: str, keep: bool = False, max_children: int | None = None, only=()) -> dict:
    source, tests = MODULES[name]
    work = Path(tempfile.mkdtemp(prefix=f"mutation-{name}-"))
    try:
        _copy_tree(work)
        with (work / "setup.cfg").open("a", encoding="utf-8") as fh:
            fh.write(_config(source, tests))
        env = dict(os.environ, PYTHONPATH=str(work), HYPOTHESIS_PROFILE="ci")
        cmd = [sys.executable, "-m", "mutmut", "run"]
        if max_children:
            cmd += ["--max-children", str(max_children)]
        cmd += mutant_patterns(source, only)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        subprocess.run([sys.executable, "-m", "mutmut", "export-cicd-stats"], cwd=work, env=env,
                       capture_output=True, text=True)
        stats_file = work / "mutants" / "mutmut-cicd-stats.json"
        if not stats_file.exists():
            tail = (proc.stdout + proc.stderr)[-3000:]
            raise RuntimeError(f"mutmut produced no statistics for {name} (exit {proc.returncode}):\n{tail}")
        stats = json.loads(stats_file.read_text())
        survivors = subprocess.run([sys.executable, "-m", "mutmut", "results"], cwd=work, env=env,
                                   capture_output=True, text=True).stdout.split("\n")
        # mutants outside ``--only`` are listed as "not checked": they are neither killed nor survivors
        stats["survivors"] = [s.strip() for s in survivors if s.strip() and not s.strip().endswith("not checked")]
        stats["seconds"] = round(seconds, 1)
        stats["workdir"] = str(work) if keep else None
        return stats
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def kill_rate(stats: dict) -> float:
    killed = stats.get("killed", 0) + stats.get("timeout", 0)
    judged = killed + stats.get("survived", 0) + stats.get("no_tests", 0)
    return killed / judged if judged else float("nan")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("modules", nargs="*", help=f"any of {', '.join(MODULES)} (default: all)")
    p.add_argument("--list", action="store_true", help="print the modules and their tests, and stop")
    p.add_argument("--keep", action="store_true", help="keep the scratch directories")
    p.add_argument("--max-children", type=int, default=None, help="parallel mutants (mutmut's default: CPUs)")
    p.add_argument("--only", nargs="+", default=(), metavar="FUNCTION",
                   help="mutate only these functions (name or Class.method, Class.* for all methods; default: all)")
    args = p.parse_args(argv)
    if args.list:
        for name, (source, tests) in MODULES.items():
            print(f"{name:14} {source:36} {' '.join(tests)}")
        return 0
    names = args.modules or list(MODULES)
    bad = [n for n in names if n not in MODULES]
    if bad:
        p.error(f"unknown module {bad[0]!r}; choose from {', '.join(MODULES)}")
    print(f"{'module':14} {'mutants':>7} {'killed':>7} {'survived':>8} {'no tests':>8} {'timeout':>7} {'kill rate':>9}"
          f" {'seconds':>8}")
    for name in names:
        s = run_module(name, keep=args.keep, max_children=args.max_children, only=args.only)
        judged = sum(s.get(k, 0) for k in ("killed", "survived", "no_tests", "timeout"))  # without "not checked"
        print(f"{name:14} {judged:7} {s.get('killed', 0):7} {s.get('survived', 0):8} "
              f"{s.get('no_tests', 0):8} {s.get('timeout', 0):7} {kill_rate(s):9.1%} {s['seconds']:8}", flush=True)
        for line in s["survivors"]:
            print(f"    {line}")
        if s["workdir"]:
            print(f"    kept: {s['workdir']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
