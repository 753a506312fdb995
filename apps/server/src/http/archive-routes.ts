import { API_ROUTES, type ArchiveRequest, type EntryParams, type SessionParams } from '@canopy/protocol';
import type { FastifyInstance } from 'fastify';
import type { SessionArchive } from '../operations/session-archive';
import type { SessionFamily } from '../operations/session-family';
import type { SessionLanes } from '../operations/session-lane';

/** Archive, restore and the tidy list (docs/archive-and-family.md): each behind the token, with its schema. */
export function registerArchiveRoutes(app: FastifyInstance, archive: SessionArchive): void {
  app.route<{ Params: EntryParams; Body: ArchiveRequest }>({
    ...API_ROUTES.setArchived,
    handler: async (request) =>
      archive.setArchived(request.params.id, request.params.entryId, request.body.archived),
  });

  app.route<{ Params: SessionParams }>({
    ...API_ROUTES.tidySuggestions,
    handler: async (request) => archive.suggestions(request.params.id),
  });
}

/**
 * The family of a session across files (docs/archive-and-family.md#family-of-a-session) and a
 * file's run as a lane (#subagent-lanes), behind the token.
 */
export function registerFamilyRoutes(app: FastifyInstance, family: SessionFamily, lanes: SessionLanes): void {
  app.route<{ Params: SessionParams }>({
    ...API_ROUTES.getFamily,
    handler: async (request) => family.family(request.params.id),
  });

  app.route<{ Params: SessionParams }>({
    ...API_ROUTES.getLane,
    handler: async (request) => lanes.lane(request.params.id),
  });
}
