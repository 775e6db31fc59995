// The library's API types from the agent's OpenAPI document (openapi-typescript), as one
// TypeScript module. Shared by `npm run gen` and the drift test, so both write the same text.
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER =
  "// Generated from the agent's /docs/openapi.json by `npm run gen -w client`: do not edit.\n" +
  '// test/client-types.test.ts fails when the document an agent serves and this file differ.\n';

/** The module text for an OpenAPI document (an object, as served). */
export async function generate(doc) {
  const copy = structuredClone(doc);
  // The description names the running agent's certificate (fingerprint, pin): not an API fact.
  if (copy.info) delete copy.info.description;
  const ast = await openapiTS(copy, { alphabetize: true });
  return HEADER + astToString(ast);
}
