# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Secrets stay out of what a run writes: an expectation such as ``pyramid_nccl_env`` may carry a token
(NCCL_NET_PLUGIN_TOKEN, an API key for a network plugin); every results file, report and run log
shows such a value as MASK. A name looks secret when it contains one of SECRET_WORDS."""

from __future__ import annotations

import re

MASK = "********"
SECRET_WORDS = ("TOKEN", "KEY", "PASSWORD", "PASSWD", "SECRET", "CREDENTIAL")
_SECRET_NAME = re.compile("|".join(SECRET_WORDS), re.I)
# NAME=value in a command line or an environment listing; the value ends at whitespace or a quote
_ASSIGNMENT = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=([^\s'\"]+)")


def looks_secret(name):
    return bool(_SECRET_NAME.search(str(name)))


def mask_text(text):
    """NAME=value with a secret-looking NAME, value masked; the rest of the text as it is."""
    if not isinstance(text, str):
        return text
    return _ASSIGNMENT.sub(lambda m: "%s=%s" % (m.group(1), MASK) if looks_secret(m.group(1)) else m.group(0), text)


def mask_values(value):
    """A copy of expectations (dicts, lists, scalars) with the value of every secret-looking key masked,
    and NAME=value assignments in strings masked too."""
    if isinstance(value, dict):
        return {key: MASK if looks_secret(key) and not isinstance(value[key], (dict, list)) else mask_values(value[key])
                for key in value}
    if isinstance(value, list):
        return [mask_values(item) for item in value]
    return mask_text(value)
