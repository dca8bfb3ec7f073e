/**
 * The dashboard's one-time flash: what a form's answer has to say on the page it redirects to (a
 * notice, an error in words, the fields to keep, or a secret shown once: a new API key, an invitation's link), kept on
 * the server for one read, so every POST can answer 303 and a reload or back-navigation never repeats nor reveals it.
 *
 * The browser holds only a random flash id in a cookie (`cv_flash`, HttpOnly, SameSite=Strict, Path=/dashboard, 5 min).
 * The store holds, under SHA-256(scope, id), the flash sealed with AES-256-GCM under a key derived from that id, for at
 * most FLASH_TTL_MS; reading it deletes it (Redis GETDEL). The scope is the session's id (or, before sign-in, the
 * sign-in form's nonce), so a flash id is worth nothing in another session, and a read of the store (or its backups)
 * reveals no key or link. Redis when REDIS_URL is set (any dashboard node reads what another wrote); in process
 * otherwise, the single-process embedded mode, as the rate limiter does.
 */
import crypto from 'node:crypto';
import Redis from 'ioredis';

/** What a redirected-to page shows once. `form` keeps what was typed (never a password). */
export interface Flash {
  notice?: string;
  error?: string;
  form?: Record<string, string | string[]>;
  /** A full API key, shown once (only its hash is kept by accounts). */
  newKey?: string;
  /** An invitation's one-time link, shown once to the inviter, with whom it invites. */
  invite?: { link: string; email: string; role: string; expires_at: string };
}

export const FLASH_COOKIE = 'cv_flash';
export const FLASH_TTL_MS = 5 * 60_000;
const FLASH_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface FlashStore {
  /** Keeps `flash` for one read in `scope`; the id to put in the cookie. */
  put(scope: string, flash: Flash): Promise<string>;
  /** The flash of `id` in `scope`, deleted as it is read; null when there is none (read already, expired, another scope). */
  take(scope: string, id: string | undefined): Promise<Flash | null>;
  close(): Promise<void>;
}

const storageKey = (scope: string, id: string) => crypto.createHash('sha256').update(`${scope}\0${id}`).digest('hex');
const sealingKey = (id: string) => crypto.createHmac('sha256', id).update('dashboard-flash').digest();

function seal(id: string, flash: Flash): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealingKey(id), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function unseal(id: string, sealed: string): Flash | null {
  try {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', sealingKey(id), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as Flash;
  } catch {
    return null;
  }
}

class RedisFlashStore implements FlashStore {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2000 });
    // Errors surface on the call that meets them; never log the URL (it may carry a password).
    this.redis.on('error', () => {});
  }

  async put(scope: string, flash: Flash): Promise<string> {
    const id = crypto.randomBytes(32).toString('base64url');
    await this.redis.set(this.prefix + storageKey(scope, id), seal(id, flash), 'PX', FLASH_TTL_MS);
    return id;
  }

  async take(scope: string, id: string | undefined): Promise<Flash | null> {
    if (!id || !FLASH_ID_PATTERN.test(id)) return null;
    const sealed = await this.redis.getdel(this.prefix + storageKey(scope, id));
    return sealed ? unseal(id, sealed) : null;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

class MemoryFlashStore implements FlashStore {
  private readonly flashes = new Map<string, { sealed: string; expiresAt: number }>();

  put(scope: string, flash: Flash): Promise<string> {
    const now = Date.now();
    for (const [key, kept] of this.flashes) if (kept.expiresAt <= now) this.flashes.delete(key);
    const id = crypto.randomBytes(32).toString('base64url');
    this.flashes.set(storageKey(scope, id), { sealed: seal(id, flash), expiresAt: now + FLASH_TTL_MS });
    return Promise.resolve(id);
  }

  take(scope: string, id: string | undefined): Promise<Flash | null> {
    if (!id || !FLASH_ID_PATTERN.test(id)) return Promise.resolve(null);
    const key = storageKey(scope, id);
    const kept = this.flashes.get(key);
    this.flashes.delete(key);
    return Promise.resolve(kept && kept.expiresAt > Date.now() ? unseal(id, kept.sealed) : null);
  }

  close(): Promise<void> {
    this.flashes.clear();
    return Promise.resolve();
  }
}

/** Redis when redisUrl is set, in process otherwise. */
export function createFlashStore(opts: { redisUrl?: string; prefix: string }): FlashStore {
  return opts.redisUrl ? new RedisFlashStore(opts.redisUrl, opts.prefix) : new MemoryFlashStore();
}

/** `Set-Cookie` carrying a flash's id to the page the redirect names. */
export function flashCookie(id: string, secure: boolean): string {
  return `${FLASH_COOKIE}=${id}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${FLASH_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedFlashCookie(secure: boolean): string {
  return `${FLASH_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
