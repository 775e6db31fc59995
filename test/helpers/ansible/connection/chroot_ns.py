# A connection for the tests: runs commands chrooted into a throwaway Debian root, each in a
# private mount namespace with its own /proc (as test/helpers/debian-root.ts does), and copies
# files in and out. ansible-core has no chroot connection; community.general's is not in
# Debian's ansible-core, and it would mount nothing.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

import os
import shutil
import subprocess

from ansible.plugins.connection import ConnectionBase

DOCUMENTATION = '''
name: chroot_ns
short_description: the tests' chroot into a Debian root
description: Runs each command with unshare --mount --mount-proc and chroot.
options:
  chroot_root:
    description: The root directory.
    vars:
      - name: chroot_root
'''


class Connection(ConnectionBase):
    transport = 'chroot_ns'
    has_pipelining = True

    def _connect(self):
        self._connected = True
        return self

    def _root(self):
        return self.get_option('chroot_root')

    def _inside(self, path):
        return os.path.join(self._root(), path.lstrip('/'))

    def exec_command(self, cmd, in_data=None, sudoable=False):
        super(Connection, self).exec_command(cmd, in_data=in_data, sudoable=sudoable)
        root = self._root()
        argv = ['unshare', '--mount', '--propagation', 'private', '--mount-proc=' + os.path.join(root, 'proc'),
                'chroot', root, '/bin/sh', '-c', cmd]
        env = dict(os.environ, PATH='/usr/sbin:/usr/bin:/sbin:/bin', LANG='C.UTF-8', HOME='/root')
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        stdout, stderr = proc.communicate(in_data)
        return proc.returncode, stdout, stderr

    def put_file(self, in_path, out_path):
        super(Connection, self).put_file(in_path, out_path)
        shutil.copyfile(in_path, self._inside(out_path))

    def fetch_file(self, in_path, out_path):
        super(Connection, self).fetch_file(in_path, out_path)
        shutil.copyfile(self._inside(in_path), out_path)

    def close(self):
        self._connected = False
