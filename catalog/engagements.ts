// Engagements and the client companies audits are run for. The spec lists only the two client company
// operations; engagement listing, reading and creation are named by it and documented only by the
// live description, yet every engagement-scoped job starts with them: curated here, undocumented.
import { z } from 'zod';
import { area, id, LOCALES, nstr, nullableId, op } from './shared.js';

export const engagements = area('engagements', [
  op({
    name: 'list_engagements',
    title: 'List engagements',
    description: 'Engagements of the workspace, newest first. Start here: every engagement-scoped tool needs the engagement id.',
    method: 'GET',
    path: '/engagements',
    render: { flatten: ['client_company'] },
    completes: { argument: 'engagement', label: 'name' },
    askedAs: {
      en: ['our projects', 'all engagements', 'current assignments', 'client projects', 'audits under way', 'which missions are active'],
      fr: ['nos missions', 'tous les projets', 'missions en cours', 'liste des audits', 'audits en cours', 'quelles missions sont actives', 'dossiers ouverts'],
    },
    paginated: true,
    undocumented: true,
    surface: 'brief',
    linksTo: 'engagement',
  }),
  op({
    name: 'get_engagement',
    title: 'Get engagement',
    description: 'One engagement: client company, method, locale, dates, status and stage.',
    method: 'GET',
    path: '/engagements/{engagement}',
    example: { engagement: '$demo.engagement' },
    askedAs: {
      en: [
        'details of an engagement',
        'which client and stage a project is at',
        'engagement dates and status',
        'which client an audit is for',
        'when an audit started and its phase',
      ],
      fr: ['détails d’une mission', 'où en est la mission', 'dates et statut de la mission', 'pour quel client est la mission', 'étape et dates de l’audit'],
    },
    undocumented: true,
    resource: {
      name: 'engagement',
      title: 'Engagement',
      uriTemplate: 'workspace://engagements/{engagement}',
      description: 'One engagement: client, method, dates, status.',
      mimeType: 'application/json',
    },
  }),
  op({
    name: 'create_engagement',
    title: 'Create engagement',
    description: 'Open an engagement for a client company, optionally with an interview method.',
    method: 'POST',
    path: '/engagements',
    askedAs: {
      en: ['start a new project', 'set up an engagement for a client', 'open a new audit', 'kick off a mission', 'open a new client audit'],
      fr: [
        'nouvelle mission',
        'démarrer un projet pour un client',
        'ouvrir un audit',
        'créer une mission',
        'ouvrir un dossier pour un nouvel audit',
        'lancer une mission chez un client',
      ],
    },
    destructive: false,
    undocumented: true,
    fields: () => ({
      client_company_id: id(),
      name: z.string().min(1).max(255),
      method_id: nullableId().optional(),
      locale: z.enum(LOCALES).optional(),
      starts_on: z.iso.date().nullable().optional(),
      ends_on: z.iso.date().nullable().optional(),
    }),
  }),
  op({
    name: 'list_client_companies',
    title: 'List client companies',
    description: 'Client companies of the workspace. Use to find the company an engagement is for.',
    method: 'GET',
    path: '/client-companies',
    askedAs: {
      en: ['our clients', 'customer list', 'companies we work for', 'client accounts', 'companies we already serve'],
      fr: ['nos clients', 'liste des sociétés clientes', 'entreprises clientes', 'comptes clients', 'portefeuille de clients', 'sociétés que nous suivons'],
    },
    paginated: true,
  }),
  op({
    name: 'create_client_company',
    title: 'Create client company',
    description: 'Add a client company. Returns the company with its id.',
    method: 'POST',
    path: '/client-companies',
    askedAs: {
      en: ['add a new client', 'register a customer company', 'new client account', 'a company that is not a client yet'],
      fr: [
        'ajouter un nouveau client',
        'enregistrer une société cliente',
        'nouveau compte client',
        'créer la fiche d’une nouvelle société',
        'ajouter un prospect',
      ],
    },
    destructive: false,
    // The spec does not show this body; these fields are the ones the catalog and the sandbox agree on.
    fields: () => ({
      name: z.string().min(1).max(255),
      industry: nstr(120).optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals, such as FR')
        .nullable()
        .optional(),
      website: z
        .url({ protocol: /^https?$/ })
        .max(255)
        .nullable()
        .optional(),
    }),
  }),
]);
