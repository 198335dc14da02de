import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../domain/errors/apiError.ts';

/**
 * How often one subject may start test runs over MCP (they spend credits and model calls):
 * `perMinute` a minute, in this process. A limit hit is RATE_LIMITED saying when to retry.
 */
export function createRunRateLimiter(perMinute: number) {
  // Keys expire a minute after their last use, so the store holds at most the subjects active in the last minute.
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return async function take(subject: string): Promise<void> {
    try {
      await limiter.consume(subject);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError('RATE_LIMITED', `At most ${perMinute} test runs a minute; retry in ${seconds} s`, { retryAfterSeconds: seconds });
    }
  };
}

export type RunRateLimiter = ReturnType<typeof createRunRateLimiter>;
