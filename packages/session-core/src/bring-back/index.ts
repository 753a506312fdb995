export * from './excerpt';
export * from './entry';
