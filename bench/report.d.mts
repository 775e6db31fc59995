// Types of report.mjs, for the tests (TypeScript does not check the bench's .mjs files).
export function median(xs: number[]): number;
export function pairRatio(agent: number[], baseline: number[]): number;
export function pairRatios(agent: number[], baseline: number[]): number[];
export function table(rows: object[]): string;
export function svg(bars: object[]): string;
