# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers every parser module shares."""

from __future__ import annotations


def fail(msg, *args):
    """Output the parser cannot read completely: parse() names the parser."""
    raise ValueError(msg % args if args else msg)


def reject_other(rows, what=None):
    """A template's catch-all OTHER row is a line the parser does not know: never skip it silently."""
    for row in rows:
        if row.get("other"):
            raise ValueError("unexpected line %r%s" % (row["other"], ": not %s" % what if what else ""))


def number(text):
    """"400" -> 400, "12.5" -> 12.5."""
    value = float(text)
    return int(value) if value.is_integer() else value


def distinct(items):
    return list(dict.fromkeys(items))
