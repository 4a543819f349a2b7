# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's progress callback, loaded by the playbooks beside it without any ansible.cfg setting.

Ansible loads the callback plugins of a playbook's own ``callback_plugins/`` directory, and one that does not need
enabling runs at once: so validate.yml, remediate.yml and plan.yml print their progress, findings and checklist lines
for a collection installed anywhere, run from a checkout or by FQCN, under AWX too. Where gpufabric.pyramid.progress
is enabled in the configuration as well, this copy stands aside (every line once).
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: pyramid_progress
type: aggregate
short_description: gpufabric.pyramid.progress, loaded by the collection's playbooks themselves
description:
  - The callback C(gpufabric.pyramid.progress) (see its documentation), enabled by the playbooks beside this
    directory; it stands aside where C(gpufabric.pyramid.progress) is enabled in the configuration.
extends_documentation_fragment:
  - gpufabric.pyramid.progress
"""

from ansible import constants as C
from ansible_collections.gpufabric.pyramid.plugins.callback.progress import CallbackModule as Progress

COLLECTION_CALLBACK = "gpufabric.pyramid.progress"


class CallbackModule(Progress):
    CALLBACK_NAME = "pyramid_progress"
    CALLBACK_NEEDS_ENABLED = False

    def __init__(self, display=None):
        super().__init__(display=display)
        # the configured one prints every line already: ansible-core calls no plugin whose `disabled` is set
        self.disabled = COLLECTION_CALLBACK in (C.CALLBACKS_ENABLED or [])
