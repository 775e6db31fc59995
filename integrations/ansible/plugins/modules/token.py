#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: token
short_description: Create and revoke API tokens on a device, by name
version_added: 0.1.0
description:
  - Makes sure an API token of a given name exists (C(POST /api/v1/tokens)) or does not
    (C(DELETE /api/v1/tokens/{id})). A token's name is unique per user.
  - The token's text exists only in the answer that creates it, so it is returned only then. The task's
    output is then hidden as with C(no_log) (the collection's action plugin marks the result); C(register)
    still gives it to later tasks. Store it somewhere safe at once (a vault, a file of mode 0600).
  - An existing token is never changed (the agent cannot change a token's rights); with other
    I(scopes) the module warns. To change them, revoke (I(state=absent)) and create again.
  - I(token) must be a login token or an API token with scope C(admin).
extends_documentation_fragment:
  - deviceagent.fleet.agent
options:
  name:
    description:
      - The token's name, 1 to 64 of C([A-Za-z0-9._@-]).
    type: str
    required: true
  state:
    description:
      - Whether the token should exist.
    type: str
    choices: [present, absent]
    default: present
  scopes:
    description:
      - Scopes of a new token (C(status), C(files:read), C(files:write), C(audio), C(metrics), C(admin));
        the caller's own when omitted. Never more than its user has.
    type: list
    elements: str
  directory:
    description:
      - Limit a new token to this directory, relative to the files directory.
    type: str
  expires_in_days:
    description:
      - Lifetime of a new token in days (1 to 3650); the agent's default (365) when omitted.
    type: int
  never_expires:
    description:
      - A new token that never expires.
    type: bool
    default: false
  username:
    description:
      - Whose token. Needed with an C(admin) credential, which sees every user's tokens; an admin may also
        create tokens for another user this way.
    type: str
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
    details: Lists tokens, creates and revokes none.
author:
  - device-agent maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: A token for Prometheus-style scripts, created once per device
  deviceagent.fleet.token:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ login_token }}"
    pin: "{{ device_agent_pin }}"
    name: fleet-reader
    username: admin
    scopes: [status, files:read]
    expires_in_days: 90
  delegate_to: localhost
  register: reader

- name: Keep the new token on the controller (only on the run that created it)
  ansible.builtin.copy:
    content: "{{ reader.token }}"
    dest: "tokens/{{ inventory_hostname }}.token"
    mode: '0600'
  delegate_to: localhost
  no_log: true
  when: reader.token is defined

- name: Revoke it
  deviceagent.fleet.token:
    url: "https://{{ inventory_hostname }}:5050"
    token: "{{ login_token }}"
    name: fleet-reader
    username: admin
    state: absent
  delegate_to: localhost
'''

RETURN = r'''
token:
  description: The new token's text (C(dat_...)). The task's output is hidden when it is returned.
  returned: only when the token was created (not in check mode)
  type: str
record:
  description: The token's record (never its text).
  returned: when the token exists after the task, except a creation in check mode
  type: dict
  contains:
    id:
      description: The token's id (what C(device-agent token revoke) also takes).
      type: str
    name:
      description: The token's name.
      type: str
    username:
      description: Its user.
      type: str
    scopes:
      description: Its scopes.
      type: list
      elements: str
    directory:
      description: Its directory, or null.
      type: str
    expiresAt:
      description: When it expires (ISO 8601), or null.
      type: str
  sample:
    id: 3f1c2a
    name: fleet-reader
    username: admin
    scopes: [status, files:read]
    directory: null
    expiresAt: "2027-02-24T07:30:00.000Z"
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.deviceagent.fleet.plugins.module_utils.agent import (
    AGENT_MUTUALLY_EXCLUSIVE, Agent, AgentError, agent_argument_spec)

TOKENS = '/api/v1/tokens'


def find(module, agent):
    name = module.params['name']
    user = module.params['username']
    _, listing = agent.json('GET', TOKENS)
    found = [t for t in listing['tokens'] if t['name'] == name and (user is None or t['username'] == user)]
    if len(found) > 1:
        module.fail_json(msg='tokens named %s exist for %s: set username' % (name, ', '.join(sorted(t['username'] for t in found))))
    return found[0] if found else None


def main():
    argument_spec = agent_argument_spec()
    argument_spec.update(
        name=dict(type='str', required=True),
        state=dict(type='str', choices=['present', 'absent'], default='present'),
        scopes=dict(type='list', elements='str'),
        directory=dict(type='str'),
        expires_in_days=dict(type='int'),
        never_expires=dict(type='bool', default=False),
        username=dict(type='str'),
    )
    module = AnsibleModule(argument_spec=argument_spec,
                           mutually_exclusive=AGENT_MUTUALLY_EXCLUSIVE + [('expires_in_days', 'never_expires')],
                           supports_check_mode=True)
    p = module.params
    agent = Agent(module)
    try:
        existing = find(module, agent)
        if p['state'] == 'absent':
            if existing is None:
                module.exit_json(changed=False)
            if not module.check_mode:
                agent.open('DELETE', '%s/%s' % (TOKENS, existing['id']))
            module.exit_json(changed=True)
        if existing is not None:
            if p['scopes'] is not None and sorted(p['scopes']) != sorted(existing['scopes']):
                module.warn('token %s exists with scopes %s, not %s: it is left as it is'
                            % (p['name'], ','.join(existing['scopes']), ','.join(p['scopes'])))
            module.exit_json(changed=False, record=existing)
        if module.check_mode:
            module.exit_json(changed=True)
        body = dict(name=p['name'])
        for key, field in (('scopes', 'scopes'), ('directory', 'directory'),
                           ('expires_in_days', 'expiresInDays'), ('username', 'username')):
            if p[key] is not None:
                body[field] = p[key]
        if p['never_expires']:
            body['expiresInDays'] = None
        _, created = agent.json('POST', TOKENS, body=body)
        text = created.pop('token')
        module.exit_json(changed=True, record=created, token=text)
    except AgentError as err:
        module.fail_json(msg=err.message, http_status=err.status)


if __name__ == '__main__':
    main()
