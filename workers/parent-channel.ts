/**
 * The IPC message `dist/workers/main.js` sends its parent once it polls, when a parent started it
 * with a channel (`npm start`: scripts/worker-process.ts). `npm run worker` has no channel.
 */
export const WORKER_READY = 'worker-ready';
