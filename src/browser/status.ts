// "Device status": the figures with their units, the outbox and MQTT link when they are on
// (status-links.ts), and the chart, fed by the live stream.
import { chart } from './chart.ts';
import { figure, fill, h } from './dom.ts';
import { bytes, duration, percent } from './format.ts';
import { statusLinks } from './status-links.ts';
import type { DeviceStatus, TlsInfo } from './types.ts';

/** part of whole in percent, or null when either is unknown (a probe that failed). */
const share = (part: number | null, whole: number | null) => (part === null || !whole ? null : (100 * part) / whole);

export function statusView() {
  const figures = h('dl', { class: 'figures' });
  const plot = chart();
  const legend = h(
    'p',
    { class: 'legend', 'aria-hidden': 'true' },
    h('span', { class: 'key cpu' }),
    'CPU load ',
    h('span', { class: 'key mem' }),
    'Memory',
  );
  const updated = h('p', { class: 'note updated' });
  const tls = h('p', { class: 'tls', hidden: true });
  const links = statusLinks();
  const el = h(
    'section',
    { 'aria-labelledby': 'h-status', class: 'card status' },
    h('h2', { id: 'h-status' }, 'Device status'),
    figures,
    ...links.els,
    tls,
    updated,
    h('figure', {}, plot.el, h('figcaption', {}, legend, 'Last 10 minutes')),
  );
  figures.append(h('p', {}, 'Loading…'));

  return {
    el,
    update(s: DeviceStatus) {
      const memPercent = share(s.memory.usedBytes, s.memory.totalBytes);
      const diskPercent = share(s.disk.usedBytes, s.disk.totalBytes);
      const temp = s.cpu.temperatureCelsius === null ? '' : `, ${s.cpu.temperatureCelsius.toFixed(0)} °C`;
      fill(
        figures,
        ...figure('Hostname', s.hostname, `(${s.distro}, ${s.arch})`),
        ...figure('CPU load', percent(s.cpu.loadPercent), `of ${s.cpu.cores} cores${temp}`),
        ...figure('Memory', `${bytes(s.memory.usedBytes)} used of ${bytes(s.memory.totalBytes)}`, `(${percent(memPercent)})`),
        ...figure(
          'Disk',
          `${bytes(s.disk.availableBytes)} free of ${bytes(s.disk.totalBytes)}`,
          `(${percent(diskPercent)} used, ${s.disk.path})`,
        ),
        ...figure('Uptime', duration(s.uptimeSeconds), `(agent ${s.agent.version})`),
      );
      updated.textContent = `Updated ${new Date(s.time).toLocaleTimeString()} (device clock)`;
      plot.push(Date.now() / 1000, s.cpu.loadPercent, memPercent);
      links.tick();
    },
    outboxChanged: links.outboxChanged,
    /** The HTTPS certificate a client should see (docs/api.md#https), when the agent tells it. */
    showTls(info: TlsInfo) {
      tls.hidden = false;
      if (!info.enabled) {
        fill(tls, 'HTTPS is off on this agent.');
        return;
      }
      fill(
        tls,
        `HTTPS certificate${info.selfSigned ? ' (self-signed)' : ''}, SHA-256 fingerprint: `,
        h('code', {}, info.fingerprint ?? ''),
        h('span', { class: 'detail' }, ` valid until ${new Date(info.notAfter ?? '').toLocaleDateString()}`),
      );
    },
    destroy: () => plot.destroy(),
  };
}
