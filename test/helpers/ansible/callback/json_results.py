# A stdout callback for the tests (ansible-core ships no json one; ansible.posix's is not in
# Debian's ansible-core): every task's result per host, and the stats, as one JSON document.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
name: json_results
type: stdout
short_description: the tests' JSON results
description: Each task's result per host and the stats, printed as one JSON document at the end.
'''


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'json_results'

    def __init__(self):
        super(CallbackModule, self).__init__()
        self.plays = []

    def v2_playbook_on_play_start(self, play):
        self.plays.append({'play': {'name': play.get_name()}, 'tasks': []})

    def _task_entry(self, task):
        tasks = self.plays[-1]['tasks']
        if not tasks or tasks[-1]['task']['id'] != task._uuid:
            tasks.append({'task': {'name': task.get_name(), 'id': task._uuid}, 'hosts': {}})
        return tasks[-1]

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._task_entry(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._task_entry(task)

    def _record(self, result, **extra):
        entry = self._task_entry(result._task)
        data = dict(result._result)
        data.update(extra)
        entry['hosts'][result._host.get_name()] = data

    def v2_runner_on_ok(self, result, **kwargs):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    def v2_playbook_on_stats(self, stats):
        summary = dict((h, stats.summarize(h)) for h in sorted(stats.processed.keys()))
        self._display.display(json.dumps({'plays': self.plays, 'stats': summary}, default=str, indent=1))
