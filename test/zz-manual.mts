import { startClientAgent } from '/work/wt-client/test/helpers/dagent.ts';
const agent = await startClientAgent(true);
console.log(agent.clientUrl, agent.dir);
await new Promise((r) => setTimeout(r, 120_000));
await agent.cleanup();
