"""One judge signature (issue 69): every judge of every kind is called ``JUDGES[kind][name](facts, expect)``: what its
kind gathered (a host's facts per source, a pod's per host, a fabric run and its group, an incast's reads, a link run's
windows) and the expectations it declares. A judge with another shape would need its kind's runner to call it its own
way, and the judge data rows (test_judge_data.py) to know it."""

import inspect

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.judging import JUDGES


def _shape(function):
    parameters = list(inspect.signature(function).parameters.values())
    return [(p.name, p.kind) for p in parameters]


def test_every_judge_of_every_kind_takes_facts_and_expectations():
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    odd = ["%s %s%s" % (kind, name, inspect.signature(function)) for kind, table in sorted(JUDGES.items())
           for name, function in sorted(table.items())
           if [kind_of for _name, kind_of in _shape(function)] != [positional, positional]
           or not _shape(function)[0][0].startswith("facts") or not _shape(function)[1][0].startswith("expect")]
    assert not odd, "judges not called (facts, expect): %s" % odd
    assert len([kind for kind, table in JUDGES.items() if table]) >= 6  # every kind of run has its judges
