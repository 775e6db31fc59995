// GET /api/v1/devicestatus/get and GET /api/v1/health
import { ref } from '../apidocs/responses.ts';
import { toRoute } from '../ops/http.ts';
import { operation } from '../ops/operation.ts';
import type { Route } from '../http/types.ts';
import { VERSION } from '../util/version.ts';
import type { StatusSampler } from './sampler.ts';

export function statusRoutes({ sampler }: { sampler: StatusSampler }): Route[] {
  return [
    operation({
      id: 'deviceStatus',
      method: 'GET',
      path: '/api/v1/devicestatus/get',
      scope: 'status',
      action: 'status',
      tags: ['status'],
      summary: 'Current device status',
      answers: { 200: { description: 'the device status record', schema: ref('DeviceStatus') } },
      // The sampler keeps one serialised body until the next sample: sent as it is.
      run: () => {
        const json = sampler.json();
        return json instanceof Promise ? json.then((j) => ({ status: 200, json: j })) : { status: 200, json };
      },
    }),
    operation({
      id: 'health',
      method: 'GET',
      path: '/api/v1/health',
      scope: null,
      tags: ['status'],
      summary: 'Liveness and version',
      answers: { 200: { description: 'the agent runs', schema: ref('Health') } },
      run: () => ({ status: 200, body: { status: 'ok', version: VERSION } }),
    }),
  ].map(toRoute);
}
