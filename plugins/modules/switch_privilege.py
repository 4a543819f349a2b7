#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/switch_privilege.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: switch_privilege
short_description: Ask a switch one harmless read that needs privileged (enable) mode, before any host is touched
version_added: 0.4.0
description:
  - Sends O(command) (the first catalog way marked C(privileged) that the switch's checks will ask in this run, which
    M(gpufabric.pyramid.preflight) returns as C(pyramid_privilege_probes)) through the switch's network_cli connection,
    the path its checks use, and closes the session.
  - Never fails itself. RV(problem) names a login the switch refuses the read (EOS's
    C(% Invalid input (privileged mode required))) or an enable secret network_cli could not use, with the fix.
    validate.yml's pre-flight play stops the run once, naming every such switch.
  - A switch that cannot be reached, or a read that times out, is not this problem (RV(problem) empty); its checks
    say so at their layer.
  - A host not reached through network_cli is skipped (SONiC and Cumulus reads run as the SSH login).
options:
  command:
    description: The command line to ask, placeholders filled.
    type: str
    required: true
  group:
    description: The inventory group where the switch's connection variables are set, named in the fix.
    type: str
attributes:
  check_mode:
    details: A read only; it runs in check mode too, as pre-flight does.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Try one privileged read on each switch whose checks need privileged (enable) mode
  gpufabric.pyramid.switch_privilege:
    command: "{{ hostvars['localhost']['pyramid_privilege_probes'][inventory_hostname]['command'] }}"
    group: "{{ hostvars['localhost']['pyramid_privilege_probes'][inventory_hostname]['group'] }}"
  when: inventory_hostname in (hostvars['localhost']['pyramid_privilege_probes'] | default({}))
  register: pyramid_privilege_read
"""

RETURN = r"""
problem:
  description: The switch, its group, the command, the switch's answer and the fix; empty where the read went through
    or the switch could not be reached.
  returned: always
  type: str
  sample: >-
    leaf1-r0 (rail_leaves): its login lacks the privilege its reads need: `show running-config interfaces Ethernet1/1`
    answered "% Invalid input (privileged mode required)"; set ansible_become: true, ansible_become_method: enable and
    ansible_become_password (the enable secret) for rail_leaves
command:
  description: The command asked.
  returned: when the switch is reached through network_cli
  type: str
msg:
  description: One-line summary.
  returned: always
  type: str
"""
