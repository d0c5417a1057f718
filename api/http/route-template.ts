import type { Request } from 'express';

/**
 * The matched route's template (`/v1/t/o/:token`), never the raw path: paths carry tracking and
 * file-URL tokens, and IDs would explode metric labels. `unmatched` when no route matched.
 */
export const routeTemplate = (req: Request): string => (req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched');
