import type { AdapterPayload } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { LocalUsers } from '../../local/oidc/local-users';
import { memoryAdapterFactory } from '../../local/oidc/memory-adapter';

describe('memoryAdapterFactory (the local provider storage)', () => {
  it('keeps an item until it expires, by model, and finds sessions by uid', async () => {
    let clock = 1_000_000;
    const adapters = memoryAdapterFactory(() => clock);
    const sessions = adapters('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'a' } as AdapterPayload, 60);
    expect(await adapters('Grant').find('s1')).toBeUndefined();
    expect((await sessions.findByUid('u1'))?.accountId).toBe('a');
    clock += 59_000;
    expect(await sessions.find('s1')).toBeDefined();
    clock += 2_000;
    expect(await sessions.find('s1')).toBeUndefined();
    expect(await sessions.findByUid('u1')).toBeUndefined();
  });

  it('marks a consumed code and forgets everything of a revoked grant', async () => {
    const adapters = memoryAdapterFactory(() => 5_000_000);
    const codes = adapters('AuthorizationCode');
    const tokens = adapters('AccessToken');
    await codes.upsert('c1', { grantId: 'g1' } as AdapterPayload, 60);
    await tokens.upsert('t1', { grantId: 'g1' } as AdapterPayload, 60);
    await tokens.upsert('t2', { grantId: 'g2' } as AdapterPayload, 60);
    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toBe(5_000);
    await tokens.revokeByGrantId('g1');
    expect(await codes.find('c1')).toBeUndefined();
    expect(await tokens.find('t1')).toBeUndefined();
    expect(await tokens.find('t2')).toBeDefined();
  });

  it('destroys an item and its uid index', async () => {
    const sessions = memoryAdapterFactory()('Session');
    await sessions.upsert('s1', { uid: 'u1' } as AdapterPayload);
    await sessions.destroy('s1');
    expect(await sessions.find('s1')).toBeUndefined();
    expect(await sessions.findByUid('u1')).toBeUndefined();
  });
});

describe('LocalUsers', () => {
  it('checks an e-mail (any case) and password, and gives a subject stable across instances', () => {
    const users = new LocalUsers();
    const added = users.add('Ada@Localhost.Test', 'correct horse');
    expect(added.email).toBe('ada@localhost.test');
    expect(users.check('ADA@localhost.test', 'correct horse')).toEqual(added);
    expect(users.check('ada@localhost.test', 'Correct horse')).toBeNull();
    expect(users.check('bob@localhost.test', 'correct horse')).toBeNull();
    expect(users.find(added.subject)).toEqual(added);
    expect(new LocalUsers().add('ada@localhost.test', 'another password').subject).toBe(added.subject);
    expect(new LocalUsers().add('bob@localhost.test', 'another password').subject).not.toBe(added.subject);
  });

  it('refuses a person without an e-mail or with a short password', () => {
    const users = new LocalUsers();
    expect(() => users.add('not an e-mail', 'long enough')).toThrow('e-mail');
    expect(() => users.add('ada@localhost.test', 'short')).toThrow('8 characters');
  });
});
