export * from './server.machine.js';
export * from './registry.machine.js';
export * from './errors.js';
export * from './options.js';
export type * from './types.js';
