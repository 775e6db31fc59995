#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: schedule
short_description: Set or remove a device's recording schedule
version_added: 0.1.0
description:
  - Stores a recording schedule on a device-agent (C(PUT /api/v1/schedule)) or removes it (C(DELETE)).
    The device then records on its own, in windows of wall times or sun events, as gapless segments.
  - Idempotent. The document asked for is compared with the stored one, defaults filled in on both sides,
    so C(changed) is true only when the device's schedule changes.
extends_documentation_fragment:
  - deviceagent.fleet.agent
options:
  state:
    description: C(present) stores O(schedule); C(absent) removes any schedule (a running segment ends and is kept).
    type: str
    choices: [present, absent]
    default: present
  schedule:
    description:
      - The schedule document (C(enabled), C(location), C(timeZone), C(recording), C(windows)), as the agent's
        docs/schedule.md describes it. Required with O(state=present).
      - A wrong field fails with the agent's text, naming the field by its path.
    type: dict
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
author:
  - device-agent maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Record the dawn chorus on every device
  deviceagent.fleet.schedule:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
    schedule:
      timeZone: Europe/London
      location: {latitude: 52.2, longitude: 0.12}
      recording: {fileExtension: flac, segmentSeconds: 300}
      windows:
        - {start: sunrise-30m, end: sunrise+2h}
  delegate_to: localhost

- name: Stop recording on a schedule
  deviceagent.fleet.schedule:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
    state: absent
  delegate_to: localhost
'''

RETURN = r'''
schedule:
  description: The stored schedule with its defaults filled in (null once removed).
  returned: success
  type: dict
state:
  description: What the schedule does now (C(state), C(reason), C(window), C(next), C(lastSegment)).
  returned: success
  type: dict
'''

import copy

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.deviceagent.fleet.plugins.module_utils.agent import (
    AGENT_MUTUALLY_EXCLUSIVE, Agent, AgentError, agent_argument_spec)

PATH = '/api/v1/schedule'
RECORDING = dict(fileExtension='flac', device=None, sampleRate=48000, channels=1, segmentSeconds=300, directory='scheduled')
DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']


def filled(doc, zone):
    """The document with the agent's defaults (the device's zone for a missing timeZone)."""
    d = copy.deepcopy(doc)
    d.setdefault('enabled', True)
    d['location'] = d.get('location')
    if d.get('timeZone') is None:
        d['timeZone'] = zone
    rec = dict(RECORDING)
    rec.update(d.get('recording') or {})
    d['recording'] = rec
    windows = []
    for w in d.get('windows') or []:
        w = dict(w)
        w['days'] = sorted(set(w.get('days') or DAYS), key=DAYS.index)
        w['dates'] = w.get('dates')
        w['duty'] = w.get('duty')
        windows.append(w)
    d['windows'] = windows
    return d


def main():
    argument_spec = agent_argument_spec()
    argument_spec.update(
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        schedule=dict(type='dict'),
    )
    module = AnsibleModule(argument_spec=argument_spec, mutually_exclusive=AGENT_MUTUALLY_EXCLUSIVE,
                           required_if=[('state', 'present', ['schedule'])], supports_check_mode=True)
    p = module.params
    agent = Agent(module)
    try:
        _, current = agent.json('GET', PATH)
        stored = current['schedule']
        if p['state'] == 'absent':
            if stored is None:
                module.exit_json(changed=False, schedule=None, state=current['state'])
            if not module.check_mode:
                agent.open('DELETE', PATH)
                _, current = agent.json('GET', PATH)
            module.exit_json(changed=True, schedule=None, state=current['state'])
        zone = stored['timeZone'] if stored else None
        if stored is not None and filled(p['schedule'], zone) == filled(stored, zone):
            module.exit_json(changed=False, schedule=stored, state=current['state'])
        if module.check_mode:
            module.exit_json(changed=True, schedule=stored, state=current['state'])
        _, answer = agent.json('PUT', PATH, body=p['schedule'])
        module.exit_json(changed=True, schedule=answer['schedule'], state=answer['state'])
    except AgentError as err:
        module.fail_json(msg=err.message, http_status=err.status)


if __name__ == '__main__':
    main()
