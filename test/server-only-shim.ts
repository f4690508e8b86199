// `server-only` throws when imported outside a React Server environment; unit tests run lib/ code directly.
export {};
