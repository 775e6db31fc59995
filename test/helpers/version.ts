// The version the agent must report: package.json's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './agent.ts';

export const PKG_VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
