#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: status
short_description: Read a device's status from its agent
version_added: 0.1.0
description:
  - Reads C(GET /api/v1/devicestatus/get) of a device-agent (hostname, distribution, CPU, memory, disk,
    network, the agent's version and the recording state). Never changes anything.
extends_documentation_fragment:
  - deviceagent.fleet.agent
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: It only reads.
author:
  - device-agent maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Status of every device
  deviceagent.fleet.status:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
  delegate_to: localhost
  register: st

- name: Warn about full disks
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }}: {{ (st.status.disk.availableBytes / 1048576) | int }} MiB free"
  when: st.status.disk.availableBytes < 1073741824
'''

RETURN = r'''
status:
  description: The device status record, as the API returns it.
  returned: success
  type: dict
  contains:
    hostname:
      description: The device's hostname.
      type: str
    distro:
      description: The distribution's name.
      type: str
    cpu:
      description: C(model), C(cores), C(loadPercent), C(temperatureCelsius) (null where unknown).
      type: dict
    memory:
      description: C(totalBytes), C(usedBytes), C(availableBytes).
      type: dict
    disk:
      description: C(path), C(totalBytes), C(usedBytes), C(availableBytes) of the file system of the files directory.
      type: dict
    agent:
      description: C(version) and C(uptimeSeconds) of the agent.
      type: dict
    recording:
      description: C(state) of the recorder (idle, recording, finished, failed).
      type: dict
  sample:
    hostname: cam-01
    agent:
      version: 0.1.0
      uptimeSeconds: 86400
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.deviceagent.fleet.plugins.module_utils.agent import (
    AGENT_MUTUALLY_EXCLUSIVE, Agent, AgentError, agent_argument_spec)


def main():
    module = AnsibleModule(argument_spec=agent_argument_spec(), mutually_exclusive=AGENT_MUTUALLY_EXCLUSIVE,
                           supports_check_mode=True)
    try:
        _, status = Agent(module).json('GET', '/api/v1/devicestatus/get')
    except AgentError as err:
        module.fail_json(msg=err.message, http_status=err.status)
    module.exit_json(changed=False, status=status)


if __name__ == '__main__':
    main()
