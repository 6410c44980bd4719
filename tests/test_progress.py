"""The progress bar: tqdm and the plain writer draw the same line at the same moments; a callback instead of drawing."""

import re

import pytest

from tropattn._progress import Progress
from tropattn.errors import InvalidInputError


def drawings(capsys, bar):
    p = Progress(True, steps=2, bar=bar)
    p.start_step(0, 3)
    p.advance(1, found=2)              # the first unit of a stage is always drawn
    p.advance(2, found=5)              # the stage ends: drawn, and the line ends
    p.start_step(1, 4)
    p.advance(1, found=1)
    p.close()                          # interrupted: the line ends
    err = capsys.readouterr().err
    lines = [d for d in err.split("\r") if d]
    return [re.sub(r" \[\d\d:\d\d<[^\]]*\]", "", d) for d in lines]   # tqdm adds [elapsed<left]


def test_tqdm_and_plain_draw_the_same(capsys):
    pytest.importorskip("tqdm")
    plain, tq = ([re.sub(r"\(\S+/s\)", "(R/s)", d) for d in drawings(capsys, bar)] for bar in ("plain", "tqdm"))
    assert plain[:3] == ["sub-layer 1/2 [..............................] 0/3 parents, 0 regions (R/s)",
                         "sub-layer 1/2 [##########....................] 1/3 parents, 2 regions (R/s)",
                         "sub-layer 1/2 [##############################] 3/3 parents, 7 regions (R/s)\n"]
    assert len(plain) == 5
    assert tq == plain[:-1] + [plain[-1].rstrip("\n"), plain[-1]]     # tqdm redraws an unfinished line to close it
    assert tq[-1].endswith("\n") and plain[-1].endswith("\n")


def test_disabled_and_callback_draw_nothing(capsys):
    seen = []
    for enabled in (False, lambda done, total, found: seen.append((done, total, found))):
        p = Progress(enabled, bar="tqdm")
        p.start_step(0, 2)
        p.advance(1, found=4)
        p.advance(1)
        p.close()
    assert capsys.readouterr().err == "" and seen == [(0, 2, 0), (1, 2, 4), (2, 2, 4)]


def test_unknown_bar():
    with pytest.raises(InvalidInputError, match="bar"):
        Progress(True, bar="fancy")


@pytest.mark.parametrize("bar", ["plain", "tqdm"])
def test_work_that_finds_no_regions_shows_no_region_count(capsys, bar):
    if bar == "tqdm":
        pytest.importorskip("tqdm")
    p = Progress(True, stage="dyck", unit="words", bar=bar, regions=False)
    p.start_step(0, 3)
    p.advance(3)
    err = capsys.readouterr().err
    assert "3/3 words" in err and "regions" not in err
