// The parts of zod 4's schema definitions (`schema._zod.def`) read outside zod: argument reading
// (src/mcp/pipeline/arguments.ts) follows a schema's wrappers and checks to read values as models send them,
// and the fuzz suite builds its arbitraries from the same definitions.
import type { z } from 'zod';

interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  length?: number;
  error?: (issue?: unknown) => unknown;
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
  options?: z.ZodType[];
  valueType?: z.ZodType;
  in?: z.ZodType;
  format?: string;
  /** Set on string formats (email, uuid...): the pattern the format checks. */
  pattern?: RegExp;
  checks?: Array<{ _zod: { def: CheckDef } }>;
}

export const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
export const checksOf = (s: z.ZodType): CheckDef[] => (defOf(s).checks ?? []).map((c) => c._zod.def);
