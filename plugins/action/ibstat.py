# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ibstat on the host, parsed on the controller."""

from __future__ import annotations

from ansible_collections.gpufabric.pyramid.plugins.plugin_utils.run.ansible_collect import SourceFactsAction


class ActionModule(SourceFactsAction):
    SOURCES = ("ibstat",)
