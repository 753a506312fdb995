import {
  API_ROUTES,
  type BringBackPreviewRequest,
  type BringBackRequest,
  type EntryParams,
  type SessionParams,
} from '@canopy/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { BringBackService } from '../operations/bring-back';

/** The bring-back routes (docs/bring-back.md), each with its schemas; the token hook covers them all. */
export function registerBringBackRoutes(
  app: FastifyInstance,
  bringBack: BringBackService,
  droppedSignal: (reply: FastifyReply) => AbortSignal,
): void {
  const r = API_ROUTES;
  app.route<{ Params: SessionParams; Body: BringBackPreviewRequest }>({
    ...r.previewBringBack,
    handler: async (request, reply) =>
      bringBack.preview(request.params.id, request.body, droppedSignal(reply)),
  });
  app.route<{ Params: SessionParams; Body: BringBackRequest }>({
    ...r.bringBack,
    handler: async (request, reply) => bringBack.write(request.params.id, request.body, droppedSignal(reply)),
  });
  app.route<{ Params: EntryParams }>({
    ...r.getBringBack,
    handler: async (request) => bringBack.info(request.params.id, request.params.entryId),
  });
  app.route<{ Params: EntryParams }>({
    ...r.undoBringBack,
    handler: async (request) => bringBack.undo(request.params.id, request.params.entryId),
  });
}
