/**
 * A second floor, outside Node.js: nginx as a plain keep-alive reverse proxy in front of the
 * mock, one process (no master), no logging, no buffering. What it adds is what this machine
 * charges for one extra process and two loopback hops when the proxy itself costs next to
 * nothing; the Node.js floor (floor-proxy.ts) adds Node's own cost on top. Optional: measured
 * when an `nginx` binary is installed (Debian: `apt-get install nginx-light`).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, serving, spawnChild, type Child } from './processes.ts';

/** The nginx binary and its version line, or null when none is installed. */
export function findNginx(): { bin: string; version: string } | null {
  for (const bin of ['nginx', '/usr/sbin/nginx']) {
    const probe = spawnSync(bin, ['-v'], { encoding: 'utf8' });
    if (probe.status === 0) return { bin, version: probe.stderr.trim().replace(/^nginx version: /, '') };
  }
  return null;
}

/** Start nginx on a free port, proxying to `upstreamOrigin`, with its files under `dir`. */
export async function startNginx(bin: string, upstreamOrigin: string, dir: string): Promise<Child & { url: string }> {
  const port = await freePort();
  await mkdir(join(dir, 'nginx-temp'), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'nginx-error.log')} error;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'nginx-temp')};
  proxy_temp_path ${join(dir, 'nginx-temp')};
  upstream mock { server ${new URL(upstreamOrigin).host}; keepalive 128; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
`,
  );
  const child = spawnChild('nginx', bin, ['-e', join(dir, 'nginx-error.log'), '-c', conf]);
  return serving(child, port);
}
