/**
 * A tec source's application password, kept sealed (contract §20: "kept encrypted (in AWS with a KMS key) and never
 * logged"). With CALENDAR_IMPORT_KEY_ID (the stack's KMS key) it is encrypted by KMS, bound to its import by the
 * encryption context, so a sealed value copied to another import does not open; elsewhere (the local server) by
 * AES-256-GCM under a key derived from CALENDAR_IMPORT_SECRET, else CALENDAR_JWT_SECRET, with the import's id as
 * additional data. Inside Lambda there is no local secret to fall back on: without the key id, sealing fails.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { config, DEV_JWT_SECRET } from '../config.js';

const KMS = 'kms:';
const LOCAL = 'aes:';

const keyId = (): string | undefined => process.env.CALENDAR_IMPORT_KEY_ID || undefined;
const context = (importId: number) => ({ import: String(importId) });

function localKey(): Buffer {
  const secret = process.env.CALENDAR_IMPORT_SECRET || config().jwt.secret || (process.env.AWS_LAMBDA_FUNCTION_NAME ? null : DEV_JWT_SECRET);
  if (!secret) throw new Error('no key to seal import passwords with: set CALENDAR_IMPORT_KEY_ID (a KMS key) or CALENDAR_IMPORT_SECRET');
  return Buffer.from(hkdfSync('sha256', secret, 'calendar import', 'source password', 32));
}

let kms: Promise<{ encrypt(plain: Buffer, importId: number): Promise<Buffer>; decrypt(sealed: Buffer, importId: number): Promise<Buffer> }> | null = null;

/** The KMS client, loaded on first use (only imports with a password need it). */
function kmsClient() {
  kms ??= import('@aws-sdk/client-kms').then(({ KMSClient, EncryptCommand, DecryptCommand }) => {
    const client = new KMSClient({});
    return {
      async encrypt(plain: Buffer, importId: number) {
        const out = await client.send(new EncryptCommand({ KeyId: keyId(), Plaintext: plain, EncryptionContext: context(importId) }));
        return Buffer.from(out.CiphertextBlob!);
      },
      async decrypt(sealed: Buffer, importId: number) {
        const out = await client.send(new DecryptCommand({ KeyId: keyId(), CiphertextBlob: sealed, EncryptionContext: context(importId) }));
        return Buffer.from(out.Plaintext!);
      },
    };
  });
  return kms;
}

/** Tests reset the client after mocking KMS. */
export const resetKmsClient = (): void => {
  kms = null;
};

export async function sealPassword(importId: number, password: string): Promise<string> {
  if (keyId()) return KMS + (await (await kmsClient()).encrypt(Buffer.from(password, 'utf8'), importId)).toString('base64');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  cipher.setAAD(Buffer.from(String(importId)));
  const sealed = Buffer.concat([cipher.update(password, 'utf8'), cipher.final()]);
  return `${LOCAL}${[iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64')).join('.')}`;
}

export async function openPassword(importId: number, sealed: string): Promise<string> {
  if (sealed.startsWith(KMS)) return (await (await kmsClient()).decrypt(Buffer.from(sealed.slice(KMS.length), 'base64'), importId)).toString('utf8');
  if (!sealed.startsWith(LOCAL)) throw new Error('the import\'s password is sealed in an unknown way');
  const [iv, tag, data] = sealed.slice(LOCAL.length).split('.').map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', localKey(), iv!);
  decipher.setAAD(Buffer.from(String(importId)));
  decipher.setAuthTag(tag!);
  try {
    return Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('the import\'s password cannot be opened (was the secret it was sealed with changed?): give it again');
  }
}
