#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpufabric.pyramid contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# The work happens on the controller in plugins/action/discover.py; this file carries its documentation.

from __future__ import annotations

DOCUMENTATION = r"""
module: discover
short_description: A fabric plan from the fabric itself (LLDP, BGP, routes), a cabling CSV, NetBox or AVD, written for review
version_added: 0.3.0
description:
  - With O(read), on a switch, reads its LLDP neighbours, BGP sessions and BGP routes through the catalog's own
    sources (C(sw_lldp), C(sw_bgp), C(sw_routes)), with their ways and parsers for EOS, NX-OS, SONiC and Cumulus, as
    Layers 1 and 2 read them (EOS and NX-OS over C(ansible.netcommon.network_cli), SONiC and Cumulus over SSH). The
    facts are returned (register them as C(pyramid_discovery)); a source that gave no facts fails the task, naming the
    command and why.
  - Without O(read), on the controller, writes one host_vars file per switch into O(dir) -
    C(pyramid_switch_ports) (port, peer, peer_port, role C(fabric) when the peer is a switch of O(switches), else
    C(host); C(ip) where the two ends' BGP neighbours are the two addresses of one /31 or /30),
    C(pyramid_bgp_neighbors) (address, remote_as, name where that link's other end was read),
    C(pyramid_ecmp_prefixes) (a leaf's BGP routes) and C(pyramid_ecmp_paths) (its uplinks). Peers are named by the
    inventory's host names - the LLDP system name is the host's name, its C(ansible_host) or its short name; a
    neighbour matching no host goes in as LLDP names it, commented for review.
  - With O(cabling_csv), the same files from a CSV of cables (header C(switch,port,peer,peer_port), C(role) and C(ip)
    optional) instead of the switches' reads; a switch-to-switch cable listed once gives both ends their row, one
    listed from both ends keeps both rows as written (so a swapped pair stays for pre-flight to name).
  - With O(netbox_export), the same files from NetBox's REST API answers saved as files - C(cables.json)
    (C(/api/dcim/cables/?limit=0), its page or its results list, cables of NetBox 3.3 and later or of 2.x to 3.2) and
    optionally C(ip-addresses.json) (C(/api/ipam/ip-addresses/?limit=0), for the uplinks' C(ip) and their BGP neighbours) -
    keeping the cables between devices of the inventory with a switch at one end; the others are counted.
  - With O(avd_structured_config), the same files from an Arista AVD fabric's structured configs (the directory of
    C(<hostname>.yml) AVD writes), its C(ethernet_interfaces) (peer, peer_interface, ip_address) and C(router_bgp)'s
    neighbours on the planned uplinks, each switch's own end as written.
  - Nothing is written over an existing file, and the inventory is never changed.
options:
  read:
    description: Read this switch (the first step); otherwise write the plan from the switches' registered reads.
    type: bool
    default: false
  switches:
    description: The inventory's switches (write step); a peer among them is a fabric link.
    type: list
    elements: str
  leaves:
    description: The rail leaves (write step), whose BGP routes are the ECMP prefixes; empty, the switches with a host port.
    type: list
    elements: str
  dir:
    description: Where the files go (write step); a directory holding a file of the same name is refused.
    type: path
  report_dir:
    description: Without O(dir), the files go into a new C(<report_dir>/<UTC time>-<random>/discovered).
    type: path
    default: reports
  cabling_csv:
    description: A cabling CSV to write the plan from, instead of the switches' reads (write step).
    type: path
  netbox_export:
    description: A NetBox export (a directory holding C(cables.json)[, C(ip-addresses.json)], or the cables' file) to
      write the plan from, instead of the switches' reads (write step); one plan source at a time.
    type: path
  avd_structured_config:
    description: The directory of AVD's structured configs (C(<hostname>.yml)) to write the plan from, instead of the
      switches' reads (write step); one plan source at a time.
    type: path
attributes:
  check_mode:
    details: The switches are only read; the files are written on the controller, in check mode too.
extends_documentation_fragment:
  - gpufabric.pyramid.attributes
  - gpufabric.pyramid.attributes.action
"""

EXAMPLES = r"""
- name: Read every switch's LLDP, BGP and routes
  gpufabric.pyramid.discover:
    read: true
  register: pyramid_discovery

- name: Write the plan for review
  gpufabric.pyramid.discover:
    switches: "{{ groups['switches'] }}"
    leaves: "{{ groups['rail_leaves'] }}"
    dir: /tmp/pod-plan
  delegate_to: localhost
  run_once: true

- name: The plan from the cabling vendor's CSV
  gpufabric.pyramid.discover:
    switches: "{{ groups['switches'] }}"
    cabling_csv: cabling.csv
"""

RETURN = r"""
pyramid_discovered:
  description: The read step's facts by source, as the parsers give them (a source that failed as its failure).
  returned: read step
  type: dict
  sample: {"sw_lldp": {"neighbors": {"Ethernet1/1": [{"system": "node-001", "port": "ens1np0"}]}}}
files:
  description: The host_vars files written.
  returned: write step
  type: list
  elements: str
  sample: ["/srv/pyramid/reports/20261129T090000Z-a1b2c3/discovered/leaf1-r0.yml"]
dir:
  description: The directory the files went into.
  returned: write step
  type: str
failures:
  description: The switches not read (host, command, why), a CSV's, NetBox export's or AVD file's faults, or the files refused; the task fails.
  returned: write step
  type: list
  elements: str
coherence:
  description: What pre-flight will say of the written plan as a whole (both ends of a link, peers in the inventory, ECMP paths).
  returned: write step
  type: list
  elements: str
summary:
  description: One line per thing to review.
  returned: write step
  type: list
  elements: str
"""
