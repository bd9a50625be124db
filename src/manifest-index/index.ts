/** The persistent, secret-free index of server manifests that tool search reads. */
export { ManifestIndex, defaultManifestIndexPath, projectFileOf, projectFilesOf, type IndexEntry, type IndexLookup, type ManifestIndexOptions, type RecordOutcome } from './manifest-index.js';
export { ManifestIndexKeyUnreadable } from '../config/definition-fingerprint.js';
export { isPastPromisedFreshness, isPastTtl } from './entry-expiry.js';
export { indexedInstructions } from './indexed-manifest.js';
export { recordManifests, type RecordManifestsOptions, type RecordingManager } from './record-manifests.js';
