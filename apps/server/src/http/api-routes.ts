import { Readable } from 'node:stream';
import os from 'node:os';
import {
  API_ROUTES,
  PROTOCOL_VERSION,
  type ArtifactParams,
  type BlobParams,
  type BranchRequest,
  type ContextQuery,
  type EntryParams,
  type LabelRequest,
  type MessageRequest,
  type NavigateRequest,
  SessionSnapshotEnd,
  SessionSnapshotHead,
  SNAPSHOT_CONTENT_TYPE,
  type SessionParams,
  type SelectionSummaryRequest,
  type SettingsPatch,
  type SummaryPreviewRequest,
} from '@canopy/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../errors';
import type { Navigator } from '../operations/navigate-tree';
import type { SummaryService } from '../operations/summaries';
import { TOO_LATE_MESSAGE } from '../operations/summary-runner';
import type { SessionReads } from '../operations/session-reads';
import { SNAPSHOT_WRITE_BYTES, snapshotLines, snapshotPieces } from '../operations/snapshot-stream';
import { serializerFor } from './serializers';
import type { SessionStore } from '../session-store';
import type { SessionWrites } from '../operations/session-writes';
import type { StateStore } from '../files/state';
import type { SummarizerRegistry } from '../summarizer';
import type { SummarizerSet } from '../providers/summarizer-set';
import { registerArchiveRoutes, registerFamilyRoutes } from './archive-routes';
import { registerProviderRoutes } from './provider-routes';
import { SessionArchive } from '../operations/session-archive';
import { SessionFamily } from '../operations/session-family';
import { SessionLanes } from '../operations/session-lane';

export interface ApiDeps {
  store: SessionStore;
  reads: SessionReads;
  writes: SessionWrites;
  state: StateStore;
  navigator: Navigator;
  summaries: SummaryService;
  summarizers: SummarizerRegistry;
  summarizerSet: SummarizerSet;
  home?: string;
}

