// The machine-readable description of the API. Served as the bare OpenAPI document (not inside the
// {data} envelope), as OpenAPI tooling expects; the pipeline adds an ETag.

import { catalog } from '../../../catalog/index.js';
import { assumedOperations } from '../assumed.js';
import { openApiJson } from '../openapi.js';
import type { HandlerTable, SandboxArea } from '../types.js';

const handlers: HandlerTable = {
  get_openapi_description: () => ({ file: { contentType: 'application/json; charset=utf-8', body: openApiJson([...catalog, ...assumedOperations]) } }),
};

export const area: SandboxArea = {
  toolset: 'integrations',
  handlers,
};
