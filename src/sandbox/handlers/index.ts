// Every route the sandbox answers, keyed by "METHOD /template" as in the catalog.
import type { HandlerTable } from '../types.js';
import { aiHandlers } from './ai.js';
import { analysisHandlers } from './analysis.js';
import { chatHandlers } from './chat.js';
import { deliverablesHandlers } from './deliverables.js';
import { engagementsHandlers } from './engagements.js';
import { integrationsHandlers } from './integrations.js';
import { interviewsHandlers } from './interviews.js';
import { methodsHandlers } from './methods.js';
import { privacyHandlers } from './privacy.js';
import { sourcesHandlers } from './sources.js';
import { usageHandlers } from './usage.js';
import { workspaceHandlers } from './workspace.js';

export const handlers: HandlerTable = {
  ...aiHandlers,
  ...engagementsHandlers,
  ...methodsHandlers,
  ...analysisHandlers,
  ...interviewsHandlers,
  ...sourcesHandlers,
  ...deliverablesHandlers,
  ...chatHandlers,
  ...usageHandlers,
  ...workspaceHandlers,
  ...privacyHandlers,
  ...integrationsHandlers,
};
