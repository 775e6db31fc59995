# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)
"""The connection options every deviceagent.fleet module takes."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r'''
options:
  url:
    description:
      - Base URL of the device's agent, for example C(https://cam-01.local:5050).
      - "The module runs where Ansible runs it; use C(connection: local) or C(delegate_to: localhost)
        so the controller makes the HTTP calls and the device needs no Python."
    type: str
    required: true
  token:
    description:
      - "The credential sent as C(Authorization: Bearer), an API token (C(dat_...)) or a login token."
      - An API token needs the scopes of what the module does (C(status), C(audio), C(files:read),
        C(files:write)); the token module needs a login token or an API token with C(admin).
    type: str
    required: true
  pin:
    description:
      - Trust the device by its public key alone, C(sha256//<base64>), as C(device-agent tls show) prints it
        (curl's C(--pinnedpubkey) form). The key of the agent's self-signed certificate survives its renewals.
      - Checked on the connection that carries the request, before anything is sent; a different key fails
        the task, naming both pins.
      - Mutually exclusive with I(ca_path). Without either, an C(https) URL is checked against the system CAs.
    type: str
  ca_path:
    description:
      - PEM file of the CA (or the certificate itself) that vouches for the device's certificate.
    type: path
  client_cert:
    description:
      - PEM client certificate, for an agent that requires one (C(tls.clientCaFile)).
    type: path
  client_key:
    description:
      - PEM private key of I(client_cert).
    type: path
  timeout:
    description:
      - Seconds to wait for each HTTP answer.
    type: int
    default: 30
notes:
  - Runs against the agent's HTTP API; C(check_mode) makes no change on the device or the controller.
'''