/** Fires when the client drops the request before its answer is sent (a summary then stops). */
export function droppedSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Every REST route of the protocol's route table, each with its schemas. */
export function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, reads, writes, state, navigator, summaries, summarizers } = deps;
  const r = API_ROUTES;

  app.route({
    ...r.info,
    handler: async () => ({
      protocolVersion: PROTOCOL_VERSION,
      roots: store.index.roots.map((root) => ({ name: root.name, path: root.path })),
      summarizer: summarizers.size > 0,
      summarizers: summarizers.list(),
      defaultSummarizerId: summarizers.defaultId,
      home: deps.home ?? os.homedir(),
    }),
  });

  app.route({
    ...r.listSessions,
    handler: async () => {
      const listing = store.listing();
      return listing ? { sessions: store.list(), listing } : { sessions: store.list() };
    },
  });

  // Built with the routes, not by the first snapshot a person waits for.
  const endJson = serializerFor<SessionSnapshotEnd>(SessionSnapshotEnd);
  const snapshotEncoders = {
    head: serializerFor<SessionSnapshotHead>(SessionSnapshotHead),
    end: (end: SessionSnapshotEnd) => `{"end":${endJson(end)}}`,
  };
  app.route<{ Params: SessionParams }>({
    ...r.getSession,
    handler: async (request, reply) => {
      const source = await reads.snapshot(request.params.id);
      // A large session is hundreds of thousands of nodes: they go as NodeColumns lines, each
      // encoded when the socket takes the previous one (and, while the server still reads the
      // file, as they are read), so the browser draws the first rows while the rest is read and
      // encoded, and the server never holds the JSON of the whole tree; written in small pieces,
      // so a client that stops reading holds little (snapshotPieces).
      const pieces = snapshotPieces(snapshotLines(source, snapshotEncoders));
      return reply
        .type(SNAPSHOT_CONTENT_TYPE)
        .send(Readable.from(pieces, { objectMode: false, highWaterMark: SNAPSHOT_WRITE_BYTES }));
    },
  });

  app.route<{ Params: EntryParams }>({
    ...r.getEntry,
    handler: async (request) => reads.entryDetail(request.params.id, request.params.entryId),
  });

  app.route<{ Params: SessionParams; Querystring: ContextQuery }>({
    ...r.getContext,
    handler: async (request) => reads.context(request.params.id, request.query.at),
  });

  app.route<{ Params: SessionParams; Body: NavigateRequest }>({
    ...r.navigate,
    handler: async (request, reply) => {
      const { targetId, ...options } = request.body;
      return navigator.navigate(request.params.id, targetId, { ...options, signal: droppedSignal(reply) });
    },
  });

  app.route<{ Params: SessionParams; Body: SummaryPreviewRequest }>({
    ...r.previewSummary,
    handler: async (request, reply) =>
      summaries.preview(request.params.id, request.body, droppedSignal(reply)),
  });

  app.route<{ Params: SessionParams; Body: SelectionSummaryRequest }>({
    ...r.summarizeSelection,
    handler: async (request, reply) =>
      summaries.summarizeSelection(request.params.id, request.body, droppedSignal(reply)),
  });

  app.route<{ Params: SessionParams }>({
    ...r.abortSummary,
    handler: async (request) => {
      const outcome = navigator.abort(request.params.id);
      if (outcome === 'none')
        throw new AppError('NO_SUMMARY_RUNNING', 'No summary is being generated for this session.');
      if (outcome === 'too-late') throw new AppError('SUMMARY_TOO_LATE', TOO_LATE_MESSAGE);
      return { aborted: true };
    },
  });

  app.route<{ Params: EntryParams; Body: LabelRequest }>({
    ...r.setLabel,
    handler: async (request) =>
      writes.setLabel(request.params.id, request.params.entryId, request.body.label),
  });

  app.route<{ Params: EntryParams }>({
    ...r.clearLabel,
    handler: async (request) => writes.setLabel(request.params.id, request.params.entryId, undefined),
  });

  app.route<{ Params: SessionParams; Body: BranchRequest }>({
    ...r.branch,
    handler: async (request) => writes.branch(request.params.id, request.body.entryId),
  });

  app.route<{ Params: SessionParams }>({
    ...r.fork,
    handler: async (request) => writes.fork(request.params.id),
  });

  app.route<{ Params: SessionParams; Body: MessageRequest }>({
    ...r.appendMessage,
    handler: async (request) => {
      if (request.body.text.trim() === '') throw new AppError('BAD_REQUEST', 'The message is empty.');
      return writes.appendMessage(request.params.id, request.body.text);
    },
  });

  // Session files name these; the bytes are served as data only: a checked image type or plain
  // text, never sniffed by the browser, never a document that could run script.
  app.route<{ Params: BlobParams }>({
    ...r.getBlob,
    handler: async (request, reply) => {
      const blob = await reads.blob(request.params.id, request.params.hash);
      return reply
        .header('content-type', blob.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, max-age=31536000, immutable')
        .send(blob.bytes);
    },
  });

  app.route<{ Params: ArtifactParams }>({
    ...r.getArtifact,
    handler: async (request, reply) => {
      const artifact = await reads.artifact(request.params.id, request.params.artifactId);
      return reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'no-store')
        .header('x-canopy-artifact-name', artifact.name)
        .header('x-canopy-artifact-size', String(artifact.size))
        .header('x-canopy-artifact-truncated', artifact.truncated ? '1' : '0')
        .send(artifact.text);
    },
  });

  app.route({ ...r.getSettings, handler: async () => state.getSettings() });

  app.route<{ Body: SettingsPatch }>({
    ...r.putSettings,
    handler: async (request) => state.updateSettings(request.body),
  });

  registerArchiveRoutes(app, new SessionArchive(store));
  registerFamilyRoutes(app, new SessionFamily(store), new SessionLanes(store, deps.home ?? os.homedir()));
  registerProviderRoutes(app, deps.summarizerSet, droppedSignal);
}
