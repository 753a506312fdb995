// The summary providers the settings dialog edits (docs/summaries.md): the server's requests only.
// The dialog keeps what it shows; these actions exist so that the page's every request goes through
// the store and its injected api. A save or delete refetches the server's info, whose summarisers
// the summary dialog offers.

import type { Api } from '../../net/api';
import type { SliceKit } from './kit';

export interface ProvidersSlice {
  listProviders: Api['listProviders'];
  providerCatalog: Api['providerCatalog'];
  testProvider: Api['testProvider'];
  saveProvider: Api['saveProvider'];
  deleteProvider: Api['deleteProvider'];
}

export function createProvidersSlice({ get, api }: SliceKit<ProvidersSlice>): ProvidersSlice {
  return {
    listProviders: () => api.listProviders(),
    providerCatalog: (provider) => api.providerCatalog(provider),
    testProvider: (request) => api.testProvider(request),

    async saveProvider(input) {
      const answer = await api.saveProvider(input);
      await get().reloadInfo();
      return answer;
    },

    async deleteProvider(providerId) {
      const answer = await api.deleteProvider(providerId);
      await get().reloadInfo();
      return answer;
    },
  };
}
