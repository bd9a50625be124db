/** `mcp-statechart/inspect`: the Stately inspector relay and the redaction every inspection event passes through. api/inspect.api.md is the report of this surface. */
export { startInspector, type InspectorHandle, type StartInspectorOptions } from '../inspection/relay.js';
export { sanitizeInspectionEvent, sanitizedObserver, type InspectionObserver } from '../inspection/sanitize.js';
