import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** A person the local provider can sign in: what its ID tokens say about them. */
export interface LocalUser {
  subject: string;
  email: string;
}

/**
 * The local provider's people, by e-mail (lower-cased), each with a scrypt hash of their password.
 * Kept in memory: the development account is added again from the state folder on each start.
 */
export class LocalUsers {
  private readonly byEmail = new Map<string, { user: LocalUser; salt: Buffer; hash: Buffer }>();
  private readonly bySubject = new Map<string, LocalUser>();

  /** Adds (or replaces the password of) a person; their subject is the same for an e-mail on every start. */
  add(email: string, password: string): LocalUser {
    const normalised = email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+$/.test(normalised)) throw new Error('a local user needs an e-mail address');
    if (password.length < 8) throw new Error('a local user needs a password of 8 characters or more');
    const user = { subject: subjectFor(normalised), email: normalised };
    const salt = randomBytes(16);
    this.byEmail.set(normalised, { user, salt, hash: scryptSync(password, salt, 32) });
    this.bySubject.set(user.subject, user);
    return user;
  }

  /** The person whose e-mail and password these are, or null (the same work whether or not the e-mail is known). */
  check(email: string, password: string): LocalUser | null {
    const entry = this.byEmail.get(email.trim().toLowerCase());
    const hash = scryptSync(password, entry?.salt ?? UNKNOWN_SALT, 32);
    return entry && timingSafeEqual(hash, entry.hash) ? entry.user : null;
  }

  find(subject: string): LocalUser | undefined {
    return this.bySubject.get(subject);
  }
}

const UNKNOWN_SALT = randomBytes(16);

/** A stable, opaque subject: derived from the e-mail, so it survives restarts without being stored. */
function subjectFor(email: string): string {
  return `local-${createHash('sha256').update(`gcf-local-user:${email}`).digest('base64url').slice(0, 22)}`;
}
