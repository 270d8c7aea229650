import { describe, expect, it } from 'vitest';
import { commandNameOf } from '../../local/admin-channel/channel-server';

describe('commandNameOf: what the server logs of an admin command', () => {
  it('keeps the command words and drops every value: owners, ids, paths, options', () => {
    expect(commandNameOf(['keys', 'create', '--tier', 'pro', '--owner', 'jane.doe@example.org'])).toBe('keys create');
    expect(commandNameOf(['keys', 'revoke', 'key_k3kdZ8hQrkM4hpoe'])).toBe('keys revoke');
    expect(commandNameOf(['ingest', '/home/jane/private/grants.jsonl', '--strict'])).toBe('ingest');
    expect(commandNameOf(['ingest', 'grants.jsonl'])).toBe('ingest');
    expect(commandNameOf(['webhooks', 'add', '--url', 'https://hooks.example.com/x'])).toBe('webhooks add');
    expect(commandNameOf(['scan-deadlines', '--json'])).toBe('scan-deadlines');
    expect(commandNameOf(['--json'])).toBe('(none)');
    expect(commandNameOf([])).toBe('(none)');
  });
});
