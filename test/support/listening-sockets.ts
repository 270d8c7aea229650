import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The sockets a process listens on, read from /proc (Linux): TCP ports on any address, and Unix
 * socket paths. Read by socket inode, so only the process's own listeners count, not the machine's.
 */

export interface ListeningSockets {
  tcp: { address: string; port: number }[];
  unix: string[];
}

function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // Closed while being read.
    }
  }
  return inodes;
}

const TCP_LISTEN = '0A';
/** __SO_ACCEPTCON in /proc/net/unix's Flags column: a listening Unix socket. */
const UNIX_ACCEPTING = 0x10000;

export function listeningSocketsOf(pid: number): ListeningSockets {
  const inodes = socketInodesOf(pid);
  const tcp: ListeningSockets['tcp'] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, port] = fields[1]!.split(':');
      if (fields[3] === TCP_LISTEN && inodes.has(fields[9]!)) tcp.push({ address: address!, port: parseInt(port!, 16) });
    }
  }
  const unix: string[] = [];
  for (const line of readFileSync('/proc/net/unix', 'utf8').trim().split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if ((parseInt(fields[3]!, 16) & UNIX_ACCEPTING) !== 0 && inodes.has(fields[6]!)) unix.push(fields[7] ?? '(unnamed)');
  }
  return { tcp: tcp.sort((a, b) => a.port - b.port), unix: unix.sort() };
}
