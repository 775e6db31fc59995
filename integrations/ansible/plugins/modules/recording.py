#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: recording
short_description: Record audio on a device, wait for it, fetch the file
version_added: 0.1.0
description:
  - Starts a recording on the device (C(POST /api/v1/audiofiles/audiorecordstart)), optionally waits
    until it has finished and downloads its file to the machine the module runs on.
  - With I(state=stopped), ends the running recording now (its file is kept, complete and playable).
  - Starting is an action, not a state to converge to, so a start always reports C(changed).
    A stop reports C(changed) only when a recording was running.
extends_documentation_fragment:
  - deviceagent.fleet.agent
options:
  state:
    description:
      - C(started) starts a recording; C(stopped) ends the running one.
    type: str
    choices: [started, stopped]
    default: started
  duration:
    description:
      - Length in seconds (more than 0, at most the agent's C(audio.maxDurationSeconds)). Required to start.
    type: float
  format:
    description:
      - File format of the recording.
    type: str
    choices: [flac, wav, mp3]
    default: flac
  device:
    description:
      - ALSA capture device id; the agent's C(audio.device) when omitted.
    type: str
  wait:
    description:
      - Wait until the recording has finished (or failed) and return its final record.
    type: bool
    default: false
  wait_timeout:
    description:
      - Seconds to wait for the end of the recording; I(duration) plus 60 when omitted.
    type: int
  dest:
    description:
      - Download the finished recording to this path on the machine the module runs on (implies I(wait)).
        A directory (an existing one, or a path ending in C(/)) receives the file under its name on the device.
    type: path
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Nothing is started, stopped or downloaded; the result says what would be done.
author:
  - device-agent maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Record 10 s of flac on every device and collect the files
  deviceagent.fleet.recording:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
    duration: 10
    format: flac
    dest: "recordings/{{ inventory_hostname }}/"
  delegate_to: localhost

- name: Stop whatever is recording
  deviceagent.fleet.recording:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    ca_path: /etc/ssl/fleet-ca.pem
    state: stopped
  delegate_to: localhost
'''

RETURN = r'''
recording:
  description: The recording's status record; with I(wait) or I(dest), the final one.
  returned: success, except in check mode
  type: dict
  contains:
    state:
      description: idle, recording, finished or failed.
      type: str
    file:
      description: The file, relative to the agent's files directory (what the file module's I(path) takes).
      type: str
    sizeBytes:
      description: Size of the file.
      type: int
    durationSeconds:
      description: Length actually recorded.
      type: float
    error:
      description: Why the recording failed, or null.
      type: str
  sample:
    state: finished
    file: recordings/2026-11-26T07-30-00Z.flac
    fileExtension: flac
    durationSeconds: 10
    sizeBytes: 483210
dest:
  description: Where the file was written.
  returned: when I(dest) is given and not in check mode
  type: str
  sample: recordings/cam-01/2026-11-26T07-30-00Z.flac
sha256:
  description: SHA-256 of the downloaded file.
  returned: when I(dest) is given and not in check mode
  type: str
'''

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.deviceagent.fleet.plugins.module_utils.agent import (
    AGENT_MUTUALLY_EXCLUSIVE, Agent, AgentError, agent_argument_spec)

STATUS = '/api/v1/audiofiles/audiorecordstatus'
POLL_SECONDS = 0.5


def wait_for_end(agent, timeout):
    deadline = time.time() + timeout
    while True:
        _, record = agent.json('GET', STATUS)
        if record['state'] in ('finished', 'failed'):
            return record
        if time.time() > deadline:
            raise AgentError(None, 'the recording has not finished after %d s (state %s)' % (timeout, record['state']))
        time.sleep(POLL_SECONDS)


def fetch(module, agent, record):
    dest = module.params['dest']
    if dest.endswith('/') or os.path.isdir(dest):
        if not os.path.isdir(dest):
            os.makedirs(dest)
        dest = os.path.join(dest, os.path.basename(record['file']))
    digest, tmp = agent.download(record['file'], dest=dest, size=record.get('sizeBytes'))
    module.atomic_move(tmp, dest)
    return dest, digest


def main():
    argument_spec = agent_argument_spec()
    argument_spec.update(
        state=dict(type='str', choices=['started', 'stopped'], default='started'),
        duration=dict(type='float'),
        format=dict(type='str', choices=['flac', 'wav', 'mp3'], default='flac'),
        device=dict(type='str'),
        wait=dict(type='bool', default=False),
        wait_timeout=dict(type='int'),
        dest=dict(type='path'),
    )
    module = AnsibleModule(argument_spec=argument_spec, mutually_exclusive=AGENT_MUTUALLY_EXCLUSIVE,
                           required_if=[('state', 'started', ('duration',))], supports_check_mode=True)
    p = module.params
    agent = Agent(module)
    try:
        if p['state'] == 'stopped':
            _, current = agent.json('GET', STATUS)
            if current['state'] != 'recording':
                module.exit_json(changed=False, recording=current)
            if module.check_mode:
                module.exit_json(changed=True, recording=current)
            try:
                _, record = agent.json('POST', '/api/v1/audiofiles/audiorecordstop')
            except AgentError as err:
                if err.status != 409:  # it ended on its own meanwhile
                    raise
                _, record = agent.json('GET', STATUS)
                module.exit_json(changed=False, recording=record)
            module.exit_json(changed=True, recording=record)

        if module.check_mode:
            module.exit_json(changed=True, msg='would start a %s s %s recording' % (p['duration'], p['format']))
        body = dict(duration=p['duration'], fileExtension=p['format'])
        if p['device']:
            body['device'] = p['device']
        _, record = agent.json('POST', '/api/v1/audiofiles/audiorecordstart', body=body)
        result = dict(changed=True, recording=record)
        if p['wait'] or p['dest']:
            timeout = p['wait_timeout'] if p['wait_timeout'] is not None else int(p['duration']) + 60
            record = result['recording'] = wait_for_end(agent, timeout)
            if record['state'] == 'failed':
                module.fail_json(msg='the recording failed: %s' % record.get('error'), **result)
            if p['dest']:
                result['dest'], result['sha256'] = fetch(module, agent, record)
        module.exit_json(**result)
    except AgentError as err:
        module.fail_json(msg=err.message, http_status=err.status)


if __name__ == '__main__':
    main()
