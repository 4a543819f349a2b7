# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Layer 1 on the GPU nodes: each rail NIC's own physical layer, as `mlxlink` reads it from the port (issue 67)."""

from __future__ import annotations

from ..core.model import ERROR, FAIL, PASS, SourceFailure, counted, verdict
from .registry import judge, summary

# mlxlink prints 15E-255 for a BER whose error count is 0: anything this small is "none counted", not a figure
_NONE_COUNTED = 1e-100
_PASSIVE = "passive copper"


def ber_text(value):
    """A BER as a reader compares it with a threshold: 5E-06; mlxlink's floor for no error as "none counted"."""
    return "none counted" if value < _NONE_COUNTED else ("%g" % value).upper()


def _temperature(read):
    """(degrees C or None, why there is none: "" when the module measured one, else the reason a judge accepts, or
    None where the temperature is missing and should have been there)."""
    degrees, thresholds = read["temperature_c"], read["temperature_thresholds_c"]
    # a module without a sensor: N/A (no Digital Diagnostic Monitoring), or MFT's 0 [0..0] of a passive DAC
    unmeasured = degrees is None or (degrees == 0 and thresholds == [0.0, 0.0])
    if not unmeasured:
        return degrees, ""
    if _PASSIVE in (read.get("cable_type") or "").lower():
        return None, "passive copper: no sensor"
    return None, None


def _rail_problems(rail, read, expect):
    """(problems, errors, temperature or None, no-sensor note) of one rail's read."""
    problems, errors = [], []
    if read["state"] != "Active":
        return ["%s: port %s/%s (mlxlink): nothing to measure on a link that is not up" % (
            rail, read["state"], read["physical_state"])], errors, None, ""
    raw, effective = read["raw_ber"], read["effective_errors"]
    if raw is None:
        errors.append("%s: Raw Physical BER N/A" % rail)
    elif raw > expect["pyramid_nic_raw_ber_max"]:
        problems.append("%s: raw (pre-FEC) BER %s > %s" % (rail, ber_text(raw), ber_text(expect["pyramid_nic_raw_ber_max"])))
    if effective is None:
        errors.append("%s: Effective Physical Errors N/A" % rail)
    elif effective > expect["pyramid_nic_effective_errors_max"]:
        since = read.get("minutes_since_clear")
        problems.append("%s: %s effective (post-FEC) errors, BER %s%s (at most %d)" % (
            rail, effective, ber_text(read["effective_ber"] or 0.0),
            " in the %.0f min since the counters were cleared" % since if since is not None else "",
            expect["pyramid_nic_effective_errors_max"]))
    degrees, why = _temperature(read)
    if why is None:
        errors.append("%s: module temperature N/A on a module that is not passive copper (%s)" % (
            rail, read.get("cable_type") or "cable type not shown"))
    elif degrees is not None:
        limit = expect["pyramid_nic_module_temperature_max_c"]
        alarm = (read["temperature_thresholds_c"] or [None, None])[1]
        if degrees > limit:
            problems.append("%s: module %g C > %g C" % (rail, degrees, limit))
        elif alarm and degrees >= alarm:
            problems.append("%s: module %g C, at its own high alarm %g C" % (rail, degrees, alarm))
    return problems, errors, degrees, why


@judge("nic_physical_layer")
def nic_physical_layer(facts, expect):
    reads = facts["rail_mlxlink"]
    expected = "every rail: raw (pre-FEC) BER <= %s, effective (post-FEC) errors <= %d, module <= %g C" % (
        ber_text(expect["pyramid_nic_raw_ber_max"]), expect["pyramid_nic_effective_errors_max"],
        expect["pyramid_nic_module_temperature_max_c"])
    problems, errors, worst_ber, most_errors, hottest, passive = [], [], 0.0, 0, None, []
    for rail in expect["pyramid_rails"]:
        read = reads.get(rail)
        if isinstance(read, SourceFailure) or read is None:
            errors.append("%s: %s" % (rail, read.reason if read is not None else "not read"))
            continue
        found, unread, degrees, why = _rail_problems(rail, read, expect)
        problems += found
        errors += unread
        if read["raw_ber"] is not None:
            worst_ber = max(worst_ber, read["raw_ber"])
        most_errors = max(most_errors, read["effective_errors"] or 0)
        if degrees is not None:
            hottest = degrees if hottest is None else max(hottest, degrees)
        if why:
            passive.append(rail)
    if problems:
        # a FAIL stands on what was measured; rails left unread are named beside it, never hidden
        return verdict(FAIL, expected, summary(problems) + ("; not read: %s" % summary(errors) if errors else ""))
    if errors:
        return verdict(ERROR, expected, summary(errors))
    rails = len(expect["pyramid_rails"])
    modules = "modules <= %g C" % hottest if hottest is not None else "no module temperature"
    note = " (%s passive copper: no sensor)" % ", ".join(passive) if passive else ""
    return verdict(PASS, expected, "%s: worst raw BER %s, at most %s, %s%s" % (
        counted(rails, "rail"), ber_text(worst_ber), counted(most_errors, "effective error"), modules, note))
