// The summary providers of the settings dialog: list (with pi's and oh-my-pi's models and every
// configuration problem), save, remove and test, each taking effect without a restart.
import {
  API_ROUTES,
  type CatalogParams,
  type ProviderInput,
  type ProviderParams,
  type ProviderTestRequest,
} from '@canopy/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SummarizerSet } from '../providers/summarizer-set';

export function registerProviderRoutes(
  app: FastifyInstance,
  set: SummarizerSet,
  droppedSignal: (reply: FastifyReply) => AbortSignal,
): void {
  const r = API_ROUTES;

  app.route({
    ...r.listProviders,
    // Read again: a login renewed in pi or a key variable's file edited shows at once.
    handler: async () => {
      await set.refresh(true);
      return set.view();
    },
  });

  app.route<{ Body: ProviderInput }>({
    ...r.saveProvider,
    handler: async (request) => set.save(request.body),
  });

  app.route<{ Params: ProviderParams }>({
    ...r.deleteProvider,
    handler: async (request) => set.remove(request.params.providerId),
  });

  app.route<{ Body: ProviderTestRequest }>({
    ...r.testProvider,
    handler: async (request, reply) => set.test(request.body, droppedSignal(reply)),
  });

  app.route<{ Params: CatalogParams }>({
    ...r.providerCatalog,
    handler: async (request) => set.catalog(request.params.provider),
  });
}
