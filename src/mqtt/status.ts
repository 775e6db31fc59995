// The link's figures and answer shapes, shared by the link (loaded when configured) and the
// route and metrics (always there): no import of the link itself.
import type { Cell } from '../metrics/registry.ts';

export interface MqttStatus {
  enabled: true;
  url: string;
  clientId: string;
  connected: boolean;
  since: string;
  lastError: { time: string; text: string } | null;
  published: number;
  received: number;
}

/** What the link counts into (src/metrics/agent.ts holds the cells). */
export interface MqttFigures {
  connects: Cell;
  command(action: string, status: number): void;
}
