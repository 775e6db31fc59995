// npm run lint: no file of the repository cites a document that is not in it. A rule is
// cited by the section of docs/ that states it (docs/api.md#files), never as a numbered
// section of an outside description or an issue number, which a reader of the
// repository cannot open. Prints each citation found, exits 1 when there is one.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const FORMS = [
  /\bCONTRACT\s*§\s*\d/, // the outside contract's sections
  /\b[Cc]ontract\s+section\s+\d/,
  /\bspec\s*§\s*\d/, // the outside description's sections
  /\bspec\s+\d+\.\d+\b/,
  /(?<!systemd )\b[Ii]ssue\s*#?\d+\b/, // this project's issues (another project's, named, may be cited)
];
const SKIP = /(^|\/)(package-lock\.json|.*\.(png|svg|gz|bin|img))$/;

const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !SKIP.test(f));
const found = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  } // deleted in the work tree
  text.split('\n').forEach((line, i) => {
    if (FORMS.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
  });
}
if (found.length > 0) {
  console.error(`citations of documents outside the repository (cite the section of docs/ that states the rule):\n${found.join('\n')}`);
  process.exit(1);
}
