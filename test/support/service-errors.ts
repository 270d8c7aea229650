import { ServiceError } from '../../lambdas/core/errors';

/** The ServiceError `run` throws; any other outcome fails the test. */
export function serviceErrorOf(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a ServiceError');
}
