"""Where the test suite's minutes go, from a pytest JUnit XML file (issue 33).

    bash scripts/test --junitxml=/tmp/suite.xml     # or make test, then run pytest again with --junitxml
    .venv/bin/python bench/suite_time.py /tmp/suite.xml

Prints the seconds per area (e2e, property, static, twin, unit) and per test file, with the number of tests,
slowest first. A test's time is its setup, call and teardown: a module's shared run (a module-scoped fixture)
is counted in the first test that uses it. Under pytest-xdist the areas overlap in time (two workers), so
their sum is more than the run's wall time; the wall time is pytest's last line.
"""

import argparse
import collections
from xml.etree import ElementTree


def test_file(classname):
    """tests.e2e.test_validate_layer0 (or ...test_x.SomeClass) -> tests/e2e/test_validate_layer0.py"""
    parts = classname.split(".")
    last = max(index for index, part in enumerate(parts) if part.startswith("test_"))
    return "/".join(parts[:last + 1]) + ".py"


def breakdown(path):
    seconds, counts = collections.Counter(), collections.Counter()
    for case in ElementTree.parse(path).iter("testcase"):
        name = test_file(case.get("classname") or "?")
        seconds[name] += float(case.get("time") or 0)
        counts[name] += 1
    return seconds, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", help="pytest's --junitxml file")
    parser.add_argument("--top", type=int, default=25, help="how many files to list")
    args = parser.parse_args()
    seconds, counts = breakdown(args.junit)
    areas = collections.Counter()
    for name, spent in seconds.items():
        areas[name.split("/")[1] if name.count("/") > 1 else name] += spent
    print("| Area | s |\n|---|---|")
    for area, spent in areas.most_common():
        print("| %s | %.0f |" % (area, spent))
    print("\n| File | Tests | s |\n|---|---|---|")
    for name, spent in seconds.most_common(args.top):
        print("| %s | %d | %.0f |" % (name, counts[name], spent))
    print("\n%d tests, %.0f s of test time in all" % (sum(counts.values()), sum(seconds.values())))


if __name__ == "__main__":
    main()
