// Fixed ids of the records other areas point at, so each area's seed can reference the others
// whatever order they run in, and the same ids come back on every start.
export const WS_ATELIER = '01M1D47Z00H0000HRCYV2EBQSD';
export const WS_GLOBEX = '01M1D49SK0200000GRCP2KYC0W';
export const MEMBER_CLAIRE = '01M1D4BM60K00000HGRMY9D14H'; // admin of atelier, the demo member
export const MEMBER_MARC = '01M1D4DES04000000GRMNYTDQ6'; // consultant of atelier
export const MEMBER_SOPHIE = '01M1D4F9C0N0004V846ZNSYRZZ'; // consultant of atelier
export const MEMBER_GLOBEX_ADMIN = '01M1D4H3Z0600040H0G0C4D6C2';
export const CLIENT_BERTHIER = '01M1D4JYJ0Q00040GRWYN74ED1'; // Maison Berthier SA, the audited client
export const ENGAGEMENT_AP = '01M1D4MS5080000000GGT70VZH'; // accounts-payable audit of Maison Berthier
export const CLIENT_GLOBEX = '01M1D4PKR0S00002C0GG403N98';
export const ENGAGEMENT_GLOBEX = '01M1D4REB0A000001PGGMRZVGX';
export const METHOD_P2P = '01M1D4T8Y0V0000000GG4G47GN'; // the procure-to-pay interview method
export const INTERVIEW_AP_CLERK = '01M1D4W3H0C0000000C6KHWGDF';
export const INTERVIEW_CONTROLLER = '01M1D4XY40X0000000GG4KSCYV';
export const INTERVIEW_BUYER = '01M1D4ZRQ0E0000000GGMRZQCZ';
export const SESSION_AP_CLERK = '01M1D51KA0Z0000000GG4GMSKS';
export const SESSION_CONTROLLER = '01M1D53DX0G0000000GGM8Q7E0';
export const SESSION_BUYER = '01M1D558G010000000GG40KDKM';
export const DRAFT_AP = '01M1D57330J00040GRWYZ363XK';
export const VERSION_AP_1 = '01M1D58XP03000001PFT56N701';

/** Seeded timestamps are fixed too: the demo audit ran in autumn 2026. */
export const SEED_BASE = Date.UTC(2026, 8, 14, 8, 0, 0);
export const at = (days: number, hours = 0) => new Date(SEED_BASE + days * 86_400_000 + hours * 3_600_000).toISOString();
