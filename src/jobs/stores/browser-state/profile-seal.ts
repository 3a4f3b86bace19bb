import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigurationError } from '../../../errors.js';

/** How a sealed value starts: the format's version, so a later one can be told apart. */
const SEALED = 'aes256gcm:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encryption at rest of profiles (and of any cookies kept beside jobs): AES-256-GCM with a key derived from
 * PROFILE_SECRET by HKDF-SHA256, a fresh 96-bit IV per value, and the value's name as associated data (a
 * sealed value copied under another name does not open). Without a secret, values are stored as they are.
 */
export class ProfileSeal {
  private readonly key: Buffer | null;

  constructor(secret: string | null) {
    this.key =
      secret === null
        ? null
        : Buffer.from(hkdfSync('sha256', secret, 'pagewright', 'profile state, AES-256-GCM', 32));
  }

  seal(name: string, plain: string): string {
    if (!this.key) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(name, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The plain value; a sealed one that this secret (or no secret) cannot open is a 500 saying so. */
  open(name: string, stored: string): string {
    if (!stored.startsWith(SEALED)) return stored; // stored before PROFILE_SECRET was set
    if (!this.key) {
      throw new ConfigurationError(`Profile '${name}' is stored encrypted; set PROFILE_SECRET to read it`);
    }
    try {
      const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(name, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new ConfigurationError(
        `Profile '${name}' does not open with this PROFILE_SECRET (it was stored with another one)`,
      );
    }
  }
}
