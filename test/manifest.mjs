// Which test files run in which pass, and how long each may take. The runner (run.mjs)
// runs every *.test.ts file in test/ against the sources; those not listed in `once`
// run a second time against the built executable (TEST_AGENT=bin).

/** Files that do not depend on how the agent is run (pure units, the package, the bench harness). */
export const once = new Set([
  'events-hub.test.ts',
  'unit-atomic.test.ts',
  'unit-auth-limits.test.ts',
  'unit-bundle.test.ts',
  'unit-errors.test.ts',
  'unit-logger.test.ts',
  'unit-metrics.test.ts',
  'unit-multipart.test.ts',
  'unit-release.test.ts',
  'unit-paths.test.ts',
  'unit-router.test.ts',
  'unit-soak-trend.test.ts',
  'unit-time.test.ts',
  'unit-clock.test.ts',
  'unit-users-poller.test.ts',
  'unit-users-file.test.ts',
  'unit-web-names.test.ts',
  'unit-retention.test.ts',
  'unit-coalesce.test.ts',
  'unit-schedule-sun.test.ts',
  'unit-schedule-windows.test.ts',
  'unit-schedule-salvage.test.ts',
  'unit-schedule-document.test.ts',
  'unit-outbox-retention.test.ts',
  'unit-outbox-queue.test.ts',
  'unit-mqtt.test.ts',
  // In-process: the operations of a running agent called without HTTP (src/ops/invoke.ts).
  'ops-invoke.test.ts',
  'package-build.test.ts',
  'package-install.test.ts',
  'package-repo.test.ts',
  'package-repo-key.test.ts',
  'fleet-ansible.test.ts',
  'fleet-role.test.ts',
  'fleet-role-links.test.ts',
  'bench-smoke.test.ts',
  'bench-soak.test.ts',
  'system-vm.test.ts',
  'memory-cgroup.test.ts',
  // The client runs against the built executable whatever the pass (test/helpers/dagent.ts).
  'client-commands.test.ts',
  'client-login.test.ts',
  'client-hosts.test.ts',
  'client-resume.test.ts',
  'client-terminal.test.ts',
  'client-big.test.ts',
  'client-types.test.ts',
  // tsc on a program of openapi-fetch calls (~1 min): once is enough.
  'client-openapi-fetch.test.ts',
  'client-download.test.ts',
  'client-upload.test.ts',
  'client-schedule.test.ts',
  // The limiter's memory: the same code from source as in the executable, and ~1-2 min.
  'auth-limiter.test.ts',
  'unit-file-lock.test.ts',
  'unit-audit-journal.test.ts',
  // Both runtimes in one pass: the tests' Node and the Node the agent embeds.
  'unit-tick-map.test.ts',
  'unit-settle.test.ts',
  // The Node-RED nodes are built on the client, so they run against the built executable too.
  'nodered-nodes.test.ts',
  'nodered-runtime.test.ts',
]);

/** Seconds a file may run before it is stopped and counted as failed. */
export const DEFAULT_TIMEOUT_S = 300;
export const timeouts = {
  // Real brokers started per test, reconnect waits of 1-4 s, a TLS broker: ~60 s on a quiet host.
  'mqtt-link.test.ts': 600,
  'package-build.test.ts': 900,
  'package-install.test.ts': 900,
  // Builds both packages (~2 min on a quiet host), then apt in a Debian root.
  'package-repo.test.ts': 900,
  // ~55 s on a quiet host (ten ansible-playbook runs over five agents); 230 s seen under a load of 16.
  'fleet-ansible.test.ts': 600,
  // Builds both packages, then ansible-playbook three times into a Debian root.
  'fleet-role.test.ts': 900,
  // Builds both packages, then ansible-playbook three times into a Debian root (as fleet-role).
  'fleet-role-links.test.ts': 900,
  'bench-smoke.test.ts': 600,
  'bench-soak.test.ts': 300,
  // ~90 s on a quiet 2-core host (four agents, Chromium, a 20 MB upload throttled to 20 MB/s).
  'web-browser.test.ts': 420,
  // 40,000+ logins of 16 KiB each: ~60 s alone, more on a busy host.
  'auth-limiter.test.ts': 600,
  // 1 GiB up and down under two Node.js runtimes: ~40 s on a quiet 2-core host, 100 s at load 15.
  'client-big.test.ts': 420,
  // Builds a Debian VM image on first use (~3 min), then two boots under emulation.
  'system-vm.test.ts': 3600,
};

export const passes = [
  { name: 'sources', env: { TEST_AGENT: 'source' }, includes: () => true },
  { name: 'built executable (dist/device-agent)', env: { TEST_AGENT: 'bin' }, includes: (file) => !once.has(file), needsBuild: true },
];
