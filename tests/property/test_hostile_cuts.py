"""A read cut inside a line, swept over every check (issue 68: a truncated row read as a device's fault).

test_hostile_checks.py sweeps cuts at line boundaries and draws a byte cut now and then; a cut inside a line leaves
its last row short (a speed `400G` read as `4`, a neighbor's port cut off, a PFC line ending in `priori`), the shape
an independent fuzzer found still judged a device FAIL in five checks. Here every distinct output of every slot
(hostile_engine: the raw outputs of the all-PASS judge data rows) is cut inside its lines, one cut at a time: past
the first character of the line and again in its middle, up to SWEEP_LINES lines spread over a longer output. A cut
is damage to the read (hostile_damage.READ_KINDS), held to the suite's three promises: nothing escapes, no PASS on
other judged facts, and an ERROR about the read, never a FAIL about the device.
"""

import pytest

from ansible_collections.gpufabric.pyramid.tests.property import hostile_damage
from ansible_collections.gpufabric.pyramid.tests.property import test_hostile_checks as checks

# lines of one output cut inside, spread evenly over a longer one, its last line always among them (where a stream
# stops). Fewer lines miss findings: at 12, modinfo's kernel version line of the gpudirect slot is not cut
SWEEP_LINES = 40


def _cuts_inside(text):
    """Damage cutting ``text`` inside its lines: after a line's first character and in its middle (bytes, as a
    stream stops), SWEEP_LINES lines at most."""
    lines = hostile_damage.lines_of(text)
    start = 0
    offsets = []
    for line in lines:
        offsets.append((start, len(line.rstrip("\n").encode("utf-8"))))
        start += len(line.encode("utf-8"))
    step = max(1, -(-len(offsets) // SWEEP_LINES))
    chosen = offsets[::step] + ([offsets[-1]] if offsets and (len(offsets) - 1) % step else [])
    for begin, width in chosen:
        for inside in sorted({1, width // 2}):
            if 0 < inside < width:
                yield hostile_damage.Damage("cut_byte", at=begin + inside)


@pytest.mark.parametrize("slot", checks.SLOTS, ids=lambda slot: slot.id)
def test_sweep_cut_inside_a_line(slot):
    problems = []
    for path, text in checks._distinct(slot):  # pylint: disable=protected-access
        for damage in _cuts_inside(text):
            problems += checks._problems(slot, path, damage, damage.apply(text))  # pylint: disable=protected-access
    assert not problems, "%d outputs cut inside a line misjudged:\n%s" % (len(problems), "\n".join(problems[:12]))
