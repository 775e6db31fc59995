/** The module text of src/openapi.ts for an OpenAPI document (an object, as served). */
export function generate(doc: unknown): Promise<string>;
