// Types of scripts/test-deps.mjs (plain JavaScript, so that it runs before anything is built).
export interface TestProgram {
  program: string;
  names: readonly string[];
  pkg: { debian: string; ubuntu?: string };
  version: readonly string[];
  usedBy: string;
}
export declare const PROGRAMS: readonly TestProgram[];
export declare function nodeFloor(): [number, number, number];
export declare function nodeInstallLine(major: number): string;
export declare function nodeRefusal(version?: string): string | undefined;
export declare function findProgram(name: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare function programVersion(name: string, env?: NodeJS.ProcessEnv): string | undefined;
export declare function installCommand(pkgs: readonly string[]): string;
export declare function ensureTestPrograms(env?: NodeJS.ProcessEnv, log?: (line: string) => void): number;
