// Workspace and account: the current member, workspace settings and branding, members and invitations.
// The /workspace/usage/* operations live in usage.ts.
import { z } from 'zod';
import { area, LOCALES, op, ROLES } from './shared.js';

const name255 = () => z.string().min(1).max(255);
const retentionDays = () => z.number().int().min(1).max(3650);

export const workspace = area('workspace', [
  op({
    name: 'get_current_member',
    title: 'Get current member',
    description: 'The member this token acts as. Use to know whose rights and locale apply.',
    method: 'GET',
    path: '/me',
    askedAs: { en: ['who am I', 'my account', 'which account am I using'], fr: ['qui suis-je', 'mon compte', 'avec quel compte suis-je connecté'] },
  }),
  op({
    name: 'update_current_member',
    title: 'Update current member',
    description: "Change the current member's display name or interface locale.",
    method: 'PATCH',
    path: '/me',
    example: { locale: 'fr' },
    askedAs: {
      en: ['change my display name', 'switch my language', 'my profile settings', 'show the interface in French', 'my display name is wrong'],
      fr: ['changer mon nom affiché', 'changer ma langue', 'mes préférences', 'changer la langue de mon compte', 'mon nom affiché est faux'],
    },
    destructive: false,
    fields: () => ({ name: name255().optional(), locale: z.enum(LOCALES).optional() }),
  }),
  op({
    name: 'get_workspace',
    title: 'Get workspace',
    description: 'Workspace settings: names, locales, retention periods, security settings.',
    method: 'GET',
    path: '/workspace',
    askedAs: {
      en: ['workspace settings', 'data retention periods', 'how long data is kept', 'security settings', 'how long we keep data'],
      fr: ['paramètres de l’espace', 'durées de conservation', 'combien de temps les données sont gardées', 'combien de temps on garde les données'],
    },
  }),
  op({
    name: 'update_workspace',
    title: 'Update workspace',
    description: 'Change workspace settings; omitted fields stay as they are. Shorter retention makes older data due for deletion.',
    method: 'PATCH',
    path: '/workspace',
    example: { display_name: 'Atelier Conseil' },
    askedAs: {
      en: [
        'change workspace settings',
        'set the retention period',
        'keep data for less time',
        'tighten login security',
        'shorten how long data is stored',
        'how many days raw data and deliverables are kept',
        'let consultants use the platform’s AI keys',
        'e-mail code for participants by default',
      ],
      fr: [
        'modifier les paramètres de l’espace',
        'changer la durée de conservation',
        'garder les données moins longtemps',
        'exiger la double authentification',
        'garder les données brutes moins longtemps',
        'conservation des livrables en jours',
        'autoriser les clés IA de la plateforme',
        'langues proposées dans l’espace',
      ],
    },
    // Settings can be set back; data past a shortened retention is purged later by retention, not by this call.
    destructive: false,
    fields: () => ({
      name: name255().optional(),
      display_name: name255().optional(),
      locales: z.array(z.enum(LOCALES)).min(1).optional(),
      default_locale: z.enum(LOCALES).optional(),
      retention_raw_days: retentionDays().optional(),
      retention_deliverable_days: retentionDays().optional(),
      settings: z
        .strictObject({
          require_2fa_for_consultants: z.boolean().optional(),
          participant_email_code_default: z.boolean().optional(),
          platform_keys_allowed: z.boolean().optional(),
        })
        .optional(),
    }),
  }),
  op({
    name: 'update_workspace_branding',
    title: 'Update workspace branding',
    description: 'Set the brand colours and the sender name of workspace e-mails (always required).',
    method: 'PATCH',
    path: '/workspace/branding',
    example: { email_sender_name: 'Atelier Conseil', primary_color: '#1F3A5F' },
    askedAs: {
      en: ['brand colours', 'our look and feel', 'sender name of e-mails', 'customise the look of messages', 'primary and accent colours'],
      fr: ['couleurs de la marque', 'charte graphique', 'nom d’expéditeur des e-mails', 'nos couleurs dans les e-mails', 'couleur principale et d’accent'],
    },
    destructive: false,
    fields: () => ({
      // The spec does not give the colour format, so none is imposed here.
      primary_color: z.string().nullable().optional(),
      accent_color: z.string().nullable().optional(),
      email_sender_name: z.string().min(1).max(120),
    }),
  }),
  op({
    name: 'delete_workspace_logo',
    title: 'Delete workspace logo',
    description: 'Remove the workspace logo from the branding.',
    method: 'DELETE',
    path: '/workspace/branding/logo',
    askedAs: { en: ['remove our logo', 'no logo in our branding'], fr: ['retirer notre logo', 'enlever le logo'] },
    destructive: true,
  }),
  op({
    name: 'get_workspace_dashboard',
    title: 'Get workspace dashboard',
    description: "Overview of the workspace's activity across engagements.",
    method: 'GET',
    path: '/workspace/dashboard',
    askedAs: {
      en: ['activity across engagements', 'overview of the firm’s work', 'what is going on in the workspace', 'firm-wide activity'],
      fr: ['activité de toutes les missions', 'vue d’ensemble du cabinet', 'ce qui se passe dans l’espace', 'tous les audits d’un coup d’œil'],
    },
  }),
  op({
    name: 'list_invitations',
    title: 'List invitations',
    description: 'Pending invitations to join the workspace.',
    method: 'GET',
    path: '/workspace/invitations',
    askedAs: {
      en: ['pending invitations', 'people invited who have not joined', 'invites not accepted yet'],
      fr: ['invitations en attente', 'personnes invitées pas encore inscrites', 'invitations pas encore acceptées'],
    },
    paginated: true,
  }),
  op({
    name: 'invite_member',
    title: 'Invite member',
    description: 'Invite someone by e-mail to join the workspace with a role.',
    method: 'POST',
    path: '/workspace/invitations',
    askedAs: {
      en: ['add a colleague', 'give someone access', 'onboard a new consultant', 'bring a new consultant in'],
      fr: ['ajouter un collègue', 'donner accès à quelqu’un', 'intégrer un nouveau consultant', 'faire venir une nouvelle consultante'],
    },
    destructive: false,
    fields: () => ({ email: z.email().max(255), role: z.enum(ROLES) }),
  }),
  op({
    name: 'revoke_invitation',
    title: 'Revoke invitation',
    description: 'Cancel a pending invitation to the workspace.',
    method: 'DELETE',
    path: '/workspace/invitations/{invitation}',
    askedAs: {
      en: ['cancel an invitation', 'withdraw an invite', 'take back an invitation'],
      fr: ['annuler une invitation', 'retirer une invitation', 'invitation envoyée à la mauvaise adresse'],
    },
    destructive: true,
  }),
  op({
    name: 'list_members',
    title: 'List members',
    description: 'Members of the workspace with their roles.',
    method: 'GET',
    path: '/workspace/members',
    askedAs: {
      en: ['our team', 'who has access', 'users of the workspace', 'who is in the firm and their role', 'each member’s role'],
      fr: ['notre équipe', 'qui a accès', 'utilisateurs de l’espace', 'membres de l’espace et leurs droits', 'le rôle de chaque membre'],
    },
    paginated: true,
  }),
  op({
    name: 'update_member_role',
    title: 'Update member role',
    description: "Change a member's role.",
    method: 'PATCH',
    path: '/workspace/members/{member}',
    example: { member: '$demo.member', role: 'admin' },
    askedAs: {
      en: ['give admin rights', 'promote to administrator', 'change permissions of a colleague', 'let a colleague administer the workspace'],
      fr: ['donner les droits admin', 'nommer administrateur', 'changer les droits d’un collègue', 'permettre à un collègue d’administrer l’espace'],
    },
    // A role change can be made again the other way; nothing is deleted.
    destructive: false,
    fields: () => ({ role: z.enum(ROLES) }),
  }),
  op({
    name: 'remove_member',
    title: 'Remove member',
    description: 'Remove a member from the workspace. Their API tokens stop working at once.',
    method: 'DELETE',
    path: '/workspace/members/{member}',
    askedAs: {
      en: ['revoke access of a colleague', 'offboard someone who left', 'someone left, cut their access'],
      fr: ['retirer l’accès d’un collègue', 'enlever quelqu’un de l’espace', 'quelqu’un est parti, couper son accès'],
    },
    destructive: true,
  }),
  op({
    name: 'list_member_roles',
    title: 'List member roles',
    description: 'Roles a member or invitation can have.',
    method: 'GET',
    path: '/workspaces/enums/roles',
    askedAs: { en: ['roles available', 'permission levels', 'possible access levels'], fr: ['rôles possibles', 'niveaux de droits', 'rôles attribuables'] },
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_workspace_statuses',
    title: 'List workspace statuses',
    description: 'Status values a workspace can be in.',
    method: 'GET',
    path: '/workspaces/enums/statuses',
    askedAs: { en: ['workspace status values', 'lifecycle of a workspace'], fr: ['statuts possibles de l’espace', 'états possibles d’un espace'] },
    paginated: true,
    reference: true,
  }),
]);
