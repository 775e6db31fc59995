# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)
"""The HTTP calls every deviceagent.fleet module makes: bearer credential, trust by SPKI pin or CA file."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import base64
import contextlib
import hashlib
import json
import os
import ssl
import tempfile

from ansible.module_utils import urls
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
from ansible.module_utils.six.moves.urllib.parse import urlencode

CHUNK = 65536


def agent_argument_spec():
    """The options every module takes (documented in the deviceagent.fleet.agent doc fragment)."""
    return dict(
        url=dict(type='str', required=True),
        token=dict(type='str', required=True, no_log=True),
        pin=dict(type='str'),
        ca_path=dict(type='path'),
        client_cert=dict(type='path'),
        client_key=dict(type='path', no_log=False),
        timeout=dict(type='int', default=30),
    )


AGENT_MUTUALLY_EXCLUSIVE = [('pin', 'ca_path')]


def _der_element(data, pos):
    """(start of contents, end) of the DER element at pos (definite lengths only, as DER has)."""
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        length = 0
        for byte in data[pos:pos + count]:
            length = (length << 8) | byte
        pos += count
    return pos, pos + length


def spki_of_certificate(der):
    """The DER SubjectPublicKeyInfo of a DER certificate (RFC 5280, 4.1), its bytes as they are."""
    data = bytearray(der)
    start, _ = _der_element(data, 0)  # Certificate
    pos, _ = _der_element(data, start)  # tbsCertificate
    if data[pos] == 0xA0:  # [0] version, absent in v1 certificates
        pos = _der_element(data, pos)[1]
    for _ in range(5):  # serialNumber, signature, issuer, validity, subject
        pos = _der_element(data, pos)[1]
    return bytes(data[pos:_der_element(data, pos)[1]])


def spki_pin(der):
    """The pin of a certificate as curl's --pinnedpubkey and `device-agent tls show` write it."""
    digest = hashlib.sha256(spki_of_certificate(der)).digest()
    return 'sha256//' + to_text(base64.b64encode(digest))


class PinMismatch(ssl.SSLError):
    """The device's key is not the pinned one: raised inside the handshake, before any request is sent."""


class PinnedContext(ssl.SSLContext):
    """Trusts exactly one public key (the device's certificate is self-signed, so no CA vouches for it).

    The check runs on the connection that then carries the request, right after the handshake:
    a check on a connection of its own would leave a second one open to a man in the middle.
    """

    pin = None

    def wrap_socket(self, sock, *args, **kwargs):
        tls = super(PinnedContext, self).wrap_socket(sock, *args, **kwargs)
        got = spki_pin(tls.getpeercert(binary_form=True))
        if got != self.pin:
            tls.close()
            raise PinMismatch('the device presents the public key %s, not the pinned %s' % (got, self.pin))
        return tls


def pinned_context(pin):
    context = PinnedContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # the pin names the key; a name in the certificate adds nothing
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.pin = pin
    return context


@contextlib.contextmanager
def _context_of(pin):
    """open_url builds its SSL context with urls.make_context and takes none from its caller
    (ansible-core 2.14); with a pin, that one call returns the pinning context instead."""
    if not pin:
        yield
        return
    original = urls.make_context
    urls.make_context = lambda *args, **kwargs: pinned_context(pin)
    try:
        yield
    finally:
        urls.make_context = original


class AgentError(Exception):
    def __init__(self, status, message):
        super(AgentError, self).__init__(message)
        self.status = status
        self.message = message


