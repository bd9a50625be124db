/**
 * Who the loader tools answer, and so who can do what the model cannot: an application's own
 * model (`createLoaderTools`, whose user has the application and its machine), the model of a
 * host running `serve` over stdio (whose user started it, on the machine it runs on), or the
 * model of any caller of a `serve --http` gateway (whose user has only the gateway's URL: what
 * needs the gateway's machine, such as an OAuth login of a downstream server, is its operator's).
 */
export type LoaderToolsSurface = 'library' | 'serve' | 'gateway';
