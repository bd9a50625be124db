/** The persistent, secret-free index of server manifests that tool search reads. */
export { ManifestIndex, defaultManifestIndexPath, type IndexEntry, type IndexLookup, type ManifestIndexOptions } from './manifest-index.js';
export { recordManifests, type RecordingManager } from './record-manifests.js';