class Agent(object):
    """One device's API, for one module run."""

    def __init__(self, module):
        self.module = module
        params = module.params
        self.base = params['url'].rstrip('/')
        self.token = params['token']
        self.pin = params.get('pin')
        if self.pin and not self.pin.startswith('sha256//'):
            module.fail_json(msg='pin must be sha256//<base64>, as device-agent tls show prints it')
        # Plain HTTP has no key to check: a pin or CA there would protect nothing while the token travels in clear.
        if (self.pin or params.get('ca_path')) and not self.base.lower().startswith('https://'):
            module.fail_json(msg='pin and ca_path need an https:// url, not %s' % self.base)

    def open(self, method, path, query=None, body=None, data=None, headers=None):
        """The response of a 2xx answer; AgentError for any other, with the API's error text."""
        url = self.base + path + ('?' + urlencode(query) if query else '')
        all_headers = {'Authorization': 'Bearer ' + self.token, 'Accept': 'application/json'}
        if body is not None:
            data = json.dumps(body)
            all_headers['Content-Type'] = 'application/json'
        all_headers.update(headers or {})
        params = self.module.params
        try:
            with _context_of(self.pin):
                return urls.open_url(
                    url, data=data, headers=all_headers, method=method, timeout=params['timeout'],
                    validate_certs=True, ca_path=params.get('ca_path'), client_cert=params.get('client_cert'),
                    client_key=params.get('client_key'), use_proxy=True, http_agent='deviceagent.fleet',
                    # A redirect (plainHttp "redirect") would carry the token to where Location says: never follow.
                    follow_redirects='none', use_netrc=False)
        except HTTPError as err:
            raise AgentError(err.code, '%s %s: %d %s' % (method, path, err.code, self._error_text(err)))
        except URLError as err:
            if isinstance(err.reason, PinMismatch):
                raise AgentError(None, '%s: %s' % (self.base, err.reason.args[0]))
            raise AgentError(None, 'could not reach %s: %s' % (self.base, to_native(err.reason)))
        except ssl.SSLError as err:
            raise AgentError(None, 'TLS with %s failed: %s' % (self.base, to_native(err)))
        except (OSError, IOError) as err:
            raise AgentError(None, 'could not reach %s: %s' % (self.base, to_native(err)))

    @staticmethod
    def _error_text(err):
        if 300 <= err.code < 400:
            return 'redirected to %s (use that URL)' % err.headers.get('Location')
        try:
            return json.loads(to_text(err.read()))['error']
        except Exception:  # not the agent's JSON (a proxy, another server): its reason phrase says enough
            return to_native(err.msg)

    def json(self, method, path, query=None, body=None, missing_ok=False):
        """(status, parsed body or None). With missing_ok, a 404 is (404, None) rather than an error."""
        try:
            response = self.open(method, path, query=query, body=body)
        except AgentError as err:
            if missing_ok and err.status == 404:
                return 404, None
            raise
        text = response.read()
        return response.getcode(), (json.loads(to_text(text)) if text else None)

    def stat(self, path):
        """The listing entry of a remote path ({name, type, sizeBytes, modifiedAt}) or None when absent."""
        path = path.strip('/')
        parent, _, name = path.rpartition('/')
        try:
            _, listing = self.json('GET', '/api/v1/files/list', query={'path': parent})
        except AgentError as err:
            if err.status == 404:
                return None
            raise
        for entry in listing['entries']:
            if entry['name'] == name:
                return entry
        return None

    def download(self, path, dest=None, size=None):
        """sha256 of a remote file, streamed; with dest, also written to a temp file beside it (returned)."""
        digest = hashlib.sha256()
        if size == 0:  # the download route refuses an empty file (412 file is empty): its content is known
            chunks = []
            response = None
        else:
            response = self.open('GET', '/api/download', query={'filepath': path})
            chunks = iter(lambda: response.read(CHUNK), b'')
        tmp = None
        out = None
        if dest:
            fd, tmp = tempfile.mkstemp(prefix='.deviceagent-', dir=os.path.dirname(os.path.abspath(dest)))
            out = os.fdopen(fd, 'wb')
        try:
            for chunk in chunks:
                digest.update(chunk)
                if out:
                    out.write(chunk)
        except Exception:
            if tmp:
                out.close()
                os.unlink(tmp)
            raise
        if out:
            out.close()
        return digest.hexdigest(), tmp

    def upload(self, local, path):
        """Stores a local file at the remote path (the agent writes it atomically)."""
        boundary = 'deviceagent-' + hashlib.sha256(os.urandom(16)).hexdigest()[:32]
        name = os.path.basename(path).replace('"', '%22')
        with open(local, 'rb') as f:
            content = f.read()
        body = b''.join([
            b'--', to_bytes(boundary), b'\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\n',
            to_bytes(path), b'\r\n--', to_bytes(boundary),
            b'\r\nContent-Disposition: form-data; name="myFile"; filename="', to_bytes(name), b'"\r\n',
            b'Content-Type: application/octet-stream\r\n\r\n', content, b'\r\n--', to_bytes(boundary), b'--\r\n'])
        self.open('POST', '/api/upload', data=body,
                  headers={'Content-Type': 'multipart/form-data; boundary=' + boundary})


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(CHUNK), b''):
            digest.update(chunk)
    return digest.hexdigest()
