"""Bad values a new user types: one line naming the right parameter, exit status 2, never a traceback.

Also: ``--workers`` is capped at the machine's cores (one warning line), every option's help
in the model, polynomial and curve commands states its default.
"""

import argparse

import pytest

from tropattn.attention import sawtooth_model
from tropattn.backends import pool_size
from tropattn.cli import _demo, _models, _polynomials, _teaching, main
from tropattn.io import save


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys, argv, *needles):
    code, out, err = run(capsys, *argv)
    assert code == 2, (argv, code, out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("tropattn: error: "), err
    assert "Traceback" not in err and "OverflowError" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 2, 1), path)
    return str(path)


@pytest.mark.parametrize("poly,needle", [("max(0, 1e400*x, y)", "term [1]"), ("max(0, x + 1e400, y)", "term [1]"),
                                         ("max(0, x, y - 1e301)", "term [2]"),
                                         ("max(0, x/10000000000 + 1e299, y)", "terms [0, 1] tie")])
def test_curve_with_a_huge_coefficient_names_the_term(tmp_path, capsys, poly, needle):
    one_line_error(capsys, ["curve", poly, "-o", str(tmp_path / "c.png")], "poly:", "1e300", "tropattn regions", needle)
    assert not (tmp_path / "c.png").exists()


@pytest.mark.parametrize("poly,box,needle", [
    ("max(0, x, y)", ["--box", "1e20,100000000000100000000"], "--box: x-side 100000000 is too narrow"),
    ("max(0, x + 1e299, y/10000000000)", [], "the default window (around the vertices): x-side 2 is too narrow")])
def test_curve_window_too_narrow_for_its_magnitude(tmp_path, capsys, poly, box, needle):
    one_line_error(capsys, ["curve", poly, "-o", str(tmp_path / "c.png"), *box], needle, "1e-9")


def test_the_exact_regions_of_a_huge_coefficient_are_still_printed(capsys):
    code, out, _ = run(capsys, "regions", "max(0, x + 1e400, y)")
    assert code == 0 and "linear regions: 3" in out


@pytest.mark.parametrize("box", ["0,1e400", "-1e400,1", "-1e301,1e301"])
def test_curve_box_beyond_floats_names_the_box(tmp_path, capsys, box):
    one_line_error(capsys, ["curve", "max(0, x, y)", "-o", str(tmp_path / "c.png"), "--box", box], "--box", "1e300")


@pytest.mark.parametrize("taus,needle", [("1e400", "overflows a float"), ("0.1,1e400", "'1e400' overflows"),
                                         ("1e-400", "rounds to 0"), ("0", "is not > 0"), ("-1", "is not > 0"),
                                         ("inf", "not a number"), ("nan", "not a number"), ("0.1,,1", "''"),
                                         ("1/0", "not a number")])
def test_stability_taus_name_the_flag_and_the_entry(model, capsys, taus, needle):
    one_line_error(capsys, ["stability", model, "--taus", taus], "--taus", needle)


@pytest.mark.parametrize("command", ["stability", "diagram"])
def test_float_commands_refuse_a_box_beyond_floats(model, tmp_path, capsys, command):
    extra = ["-o", str(tmp_path / "d.png")] if command == "diagram" else []
    one_line_error(capsys, [command, model, *extra, "--box", "-1e400,1e400"], "--box", "floating point")


@pytest.mark.parametrize("command", ["stability", "diagram"])
def test_float_commands_refuse_a_box_of_one_float(model, tmp_path, capsys, command):
    extra = ["-o", str(tmp_path / "d.png")] if command == "diagram" else []
    one_line_error(capsys, [command, model, *extra, "--box", "0,1e-400"], "--box", "same floating-point number")


def test_count_takes_a_huge_box_exactly(model, capsys):
    code, out, _ = run(capsys, "count", model, "--box", "-1e400,1e400", "--json")
    assert code == 0 and '"activation_regions": 2' in out


def test_pool_size_caps_at_the_cores():
    assert pool_size(1, cores=2) == (1, None)
    assert pool_size(2, cores=2) == (2, None)
    n, note = pool_size(100000, cores=3)
    assert n == 3 and "100000" in note and "3 usable cores" in note


def test_workers_beyond_the_cores_warn_in_one_line_and_count_the_same(model, capsys):
    code, out, err = run(capsys, "count", model, "--workers", "100000", "--json")
    assert code == 0 and '"activation_regions": 2' in out
    assert err.count("\n") == 1 and err.startswith("tropattn: warning: --workers = 100000 is more than the ")
    code, _, err = run(capsys, "count", model, "--workers", "1")
    assert code == 0 and err == ""


def _options(module):
    sub = argparse.ArgumentParser(prog="tropattn").add_subparsers()
    module.register(sub)
    for name, parser in sub.choices.items():
        for group in parser._action_groups:
            if group.title and group.title.startswith("real checkpoints"):
                continue                                   # cli/_checkpoint.py's flags: documented there
            for action in group._group_actions:
                if action.option_strings and not action.required and not isinstance(
                        action, (argparse._StoreTrueAction, argparse._HelpAction)):
                    yield name, action


@pytest.mark.parametrize("module", [_models, _polynomials, _teaching, _demo], ids=lambda m: m.__name__)
def test_every_option_help_states_its_default(module):
    missing = [f"{name} {'/'.join(a.option_strings)}" for name, a in _options(module) if "default" not in a.help]
    assert not missing, missing


def test_conventions_name_dk_when_its_temperature_is_too_small(capsys):
    one_line_error(capsys, ["conventions", "--dk", "100000000000000000000000"], "--dk = 100000000000000000000000",
                   "below 1e-09")
