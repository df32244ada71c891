"""How ``make test`` hands test files to its processes (pytest-xdist ``--dist loadfile``).

pytest-xdist's own file scheduler gives a process a second file as soon as it has two
tests or fewer left, so a file of one long test (the two-worker ladder, 3-7 minutes in
the backend run) at once had the next long file in the queue (the league API's, a
minute) pinned behind it, while the other process emptied the queue and then waited.
This one waits until a process holds one test (a process runs a test only once it
knows the next, so one is the least it can hold), and when that one test is of a long
file (``LONG_FILES``) it pairs it with the last, smallest file of the queue instead of
the next long one: the long files still start first, each on the first process free.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling


class LongFilesFirst(LoadFileScheduling):
    long_files: frozenset[str] = frozenset()

    def _reschedule(self, node) -> None:
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        assigned = self.assigned_work[node]
        pending = [
            nodeid for unit in assigned.values() for nodeid, done in unit.items() if not done
        ]
        if len(pending) > 1:
            return
        held_long = bool(pending) and self._split_scope(pending[0]) in self.long_files
        scope, work_unit = self.workqueue.popitem(last=held_long)
        assigned[scope] = work_unit
        collection = self.registered_collections[node]
        node.send_runtest_some([collection.index(nodeid) for nodeid in work_unit])
