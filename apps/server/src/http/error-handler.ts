import type { FastifyError, FastifyInstance } from 'fastify';
import { INTERNAL_MESSAGE, isAppError, type AppError } from '../errors';

/**
 * The one error handler: coded AppErrors pass through; Fastify's own validation and body-limit
 * errors become BAD_REQUEST / PAYLOAD_TOO_LARGE; anything else is logged and answered with a
 * generic INTERNAL_ERROR so no internals leak.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError | AppError | Error, request, reply) => {
    if (isAppError(error)) {
      if (error.statusCode >= 500) request.log.error({ err: error.cause ?? error }, error.message);
      const message = error.code === 'INTERNAL_ERROR' ? INTERNAL_MESSAGE : error.message;
      return reply.status(error.statusCode).send({ error: { code: error.code, message } });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const where = fastifyError.validationContext ?? 'request';
      return reply
        .status(400)
        .send({ error: { code: 'BAD_REQUEST', message: `Invalid ${where}: ${fastifyError.message}` } });
    }
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fastifyError.statusCode === 413) {
      return reply
        .status(413)
        .send({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large.' } });
    }
    if (
      fastifyError.statusCode !== undefined &&
      fastifyError.statusCode >= 400 &&
      fastifyError.statusCode < 500
    ) {
      const code = fastifyError.statusCode === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
      return reply
        .status(fastifyError.statusCode === 404 ? 404 : 400)
        .send({ error: { code, message: fastifyError.message } });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ error: { code: 'INTERNAL_ERROR', message: INTERNAL_MESSAGE } });
  });
}
