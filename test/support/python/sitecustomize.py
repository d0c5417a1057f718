"""
Loaded by every schemathesis run (test/support/schemathesis.ts puts this folder on PYTHONPATH):
Python imports `sitecustomize` at startup, before schemathesis starts its worker threads.

CPython 3.11 before 3.11.8 and 3.12 before 3.12.2 keep the AST constructor's recursion counter in
per-interpreter state, not per thread (python/cpython#106905). When two threads build AST objects
and Python code runs inside one conversion (a garbage-collection callback, a weakref callback), the
other thread resets the shared counter and the first fails with "SystemError: AST constructor
recursion depth mismatch". Two callers hit it in CI (Python 3.11): hypothesis parses source files to
describe lambdas (`ast.parse`), from each of schemathesis's `--workers` threads, and anyio's lazy
importer compiles its own source to an AST (`compile(..., ast.PyCF_ONLY_AST)`) when a worker first
imports it. So every compile to an AST takes one lock (`ast.parse` calls `compile` too); compiles
to bytecode build no AST objects and pass straight through. On a Python without the race it is
harmless.
"""

import ast
import builtins
import threading

_compile = builtins.compile
# Re-entrant: a callback that runs inside a conversion on the same thread must not deadlock.
_lock = threading.RLock()


def _compile_ast_one_at_a_time(*args, **kwargs):
    flags = args[3] if len(args) > 3 else kwargs.get("flags", 0)
    if not flags & ast.PyCF_ONLY_AST:
        return _compile(*args, **kwargs)
    with _lock:
        return _compile(*args, **kwargs)


builtins.compile = _compile_ast_one_at_a_time
