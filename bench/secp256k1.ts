/** The physical floor: raw secp256k1 sign and verify of 32-byte digests, in the same process and run. */
import { createPrivateKey, createPublicKey, randomBytes, sign as nodeSign, verify as nodeVerify } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { measure, type MeasureOptions, type Measurement, type Operation } from './measure.js'

/** Raw sign and verify over a small pool of keys and digests, cycled through so no call repeats the previous one's inputs. */
export function rawSecp256k1(): { sign: Operation; verify: Operation } {
  const pool = Array.from({ length: 32 }, () => {
    const secretKey = secp256k1.utils.randomSecretKey()
    const digest = randomBytes(32)
    // Uncompressed: verify parses the point without a square root, the cheapest form.
    return {
      secretKey,
      digest,
      publicKey: secp256k1.getPublicKey(secretKey, false),
      signature: secp256k1.sign(digest, secretKey, { prehash: false }),
    }
  })
  if (!pool.every((p) => secp256k1.verify(p.signature, p.digest, p.publicKey, { prehash: false })))
    throw new Error('raw secp256k1 self-check failed')
  let i = 0
  const next = () => pool[i++ % pool.length]
  return {
    sign: {
      label: 'raw secp256k1 sign (noble)',
      fn: () => {
        const p = next()
        return secp256k1.sign(p.digest, p.secretKey, { prehash: false })
      },
    },
    verify: {
      label: 'raw secp256k1 verify (noble)',
      fn: () => {
        const p = next()
        return secp256k1.verify(p.signature, p.digest, p.publicKey, { prehash: false })
      },
    },
  }
}

/**
 * Raw ECDSA-secp256k1 verify in OpenSSL (node:crypto) over sha256 of 32-byte messages: the
 * fastest verify on this machine, and the one the SDK uses for DID-auth tokens by known keys.
 */
export function nativeSecp256k1(): { sign: Operation; verify: Operation } {
  const pool = Array.from({ length: 32 }, () => {
    const secretKey = secp256k1.utils.randomSecretKey()
    const point = secp256k1.getPublicKey(secretKey, false)
    const jwk = {
      kty: 'EC',
      crv: 'secp256k1',
      x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(point.subarray(33)).toString('base64url'),
    }
    const privateKey = createPrivateKey({ key: { ...jwk, d: Buffer.from(secretKey).toString('base64url') }, format: 'jwk' })
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' })
    const message = randomBytes(32)
    return { privateKey, publicKey, message, signature: nodeSign('sha256', message, { key: privateKey, dsaEncoding: 'ieee-p1363' }) }
  })
  if (!pool.every((p) => nodeVerify('sha256', p.message, { key: p.publicKey, dsaEncoding: 'ieee-p1363' }, p.signature)))
    throw new Error('native secp256k1 self-check failed')
  let i = 0
  const next = () => pool[i++ % pool.length]
  return {
    sign: {
      label: 'raw secp256k1 sign (OpenSSL)',
      fn: () => {
        const p = next()
        return nodeSign('sha256', p.message, { key: p.privateKey, dsaEncoding: 'ieee-p1363' })
      },
    },
    verify: {
      label: 'raw secp256k1 verify (OpenSSL)',
      fn: () => {
        const p = next()
        return nodeVerify('sha256', p.message, { key: p.publicKey, dsaEncoding: 'ieee-p1363' }, p.signature)
      },
    },
  }
}

export interface RawRates {
  /** @noble/curves (pure JS): what the SDK signs with. */
  noble: { sign: Measurement; verify: Measurement }
  /** OpenSSL through node:crypto: the fastest on the machine. */
  openssl: { sign: Measurement; verify: Measurement }
}

export async function benchRawSecp256k1(options: MeasureOptions): Promise<RawRates> {
  const noble = rawSecp256k1()
  const openssl = nativeSecp256k1()
  return {
    noble: { sign: await measure(noble.sign, options), verify: await measure(noble.verify, options) },
    openssl: { sign: await measure(openssl.sign, options), verify: await measure(openssl.verify, options) },
  }
}
