// Adds lock file entries for platform-specific optional packages (e.g. @swc/core-darwin-arm64)
// that `npm install` leaves out when the package registry it reaches does not carry them.
// Without those entries `npm ci` refuses the lock as out of sync. Each stub carries the os, cpu
// and libc of its name, so npm skips it on every other platform and fetches it where it fits.
// Run after any dependency change: `npm run lock:stubs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'];

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[base] || packages[`node_modules/${name}`]) continue;
    const tokens = name.split('/').pop().split('-');
    const os = OS.find((t) => tokens.includes(t));
    const cpu = CPU.find((t) => tokens.includes(t));
    if (!os || !cpu) continue;
    const stub = { version, cpu: [cpu], os: [os], optional: true };
    if (os === 'linux') stub.libc = [tokens.some((t) => t.startsWith('musl')) ? 'musl' : 'glibc'];
    packages[`node_modules/${name}`] = stub;
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform stub(s) to package-lock.json`);
