// Types of stale.mjs, for the tests (TypeScript does not check the bench's .mjs files).
export function staleBuild(root: string, bin: string): string | undefined;
export function codeOf(root: string): string;
