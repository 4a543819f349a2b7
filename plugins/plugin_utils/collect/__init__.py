# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Collect stage: a switch's commands over network_cli (cli.py). A host's commands run in the collect module
(plugins/modules/collect.py); the runner calls both (run/ansible_collect.py)."""
