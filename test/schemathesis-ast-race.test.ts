import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * test/support/python/sitecustomize.py makes building ASTs safe from two threads on CPython 3.11
 * before 3.11.8 and 3.12 before 3.12.2, whose AST constructor shares one recursion counter between
 * threads. Hypothesis calls `ast.parse` from each of schemathesis's worker threads, and anyio's lazy
 * importer calls `compile(..., ast.PyCF_ONLY_AST)` from the thread that first imports it; CI's
 * fuzzing failed on each. The script below provokes the race: two threads at different stack
 * depths build the AST of a large module (through `ast.parse` or `compile`, the second argument)
 * while a garbage-collection callback runs Python code in the middle of each conversion.
 */
const PYTHON = path.resolve(__dirname, '../.tools/bin/python');
const STARTUP_DIR = path.resolve(__dirname, 'support/python');

const RACE = `
import ast, gc, inspect, sys, threading
source = open(inspect.__file__).read()
parses = int(sys.argv[1])
build = {
    'parse': lambda: ast.parse(source),
    'compile': lambda: compile(source, inspect.__file__, 'exec', ast.PyCF_ONLY_AST),
}[sys.argv[2]]
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
            nested(depth, build)
        except SystemError as e:
            errors.append(str(e))
threads = [threading.Thread(target=parse_repeatedly, args=(d,)) for d in (5, 30)]
[t.start() for t in threads]
[t.join() for t in threads]
v = sys.version_info[:3]
racy = (3, 11, 0) <= v < (3, 11, 8) or (3, 12, 0) <= v < (3, 12, 2)
print(not racy, len(errors), errors[:1])
`;

type Build = 'parse' | 'compile';

function race(parses: number, build: Build, env: NodeJS.ProcessEnv): { fixedPython: boolean; errors: number; output: string } {
  const run = spawnSync(PYTHON, ['-c', RACE, String(parses), build], { env, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`the race script failed (${run.status}): ${run.stderr}`);
  const [fixedPython, errors] = run.stdout.trim().split(' ');
  return { fixedPython: fixedPython === 'True', errors: Number(errors), output: run.stdout.trim() };
}

const withoutStartup = { ...process.env, PYTHONPATH: '' };

describe.each<Build>(['parse', 'compile'])('building ASTs through %s', (build) => {
  it('the race shows without the workaround (on a Python that has it), so the next test can fail', () => {
    const result = race(60, build, withoutStartup);
    if (result.fixedPython) return;
    expect(result.errors).toBeGreaterThan(0);
  });

  it('with sitecustomize.py on PYTHONPATH, two threads never fail', () => {
    expect(race(20, build, { ...withoutStartup, PYTHONPATH: STARTUP_DIR })).toMatchObject({ errors: 0 });
  });
});
