"""Damage to a tool's intact output, as hypothesis strategies (issue 17, "Hostile inputs").

A Damage is one named change to one output, with the arguments that reproduce it; repr() shows them,
so a failing example reads as "cut_line(keep=12)" rather than as a blob. damage(text) draws one
damage that fits that text (a line it can cut, a number it can replace).

Two families, because they promise different things (docs/robustness.md):

- READ damage (READ_KINDS): the read itself went wrong: cut at a line or a byte, empty, an error
  message instead of the output or after half of it, garbage lines in it, random text, another
  command's output. The tool must say ERROR about the read (or PASS on equal judged facts), never
  FAIL about the device.
- VALUE and NOISE damage (the others): CRLF, ANSI and other terminal escapes, swapped fields, numbers
  as NaN/inf/1e999/huge/negative, duplicated lines, many lines, one long line, invalid UTF-8, a line
  lost from the middle, a word replaced by a dash (issue 40: a header, a rank line, a lane or a
  table row lost; a port number read as "-"). A control character (a NUL in a cell's padding) is READ
  damage: no tool prints one. Some of
  these make a real FAIL-worthy fact (a swapped number can be an error counter), so they are held
  only to "no exception escapes" and "never PASS on other judged facts".
"""

import os
import re

from hypothesis import strategies as st

READ_KINDS = frozenset(("cut_line", "cut_byte", "empty", "error_text", "error_tail", "garbage_line", "random_text", "other_output",
                        "control_char"))

# Messages real tools and shells print instead of (or in the middle of) an answer.
ERROR_MESSAGES = (
    "bash: ibstat: command not found",
    "Permission denied",
    "ibwarn: [12345] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or directory)",
    "% Invalid input detected at '^' marker.",
    "% Permission denied for the role",
    "Error: Unable to connect to the NVUE daemon (nvued): Connection refused",
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
    "NVIDIA driver is installed and running.",
    "-E- Failed to open the device",
    "Traceback (most recent call last):\n  File \"/usr/local/bin/show\", line 8, in <module>\n    sys.exit(cli())\n"
    "KeyError: 'Ethernet0'",
    "ssh: connect to host 10.0.0.1 port 22: Connection refused",
    "Segmentation fault (core dumped)",
    "Killed",
    '{"errors": ["CLI command 1 of 1 \'show lldp neighbors\' failed: invalid command"]}',
    "[rank0]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error",
    "cat: /proc/modules: Input/output error",
)

# Lines that get mixed into real outputs over SSH and through launchers.
NOISE_LINES = (
    "Warning: Permanently added '10.0.0.2' (ED25519) to the list of known hosts.",
    "bash: warning: setlocale: LC_ALL: cannot change locale (en_US.UTF-8)",
    "mesg: ttyname failed: Inappropriate ioctl for device",
    "[ 1234.567890] mlx5_core 0000:18:00.0: mlx5_fw_tracer_handle_traces:749: FW tracer event",
    "-- More --",
    "NCCL WARN Call to ibv_reg_mr failed",
    "%",
    "}",
    "0",
)

BAD_NUMBERS = ("nan", "NaN", "inf", "-inf", "1e999", "-1e999", "99999999999999999999999999", "-99999999999", "-0")
# a number that is a field of its own (a counter, a rate, a power), not a digit of a name (Ethernet1/1,
# 6.8.0-1015-nvidia, mlx5_0, Port 1:, 10.0.1.1): replacing those is another damage (a garbled name)
NUMBER = re.compile(r"(?<![\w.\-/:])-?\d+(?:\.\d+)?(?![\w.\-/:])")
# C0 controls a damaged read carries (a NUL in a cell's padding, issue 40); not the terminal escapes above
CONTROL_CHARS = ("\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1f", "\x7f")
ESCAPES = ("\x1b[1;31m", "\x1b[0m", "\x1b[32m", "\x1b[K", "\x1b[2K", "\x1b[?25l", "\x1b]0;switch\x07", "\r", "\x1b(B")
LONG_PATTERNS = ("a", "9", "ab1_", "x ", "-", "=")
LONG_LINE_MAX = 4000  # the 100 kB line is test_parse_time's (a quadratic regex would take minutes here)
MANY_LINES_MAX = 1000  # bounded here; bench/robustness.sh runs more examples, test_parse_time 100 kB
GARBAGE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=80).filter(str.strip)


def lines_of(text):
    return text.splitlines(keepends=True)


