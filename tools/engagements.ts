// Engagements: the client companies audits are run for. The spec lists only these two operations.
import { z } from 'zod';
import { area, nstr, op } from './shared.js';

export const engagements = area('engagements', [
  op({
    name: 'list_client_companies',
    title: 'List client companies',
    description: 'Client companies of the workspace. Use to find the company an engagement is for.',
    method: 'GET',
    path: '/client-companies',
    paginated: true,
  }),
  op({
    name: 'create_client_company',
    title: 'Create client company',
    description: 'Add a client company. Returns the company with its id.',
    method: 'POST',
    path: '/client-companies',
    destructive: false,
    // The spec does not show this body; these fields are the ones the catalog and the sandbox agree on.
    fields: {
      name: z.string().min(1).max(255),
      industry: nstr(120).optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals, such as FR')
        .nullable()
        .optional(),
      website: z.url({ protocol: /^https?$/ }).max(255).nullable().optional(),
    },
  }),
]);
