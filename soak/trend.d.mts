// Types of trend.mjs for the TypeScript tests.
export interface Tolerance {
  ratio?: number;
  slack?: number;
  stat?: 'median' | 'floor';
}
export interface Verdict {
  first: number;
  last: number;
  grows: boolean;
  enough: boolean;
  stat: string;
}
export function median(values: number[]): number;
export function trend(values: number[], tolerance?: Tolerance): Verdict;
export const TOLERANCE: Record<'rssKb' | 'anonKb' | 'fds' | 'children', Tolerance>;
