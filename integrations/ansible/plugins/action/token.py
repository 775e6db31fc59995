# -*- coding: utf-8 -*-
# Copyright: device-agent maintainers
# MIT License (see the repository's LICENSE)
"""Runs the token module and hides its result, as no_log does, when it carries a new token's text."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        result.update(self._execute_module(module_name='deviceagent.fleet.token', task_vars=task_vars))
        # A module cannot set _ansible_no_log itself (ansible strips it); an action plugin can.
        # The task executor keeps it, so callbacks and logs print "censored" while register keeps the text.
        if result.get('token'):
            result['_ansible_no_log'] = True
        return result
