import { describe, expect, it } from 'vitest';
import { bearerTokenOf, identityOfClaims, isEmailVerified } from '../../lambdas/core/auth/identity-token';
import { serviceErrorOf } from '../support/service-errors';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('bearerTokenOf', () => {
  it('takes the token of one Bearer header, scheme in any case', () => {
    expect(bearerTokenOf([`Bearer ${TOKEN}`])).toBe(TOKEN);
    expect(bearerTokenOf([`bearer ${TOKEN}`])).toBe(TOKEN);
  });

  it.each([
    ['no header', undefined, 'Missing Authorization header'],
    ['an empty list', [], 'Missing Authorization header'],
    ['two headers', [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`], 'exactly one'],
    ['another scheme', [`Basic ${TOKEN}`], 'Bearer scheme'],
    ['garbage', ['Bearer not-a-jwt'], 'Malformed ID token'],
    ['a JWT with markup', ['Bearer <a>.<b>.<c>'], 'Malformed ID token'],
  ])('refuses %s with a 401 that does not echo it', (_, header, reason) => {
    const error = serviceErrorOf(() => bearerTokenOf(header));
    expect(error.status).toBe(401);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain('not-a-jwt');
  });
});

describe('isEmailVerified', () => {
  it('takes the boolean true and the string "true" (Cognito sends either)', () => {
    expect(isEmailVerified(true)).toBe(true);
    expect(isEmailVerified('true')).toBe(true);
  });

  it.each([false, 'false', 'TRUE', 1, undefined, null])('does not take %j', (claim) => {
    expect(isEmailVerified(claim)).toBe(false);
  });
});

describe('identityOfClaims', () => {
  const claims = { sub: 'abc-123', email: 'Ada@Example.ORG', email_verified: true };

  it('gives the subject and the lower-cased e-mail', () => {
    expect(identityOfClaims(claims)).toEqual({ subject: 'abc-123', email: 'ada@example.org' });
  });

  it("takes Cognito's ID tokens (token_use id) and refuses its access tokens", () => {
    expect(identityOfClaims({ ...claims, token_use: 'id' }).subject).toBe('abc-123');
    expect(serviceErrorOf(() => identityOfClaims({ ...claims, token_use: 'access' })).message).toContain('not an access token');
  });

  it.each([
    ['an unverified e-mail', { ...claims, email_verified: false }, 'not verified'],
    ['no email_verified claim', { sub: 'abc-123', email: 'ada@example.org' }, 'not verified'],
    ['no e-mail', { sub: 'abc-123', email_verified: true }, 'no e-mail'],
    ['an e-mail that is not one', { ...claims, email: 'ada' }, 'no e-mail'],
    ['no subject', { email: 'ada@example.org', email_verified: true }, 'no subject'],
  ])('refuses %s with a 401 that names no claim value', (_, given, reason) => {
    const error = serviceErrorOf(() => identityOfClaims(given));
    expect(error.status).toBe(401);
    expect(error.message).toContain(reason);
    expect(error.message.toLowerCase()).not.toContain('ada@');
  });
});
