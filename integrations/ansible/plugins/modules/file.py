#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: file
short_description: Upload, fetch, delete files and make directories on a device
version_added: 0.1.0
description:
  - Manages a file or directory in the agent's files directory (paths are relative to it), idempotently
    - C(changed) only when something changed, on the device or, for I(state=fetched), on the machine the module runs on.
  - I(state=present) uploads I(src) unless the device already holds the same content. The module lists the
    parent directory (C(GET /api/v1/files/list)) for the remote size; only when it equals the local size does it
    download the remote file to compare SHA-256 (streamed, nothing written). So an unchanged file costs one
    download, a changed one usually none. The agent stores an upload atomically.
  - I(state=fetched) downloads I(path) to I(dest); an identical I(dest) is left untouched.
  - I(state=absent) deletes (C(DELETE /api/v1/files)); I(state=directory) makes a directory and its parents
    (C(POST /api/v1/files/mkdir)).
extends_documentation_fragment:
  - deviceagent.fleet.agent
options:
  path:
    description:
      - Path on the device, relative to the agent's files directory.
    type: str
    required: true
  state:
    description:
      - What I(path) should be.
    type: str
    choices: [present, fetched, absent, directory]
    default: present
  src:
    description:
      - Local file to upload (I(state=present)). Its parent directory on the device must exist.
    type: path
  dest:
    description:
      - Local destination of I(state=fetched); a directory receives the file under its name on the device.
    type: path
  recursive:
    description:
      - With I(state=absent), delete a directory with everything in it (else a non-empty directory fails).
    type: bool
    default: false
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Reads (lists, and downloads to compare) but writes nothing; C(changed) says what would change.
author:
  - device-agent maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Ship a calibration file to every device
  deviceagent.fleet.file:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
    path: config/calibration.json
    src: files/calibration.json
  delegate_to: localhost

- name: Collect a log
  deviceagent.fleet.file:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    pin: "{{ device_agent_pin }}"
    path: logs/today.txt
    state: fetched
    dest: "collected/{{ inventory_hostname }}/"
  delegate_to: localhost

- name: Make a directory
  deviceagent.fleet.file:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    path: incoming/2026
    state: directory
  delegate_to: localhost

- name: Remove old recordings
  deviceagent.fleet.file:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ device_agent_token }}"
    path: recordings/old
    state: absent
    recursive: true
  delegate_to: localhost
'''

RETURN = r'''
path:
  description: The path on the device.
  returned: always
  type: str
  sample: config/calibration.json
size:
  description: Size in bytes of the file uploaded or fetched.
  returned: when I(state) is C(present) or C(fetched)
  type: int
  sample: 2048
sha256:
  description: SHA-256 of the file uploaded or fetched.
  returned: when I(state) is C(present) or C(fetched)
  type: str
dest:
  description: The local file written (or that would be) by I(state=fetched).
  returned: when I(state=fetched)
  type: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.deviceagent.fleet.plugins.module_utils.agent import (
    AGENT_MUTUALLY_EXCLUSIVE, Agent, AgentError, agent_argument_spec, file_sha256)


def require_file(entry, path):
    if entry is None:
        raise AgentError(404, 'file not found at %s' % path)
    if entry['type'] != 'file':
        raise AgentError(400, '%s is a directory and not a file' % path)


def present(module, agent, path):
    src = module.params['src']
    if not os.path.isfile(src):
        module.fail_json(msg='src %s is not a file' % src)
    size = os.path.getsize(src)
    digest = file_sha256(src)
    result = dict(path=path, size=size, sha256=digest)
    entry = agent.stat(path)
    if entry is not None and entry['type'] == 'directory':
        raise AgentError(400, '%s is a directory on the device' % path)
    if entry is not None and entry['sizeBytes'] == size and agent.download(path, size=size)[0] == digest:
        return dict(result, changed=False)
    if not module.check_mode:
        agent.upload(src, path)
    return dict(result, changed=True)


def fetched(module, agent, path):
    dest = module.params['dest']
    entry = agent.stat(path)
    require_file(entry, path)
    if dest.endswith('/') or os.path.isdir(dest):
        dest = os.path.join(dest, os.path.basename(path))
    size = entry['sizeBytes']
    same_size = os.path.isfile(dest) and os.path.getsize(dest) == size
    if module.check_mode:
        digest = agent.download(path, size=size)[0] if same_size else None
        changed = not same_size or digest != file_sha256(dest)
        return dict(changed=changed, path=path, dest=dest, size=size, sha256=digest)
    parent = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(parent):
        os.makedirs(parent)
    digest, tmp = agent.download(path, dest=dest, size=size)
    if same_size and file_sha256(dest) == digest:
        os.unlink(tmp)
        return dict(changed=False, path=path, dest=dest, size=size, sha256=digest)
    module.atomic_move(tmp, dest)
    return dict(changed=True, path=path, dest=dest, size=size, sha256=digest)


def absent(module, agent, path):
    if module.check_mode:
        return dict(changed=agent.stat(path) is not None, path=path)
    query = dict(path=path)
    if module.params['recursive']:
        query['recursive'] = 'true'
    try:
        agent.open('DELETE', '/api/v1/files', query=query)
    except AgentError as err:
        # The agent's own "file not found at <path>", not a 404 of a route an older agent lacks.
        if err.status == 404 and 'file not found at' in err.message:
            return dict(changed=False, path=path)
        raise
    return dict(changed=True, path=path)


def directory(module, agent, path):
    if module.check_mode:
        entry = agent.stat(path)
        if entry is not None and entry['type'] != 'directory':
            raise AgentError(409, '%s exists and is not a directory' % path)
        return dict(changed=entry is None, path=path)
    status, _ = agent.json('POST', '/api/v1/files/mkdir', body=dict(path=path))
    return dict(changed=status == 201, path=path)


def main():
    argument_spec = agent_argument_spec()
    argument_spec.update(
        path=dict(type='str', required=True),
        state=dict(type='str', choices=['present', 'fetched', 'absent', 'directory'], default='present'),
        src=dict(type='path'),
        dest=dict(type='path'),
        recursive=dict(type='bool', default=False),
    )
    module = AnsibleModule(argument_spec=argument_spec, mutually_exclusive=AGENT_MUTUALLY_EXCLUSIVE,
                           required_if=[('state', 'present', ('src',)), ('state', 'fetched', ('dest',))],
                           supports_check_mode=True)
    path = module.params['path'].strip('/')
    agent = Agent(module)
    action = dict(present=present, fetched=fetched, absent=absent, directory=directory)[module.params['state']]
    try:
        module.exit_json(**action(module, agent, path))
    except AgentError as err:
        module.fail_json(msg=err.message, http_status=err.status, path=path)


if __name__ == '__main__':
    main()
