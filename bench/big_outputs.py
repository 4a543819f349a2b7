"""What one very long output costs the controller to parse (issue 40, "Bounded memory").

For every parser, its longest real output (tests/unit/parsers/<parser>/*.raw) grown to LINES lines (200,000 by
default) in two shapes: its middle line repeated (``row``: one very long table) and the whole output repeated
(``whole``: each of its blocks, a route with its next hops, a port's section, many times over). Each parse runs in its own Python process, through
``parsing.parse`` (what the engine calls), and prints:

- the input's size (MB), the CPU seconds of the parse, and its peak memory as tracemalloc counts it (every Python
  allocation, the input's own copy included) in MB and as a multiple of the input's size;
- what came back: facts, or the ERROR's first words.

Usage: .venv/bin/python bench/big_outputs.py [--lines N] [--parser NAME ...] [--shape row|whole] [--json FILE]

Figures, never pass/fail; the bound they are held to is docs/robustness.md's ("Big outputs").
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, ".collections")]
from ansible_collections.gpufabric.pyramid.tests.property import hostile_damage  # noqa: E402  (path set above)

FIXTURES = os.path.join(ROOT, "tests", "unit", "parsers")

# One parse, in a child process so that each peak is its own (run with: python big_outputs.py --child PARSER FILE).
CHILD = r"""
import json, sys, time, tracemalloc
sys.path[:0] = [%(collections)r]
from ansible_collections.gpufabric.pyramid.plugins.plugin_utils import parsing
name, path = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8", newline="") as handle:
    text = handle.read()
tracemalloc.start()
base = tracemalloc.get_traced_memory()[0]
started = time.process_time()
try:
    facts = parsing.parse(name, text)
    outcome = "facts"
except parsing.ParseError as exc:
    outcome = "ERROR: " + str(exc)[:90]
cpu = time.process_time() - started
peak = tracemalloc.get_traced_memory()[1] - base
print(json.dumps({"cpu_s": round(cpu, 2), "peak_bytes": peak + len(text), "outcome": outcome}))
"""


def longest_output(parser):
    folder = os.path.join(FIXTURES, parser)
    best = ""
    for name in sorted(os.listdir(folder)):
        if name.endswith(".raw"):
            with open(os.path.join(folder, name), encoding="utf-8", newline="") as handle:
                text = handle.read()
            if len(text.splitlines()) > len(best.splitlines()):
                best = text
    return best


def measure(parser, text, workdir):
    path = os.path.join(workdir, parser + ".txt")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    code = CHILD % {"collections": os.path.join(ROOT, ".collections")}
    done = subprocess.run([sys.executable, "-c", code, parser, path], capture_output=True, text=True, check=False)
    os.unlink(path)
    if done.returncode != 0:
        return {"cpu_s": None, "peak_bytes": None, "outcome": "the parse process died: " + done.stderr.strip()[-200:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--lines", type=int, default=200000)
    options.add_argument("--parser", action="append", help="only these parsers (repeatable)")
    options.add_argument("--shape", action="append", choices=("row", "whole"), help="row, whole or both (the default)")
    options.add_argument("--json", help="write the figures to this file too")
    args = options.parse_args()

    parsers = args.parser or sorted(name for name in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, name)))
    figures = []
    shapes = args.shape or ["row", "whole"]
    print("%-52s %-5s %6s %6s %8s %5s  %s" % ("parser", "shape", "MB in", "CPU s", "peak MB", "x in", "outcome"))
    with tempfile.TemporaryDirectory(prefix="pyramid-big-") as workdir:
        for parser in parsers:
            for shape in shapes:
                text = hostile_damage.grown(longest_output(parser), args.lines, shape)
                found = measure(parser, text, workdir)
                size = len(text.encode("utf-8"))
                peak = found["peak_bytes"]
                ratio = peak / size if peak else None
                figures.append(dict(found, parser=parser, shape=shape, input_bytes=size, lines=args.lines, ratio=ratio))
                print("%-52s %-5s %6.1f %6s %8s %5s  %s" % (
                    parser, shape, size / 1e6, found["cpu_s"], "-" if not peak else "%.0f" % (peak / 1e6),
                    "-" if not peak else "%.1f" % (peak / size), found["outcome"][:60]))
                sys.stdout.flush()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=1)
    worst = max((f for f in figures if f["ratio"]), key=lambda f: f["ratio"], default=None)
    if worst:
        print("largest peak per input byte: %s (%s), %.1f x its %.1f MB" % (
            worst["parser"], worst["shape"], worst["ratio"], worst["input_bytes"] / 1e6))


if __name__ == "__main__":
    main()