def grown(text, lines, shape):
    """``text`` grown to about ``lines`` lines: its middle line repeated (``row``: one very long table), or the whole
    output repeated (``whole``: each of its blocks, a route with its next hops, a port's section, many times over).
    test_hostile_parsers.py's memory test (10,000 lines) and bench/big_outputs.py (200,000) grow outputs this way."""
    kept = lines_of(text) or ["\n"]
    kept[-1] = kept[-1] if kept[-1].endswith("\n") else kept[-1] + "\n"
    if shape == "whole":
        return "".join(kept) * max(lines // len(kept), 1)
    middle = len(kept) // 2
    return "".join(kept[:middle]) + kept[middle] * max(lines - len(kept), 1) + "".join(kept[middle:])


def _insert(text, index, line):
    lines = lines_of(text)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lines.insert(index, line if line.endswith("\n") else line + "\n")
    return "".join(lines)


class Damage:
    """One damage: ``kind`` and the arguments that reproduce it on the same intact text."""

    def __init__(self, kind, **args):
        self.kind = kind
        self.args = args

    @property
    def read(self):
        """Damage to the read (cut, error text, garbage): ERROR, never FAIL."""
        return self.kind in READ_KINDS

    def __repr__(self):
        shown = ", ".join("%s=%r" % (key, value if not isinstance(value, str) or len(value) < 120 else
                                     "%s...(%d chars)" % (value[:60], len(value))) for key, value in sorted(self.args.items()))
        return "%s(%s)" % (self.kind, shown)

    def apply(self, text):
        return getattr(self, "_" + self.kind)(text, **self.args)

    @staticmethod
    def _cut_line(text, keep):
        return "".join(lines_of(text)[:keep])

    @staticmethod
    def _cut_byte(text, at):
        return text.encode("utf-8")[:at].decode("utf-8", errors="replace")

    @staticmethod
    def _empty(text, what):
        return what

    @staticmethod
    def _error_text(text, message):
        return message + "\n"

    @staticmethod
    def _error_tail(text, keep, message):
        return "".join(lines_of(text)[:keep]) + message + "\n"

    @staticmethod
    def _garbage_line(text, at, line):
        return _insert(text, at, line)

    @staticmethod
    def _random_text(text, value):
        return value

    @staticmethod
    def _other_output(text, value, case):
        return value

    @staticmethod
    def _crlf(text, every):
        lines = lines_of(text)
        return "".join(line[:-1] + "\r\n" if line.endswith("\n") and index % every == 0 else line
                       for index, line in enumerate(lines))

    @staticmethod
    def _escape(text, at, code):
        return text[:at] + code + text[at:]

    @staticmethod
    def _swap_fields(text, line, first, second):
        lines = lines_of(text)
        parts = re.split(r"(\s+)", lines[line])
        words = [index for index, part in enumerate(parts) if part and not part.isspace()]
        parts[words[first]], parts[words[second]] = parts[words[second]], parts[words[first]]
        lines[line] = "".join(parts)
        return "".join(lines)

    @staticmethod
    def _bad_number(text, index, value):
        match = list(NUMBER.finditer(text))[index]
        return text[:match.start()] + value + text[match.end():]

    @staticmethod
    def _dup_line(text, line, times):
        lines = lines_of(text)
        copy = lines[line] if lines[line].endswith("\n") else lines[line] + "\n"
        return "".join(lines[:line] + [copy] * times + lines[line:])

    @staticmethod
    def _drop_line(text, line):
        lines = lines_of(text)
        return "".join(lines[:line] + lines[line + 1:])

    @staticmethod
    def _control_char(text, at, char):
        return text[:at] + char + text[at:]

    @staticmethod
    def _dash_word(text, line, word):
        lines = lines_of(text)
        parts = re.split(r"(\s+)", lines[line])
        words = [index for index, part in enumerate(parts) if part and not part.isspace()]
        parts[words[word]] = "-"
        lines[line] = "".join(parts)
        return "".join(lines)

    @staticmethod
    def _move_line(text, line, to):
        lines = lines_of(text)
        moved = lines.pop(line)
        lines.insert(to, moved if moved.endswith("\n") else moved + "\n")
        return "".join(lines)

    @staticmethod
    def _long_line(text, at, pattern, size):
        return _insert(text, at, (pattern * (size // len(pattern) + 1))[:size])

    @staticmethod
    def _invalid_utf8(text, at, junk):
        # bytes that are not UTF-8, decoded as the collect module reads text: errors replaced
        raw = text.encode("utf-8")
        return (raw[:at] + junk + raw[at:]).decode("utf-8", errors="replace")


def _numbers(text):
    return len(NUMBER.findall(text))


def _swappable(text):
    return [index for index, line in enumerate(lines_of(text)) if len(line.split()) >= 2]


@st.composite
def damage(draw, text, others=()):
    """One Damage fitting ``text``; ``others``: (case, text) of other commands' outputs to put in its place."""
    lines = lines_of(text)
    count, size = len(lines), len(text.encode("utf-8"))
    choices = [
        st.builds(Damage, st.just("empty"), what=st.sampled_from(("", "\n", "   \n", "\n\n"))),
        st.builds(Damage, st.just("error_text"), message=st.sampled_from(ERROR_MESSAGES)),
        st.builds(Damage, st.just("random_text"), value=st.text(max_size=400)),
        st.builds(Damage, st.just("garbage_line"), at=st.integers(0, count), line=st.sampled_from(NOISE_LINES) | GARBAGE),
        st.builds(Damage, st.just("crlf"), every=st.integers(1, 3)),
        st.builds(Damage, st.just("escape"), at=st.integers(0, len(text)), code=st.sampled_from(ESCAPES)),
        st.builds(Damage, st.just("long_line"), at=st.integers(0, count), pattern=st.sampled_from(LONG_PATTERNS),
                  size=st.integers(200, LONG_LINE_MAX)),
        st.builds(Damage, st.just("control_char"), at=st.integers(0, len(text)), char=st.sampled_from(CONTROL_CHARS)),
        st.builds(Damage, st.just("invalid_utf8"), at=st.integers(0, size),
                  junk=st.binary(min_size=1, max_size=4).map(lambda junk: bytes(0x80 | byte for byte in junk))),
    ]
    if count:
        choices += [
            st.builds(Damage, st.just("cut_line"), keep=st.integers(0, count - 1)),
            st.builds(Damage, st.just("error_tail"), keep=st.integers(0, count - 1), message=st.sampled_from(ERROR_MESSAGES)),
            st.builds(Damage, st.just("dup_line"), line=st.integers(0, count - 1), times=st.integers(1, 3)),
            st.builds(Damage, st.just("move_line"), line=st.integers(0, count - 1), to=st.integers(0, count - 1)),
            st.builds(Damage, st.just("drop_line"), line=st.integers(0, count - 1)),
            st.builds(Damage, st.just("dup_line"), line=st.integers(0, count - 1), times=st.integers(4, MANY_LINES_MAX)),
        ]
    if size > 1:
        choices.append(st.builds(Damage, st.just("cut_byte"), at=st.integers(1, size - 1)))
    if _numbers(text):
        choices.append(st.builds(Damage, st.just("bad_number"), index=st.integers(0, _numbers(text) - 1),
                                 value=st.sampled_from(BAD_NUMBERS)))
    if _swappable(text):
        line = draw(st.sampled_from(_swappable(text)))
        fields = len(lines[line].split())
        first = draw(st.integers(0, fields - 2))
        choices.append(st.just(Damage("swap_fields", line=line, first=first, second=draw(st.integers(first + 1, fields - 1)))))
        choices.append(st.just(Damage("dash_word", line=line, word=draw(st.integers(0, fields - 1)))))
    if others:
        choices.append(st.sampled_from(others).map(lambda other: Damage("other_output", case=other[0], value=other[1])))
    return draw(st.one_of(choices))


def settings_for(examples_default):
    """Hypothesis settings of this suite: reproducible (derandomized, no example database) and without a
    deadline (hostile_engine.cpu_limit bounds a parse instead). For a longer run (bench/robustness.sh):
    PYRAMID_HYPOTHESIS_EXAMPLES sets the examples per test; PYRAMID_HYPOTHESIS_RANDOM=1 draws new
    examples each run (a failure prints the @reproduce_failure line that replays it);
    PYRAMID_HYPOTHESIS_SHRINK=0 skips shrinking (a failure then shows the first example that failed)."""
    from hypothesis import HealthCheck, Phase, settings  # pylint: disable=import-outside-toplevel

    examples = int(os.environ.get("PYRAMID_HYPOTHESIS_EXAMPLES") or examples_default)
    random = os.environ.get("PYRAMID_HYPOTHESIS_RANDOM") == "1"
    phases = [Phase.explicit, Phase.generate] + ([] if os.environ.get("PYRAMID_HYPOTHESIS_SHRINK") == "0" else [Phase.shrink])
    return settings(max_examples=examples, deadline=None, derandomize=not random, database=None, phases=phases,
                    print_blob=random, suppress_health_check=list(HealthCheck))
