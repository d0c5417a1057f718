"""
Loaded by every schemathesis run (test/support/schemathesis.ts puts this folder on PYTHONPATH):
Python imports `sitecustomize` at startup, before schemathesis starts its worker threads.

CPython 3.11 before 3.11.8 and 3.12 before 3.12.2 keep the AST constructor's recursion counter in
per-interpreter state, not per thread (python/cpython#106905). When two threads call `ast.parse`
and Python code runs inside one conversion (a garbage-collection callback, a weakref callback), the
other thread resets the shared counter and the first fails with "SystemError: AST constructor
recursion depth mismatch". Hypothesis parses source files to describe lambdas, from each of
schemathesis's `--workers` threads, and a CI run (Python 3.11) failed on exactly this. One lock
around `ast.parse` makes the conversions take turns; on a Python without the race it is harmless.
"""

import ast
import threading

_parse = ast.parse
# Re-entrant: a callback that runs inside a conversion on the same thread must not deadlock.
_lock = threading.RLock()


def _parse_one_at_a_time(*args, **kwargs):
    with _lock:
        return _parse(*args, **kwargs)


ast.parse = _parse_one_at_a_time
