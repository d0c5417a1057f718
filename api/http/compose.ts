import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middleware as one Express layer, with Express's own contract: each calls `next()` to go
 * on or `next(err)` to hand an error to the error middleware, and a returned promise that rejects
 * is an error too. Express steps through every layer of a stack with its router's matching and
 * bookkeeping; the global middleware and each route's chain of six are the same for every request,
 * so they are run here in a plain loop instead (README, benchmark: issue 19).
 */
export function compose(handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let i = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) return done(err);
      const handler = handlers[i++];
      if (!handler) return done();
      invoke(handler, req, res, next, done);
    };
    next();
  };
}

/** Calls one middleware as Express does: a throw or a returned promise that rejects goes to `done` as an error. */
export function invoke(handler: RequestHandler, req: Request, res: Response, next: NextFunction, done: NextFunction): void {
  try {
    const returned: unknown = handler(req, res, next);
    if (returned instanceof Promise) returned.catch((error: unknown) => done(error ?? new Error('Rejected promise')));
  } catch (error) {
    done(error);
  }
}
