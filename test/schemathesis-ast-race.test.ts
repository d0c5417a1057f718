import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * test/support/python/sitecustomize.py makes `ast.parse` safe to call from two threads on CPython
 * 3.11 before 3.11.8 and 3.12 before 3.12.2, whose AST constructor shares one recursion counter
 * between threads. Hypothesis calls
 * it from each of schemathesis's worker threads, and a CI run's fuzzing failed on the race. The
 * script below provokes it: two threads at different stack depths parse a large module while a
 * garbage-collection callback runs Python code in the middle of each conversion.
 */
const PYTHON = path.resolve(__dirname, '../.tools/bin/python');
const STARTUP_DIR = path.resolve(__dirname, 'support/python');

const RACE = `
import ast, gc, inspect, sys, threading
source = open(inspect.__file__).read()
parses = int(sys.argv[1])
gc.set_threshold(100)
gc.callbacks.append(lambda phase, info: sum(range(2000)))
errors = []
def nested(depth, f):
    return f() if depth == 0 else nested(depth - 1, f)
def parse_repeatedly(depth):
    for _ in range(parses):
        if errors:
            return
        try:
            nested(depth, lambda: ast.parse(source))
        except SystemError as e:
            errors.append(str(e))
threads = [threading.Thread(target=parse_repeatedly, args=(d,)) for d in (5, 30)]
[t.start() for t in threads]
[t.join() for t in threads]
v = sys.version_info[:3]
racy = (3, 11, 0) <= v < (3, 11, 8) or (3, 12, 0) <= v < (3, 12, 2)
print(not racy, len(errors), errors[:1])
`;

function race(parses: number, env: NodeJS.ProcessEnv): { fixedPython: boolean; errors: number; output: string } {
  const run = spawnSync(PYTHON, ['-c', RACE, String(parses)], { env, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`the race script failed (${run.status}): ${run.stderr}`);
  const [fixedPython, errors] = run.stdout.trim().split(' ');
  return { fixedPython: fixedPython === 'True', errors: Number(errors), output: run.stdout.trim() };
}

const withoutStartup = { ...process.env, PYTHONPATH: '' };

it('the race shows without the workaround (on a Python that has it), so the next test can fail', () => {
  const result = race(60, withoutStartup);
  if (result.fixedPython) return;
  expect(result.errors).toBeGreaterThan(0);
});

it('with sitecustomize.py on PYTHONPATH, ast.parse from two threads never fails', () => {
  expect(race(20, { ...withoutStartup, PYTHONPATH: STARTUP_DIR })).toMatchObject({ errors: 0 });
});
