// Types of build/web-page.mjs for its TypeScript callers (src/webui/page-files.ts).
export function buildPage(): Promise<Map<string, Buffer>>;
export function compress(plain: Buffer): { gzip: Buffer; br: Buffer };
export function writePageAssets(dir: string): Promise<Record<string, string>>;
