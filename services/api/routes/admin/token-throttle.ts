import { tokenThrottle, type TokenThrottle } from '../../../../platform/http/token-throttle.js';
import type { Runtime } from '../../../../platform/runtime.js';

/** Guesses of ADMIN_TOKEN, over the admin API, the operator pages and the sign-in form together. */
export type AdminTokenThrottle = TokenThrottle;

export const adminTokenThrottle = (runtime: Runtime): AdminTokenThrottle => tokenThrottle(runtime.redis, `${runtime.config.topicPrefix}ratelimit:admin-token:`);
