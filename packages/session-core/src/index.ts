// Public API of @canopy/session-core. Pure TypeScript: no file system, no DOM.
export * from './types';
export * from './entry-types';
export * from './detail-sections';
export * from './text';
export * from './ids';
export * from './parse';
export * from './migrate';
export * from './storage';
export * from './tree-index';
export * from './session-manager';
export * from './context';
export * from './navigation';
export * from './summary-input';
export * from './tree-view/index';
export * from './entry-store';
export * from './line-scan';
export * from './branches/index';
