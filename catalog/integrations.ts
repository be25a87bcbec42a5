// Integrations: the machine-readable description of the API.
import { area, op } from './shared.js';

export const integrations = area('integrations', [
  op({
    name: 'get_openapi_description',
    title: 'Get OpenAPI description',
    description: 'The OpenAPI description of the workspace API, including operations no tool covers. Large: fetch only to find such an operation.',
    method: 'GET',
    path: '/openapi.json',
    askedAs: {
      en: ['API documentation', 'OpenAPI spec', 'endpoints for developers', 'build an integration against the API'],
      fr: ['documentation de l’API', 'spécification OpenAPI', 'points d’accès pour les développeurs', 'définition de l’API lisible par une machine'],
    },
    reference: true,
  }),
]);
