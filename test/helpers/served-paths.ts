// Prints the paths of the OpenAPI document the built agent serves, as one JSON array: run
// synchronously by test/helpers/dagent.ts, whose tests are registered before any await.
import { startAgent } from './agent.ts';

process.env.TEST_AGENT = 'bin';
const agent = await startAgent();
try {
  const doc = (await (await fetch(`${agent.url}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
  process.stdout.write(JSON.stringify(Object.keys(doc.paths)));
} finally {
  await agent.cleanup();
}
