// The routes of the compare view and the files of a path (docs/branches.md); token and schemas as
// every route (the app's auth hook, the protocol's route table).
import {
  API_ROUTES,
  type CompareQuery,
  type FileLensQuery,
  type FilesQuery,
  type SessionParams,
} from '@canopy/protocol';
import type { FastifyInstance } from 'fastify';
import type { BranchReads } from '../operations/branch-reads';

export function registerBranchRoutes(app: FastifyInstance, branches: BranchReads): void {
  const r = API_ROUTES;
  app.route<{ Params: SessionParams; Querystring: CompareQuery }>({
    ...r.compareBranches,
    handler: async (request) => branches.compare(request.params.id, request.query.a, request.query.b),
  });
  app.route<{ Params: SessionParams; Querystring: FilesQuery }>({
    ...r.getFiles,
    handler: async (request) => branches.files(request.params.id, request.query.at, request.query.from),
  });
  app.route<{ Params: SessionParams; Querystring: FileLensQuery }>({
    ...r.getFileLens,
    handler: async (request) => branches.fileLens(request.params.id, request.query.path),
  });
}
