import { boot, overlayOf, vmImage } from './helpers/vm.ts';
const built = await vmImage();
const overlay = '/tmp/vmx/disk.qcow2';
await overlayOf(built.image, overlay);
const b = await boot({ overlay, payload: '/tmp/vmx/payload', accel: 'tcg', timeoutMs: 15 * 60_000 });
for (const [k, v] of b.results) console.log(k, '=', v);
console.log('seconds', b.seconds, 'timedOut', b.timedOut);
