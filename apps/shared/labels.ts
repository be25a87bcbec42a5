// The API's enum values as a reader of the host's language names them: finding types, review
// statuses, deliverable topics and AI usages. A value the API adds later reads as its own words.
import { tr, words } from './i18n.js';

type Dict = Record<string, { fr: string; en: string }>;

const FINDING_TYPES: Dict = {
  irritant: { fr: 'irritant', en: 'pain point' },
  re_entry: { fr: 'ressaisie', en: 're-entry' },
  volume: { fr: 'volume', en: 'volume' },
  duration: { fr: 'durée', en: 'duration' },
  business_rule: { fr: 'règle de gestion', en: 'business rule' },
  tool: { fr: 'outil', en: 'tool' },
  key_person_dependency: { fr: 'dépendance à une personne', en: 'key person dependency' },
  risk: { fr: 'risque', en: 'risk' },
  good_practice: { fr: 'bonne pratique', en: 'good practice' },
  other: { fr: 'autre', en: 'other' },
};

const REVIEW_STATUSES: Dict = {
  proposed: { fr: 'proposé', en: 'proposed' },
  validated: { fr: 'validé', en: 'validated' },
  rejected: { fr: 'rejeté', en: 'rejected' },
};

const TOPICS: Dict = {
  irritants: { fr: 'irritants', en: 'pain points' },
  volumes: { fr: 'volumes', en: 'volumes' },
  rules: { fr: 'règles', en: 'rules' },
  risks: { fr: 'risques', en: 'risks' },
  tools: { fr: 'outils', en: 'tools' },
  delays: { fr: 'délais', en: 'delays' },
  master_data: { fr: 'données de référence', en: 'master data' },
  steering: { fr: 'pilotage', en: 'steering' },
  good_practices: { fr: 'bonnes pratiques', en: 'good practices' },
};

const USAGES: Dict = {
  analysis: { fr: 'analyse', en: 'analysis' },
  voice: { fr: 'voix', en: 'voice' },
  tts: { fr: 'synthèse vocale', en: 'text to speech' },
  stt: { fr: 'reconnaissance vocale', en: 'speech to text' },
  transcription: { fr: 'transcription', en: 'transcription' },
  chat: { fr: 'chat', en: 'chat' },
  vision: { fr: 'vision', en: 'vision' },
  embedding: { fr: 'plongements', en: 'embeddings' },
  ocr: { fr: 'OCR', en: 'OCR' },
};

const named = (dict: Dict) => (v: unknown) => (typeof v === 'string' && dict[v] ? tr(dict, v) : words(v));

export const findingType = named(FINDING_TYPES);
export const reviewStatus = named(REVIEW_STATUSES);
export const topicName = named(TOPICS);
export const usageName = named(USAGES);
