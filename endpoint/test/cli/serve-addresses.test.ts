/** The addresses `serve` prints: ones other machines can use, never 0.0.0.0. */
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { reachableUrls } from '../../src/cli/serve.js';
import { whereKept } from '../../src/store/where-kept.js';

const v4 = (address: string, internal = false): NetworkInterfaceInfo => ({ address, family: 'IPv4', internal, netmask: '255.0.0.0', mac: '00:00:00:00:00:00', cidr: null });
const v6 = (address: string, internal = false): NetworkInterfaceInfo => ({ address, family: 'IPv6', internal, netmask: 'ffff::', mac: '00:00:00:00:00:00', cidr: null, scopeid: 0 });

const interfaces = {
  lo: [v4('127.0.0.1', true), v6('::1', true)],
  eth0: [v4('10.0.0.5'), v6('fe80::1'), v6('2001:db8::5')],
  docker0: [v4('172.17.0.1')],
  gone: undefined,
};

describe('reachableUrls', () => {
  it('lists the interfaces\' IPv4 addresses for 0.0.0.0: other machines\' first, loopback last', () => {
    expect(reachableUrls('http://0.0.0.0:3981', interfaces)).toEqual(['http://10.0.0.5:3981', 'http://172.17.0.1:3981', 'http://127.0.0.1:3981']);
  });

  it('lists IPv6 addresses too for ::, without link-local ones, in brackets', () => {
    expect(reachableUrls('https://[::]:8443', interfaces)).toEqual(['https://10.0.0.5:8443', 'https://172.17.0.1:8443', 'https://[2001:db8::5]:8443', 'https://127.0.0.1:8443', 'https://[::1]:8443']);
    // The scheme's own port is not written (new URL drops it).
    expect(reachableUrls('https://0.0.0.0:443', interfaces)[0]).toBe('https://10.0.0.5');
  });

  it('keeps an address that is already one, and the URL itself when no interface is known', () => {
    expect(reachableUrls('http://127.0.0.1:3979', interfaces)).toEqual(['http://127.0.0.1:3979']);
    expect(reachableUrls('http://192.168.1.4:3979', interfaces)).toEqual(['http://192.168.1.4:3979']);
    expect(reachableUrls('http://0.0.0.0:3979', {})).toEqual(['http://0.0.0.0:3979']);
    expect(reachableUrls('http://0.0.0.0:3979', { lo: [v4('127.0.0.1', true), v4('127.0.0.1', true)] })).toEqual(['http://127.0.0.1:3979']);
  });
});

describe('whereKept', () => {
  it('says memory for an in-memory database, and names the database and where it is otherwise', () => {
    expect(whereKept('sqlite', ':memory:')).toBe('in memory only (lost on stop)');
    expect(whereKept('sqlite', '/var/lib/tracking/tracking.db')).toBe('in SQLite /var/lib/tracking/tracking.db');
    expect(whereKept('postgres', 'postgres://tracking@db:5432/tracking')).toBe('in PostgreSQL postgres://tracking@db:5432/tracking');
  });
});
