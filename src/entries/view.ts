/** `mcp-statechart/view`: the live lifecycle view of a manager's servers, served on 127.0.0.1. api/view.api.md is the report of this surface. */
export { startLifecycleView, type LifecycleView, type LifecycleViewOptions } from '../view/lifecycle-view.js';
export type { ServerRow, ViewTimer, ViewTransition } from '../view/server-rows.js';
