"""Debian's python3-cryptography on the system OpenSSL, for tests/apps/python-cryptography.

Run by Debian's /usr/bin/python3 under an OPENSSL_CONF. Checks what holds in
any correct OpenSSL (round trips, InvalidTag, InvalidSignature, RFC 5869's
first vector) and prints, one per line, "NAME HEX" digests of every output,
which the caller compares with the same run on OpenSSL's default provider.
Runs every check, says on stderr which failed and how, and exits 1 if any did.
"""
import hashlib
import sys

sys.path.insert(0, "/usr/lib/python3/dist-packages")  # Debian's, not a wheel

from cryptography.exceptions import InvalidSignature, InvalidTag  # noqa: E402
from cryptography.hazmat.primitives import hashes, hmac  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305  # noqa: E402
from cryptography.hazmat.primitives.kdf.hkdf import HKDF  # noqa: E402

MESSAGE = bytes((i * 7 + (i >> 8)) & 0xFF for i in range(1 << 20))  # 1 MiB
AAD = b"associated data, authenticated only"


def pieces(data, seed):
    """Splits data into many uneven updates: 1 to 8191 bytes, and empty ones."""
    out, pos, state = [], 0, seed
    while pos < len(data):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        size = state % 8192
        out.append(data[pos:pos + size])
        pos += size
    return out


class CheckFailed(Exception):
    pass


def fail(message):
    raise CheckFailed(message)


def report(name, data):
    print(name, hashlib.sha256(data).hexdigest() if len(data) > 64 else data.hex())


def flipped(data, index):
    changed = bytearray(data)
    changed[index] ^= 1
    return bytes(changed)


def gcm_streaming(key_bits):
    """AES-GCM through Cipher: the message in several hundred updates each way."""
    name = f"aes-{key_bits}-gcm-streaming"
    key, iv = bytes(range(key_bits // 8)), bytes(range(100, 112))
    enc = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    enc.authenticate_additional_data(AAD)
    ciphertext = b"".join(enc.update(p) for p in pieces(MESSAGE, 1)) + enc.finalize()
    tag = enc.tag
    if len(ciphertext) != len(MESSAGE):
        fail(f"{name}: {len(ciphertext)} bytes of ciphertext for {len(MESSAGE)}")

    def open_(ciphertext, tag, aad=AAD):
        dec = Cipher(algorithms.AES(key), modes.GCM(iv, tag)).decryptor()
        dec.authenticate_additional_data(aad)
        return b"".join(dec.update(p) for p in pieces(ciphertext, 2)) + dec.finalize()

    if open_(ciphertext, tag) != MESSAGE:
        fail(f"{name}: decrypting in other pieces gives other bytes")
    for what, args in (("tag", (ciphertext, flipped(tag, 15))),
                       ("ciphertext", (flipped(ciphertext, len(ciphertext) // 2), tag)),
                       ("aad", (ciphertext, tag, flipped(AAD, 0)))):
        try:
            open_(*args)
        except InvalidTag:
            continue
        fail(f"{name}: a forged {what} was accepted (no InvalidTag)")
    report(name + ".ciphertext", ciphertext)
    report(name + ".tag", tag)


def aead_one_shot(cls, key_size, name):
    key, nonce = bytes(range(1, key_size + 1)), bytes(range(50, 62))
    aead = cls(key)
    sealed = aead.encrypt(nonce, MESSAGE, AAD)
    if aead.decrypt(nonce, sealed, AAD) != MESSAGE:
        fail(f"{name}: the round trip gives other bytes")
    for what, (data, aad) in (("tag", (flipped(sealed, len(sealed) - 1), AAD)),
                              ("ciphertext", (flipped(sealed, 1000), AAD)),
                              ("aad", (sealed, flipped(AAD, 3)))):
        try:
            aead.decrypt(nonce, data, aad)
        except InvalidTag:
            continue
        fail(f"{name}: a forged {what} was accepted (no InvalidTag)")
    report(name, sealed)


def hmac_streaming(algorithm, name):
    key = bytes(range(200, 232))
    mac = hmac.HMAC(key, algorithm)
    for p in pieces(MESSAGE, 3):
        mac.update(p)
    tag = mac.finalize()
    check = hmac.HMAC(key, algorithm)
    check.update(MESSAGE)
    check.verify(tag)
    check = hmac.HMAC(key, algorithm)
    check.update(MESSAGE)
    try:
        check.verify(flipped(tag, 0))
    except InvalidSignature:
        pass
    else:
        fail(f"{name}: a forged tag was verified")
    report(name, tag)


def hkdf(algorithm, name):
    okm = HKDF(algorithm=algorithm, length=64, salt=b"salt" * 8, info=b"context").derive(
        bytes(range(42)))
    report(name, okm)


def rfc5869_a1():
    okm = HKDF(algorithm=hashes.SHA256(), length=42, salt=bytes(range(13)),
               info=bytes(range(0xF0, 0xFA))).derive(b"\x0b" * 22)
    if okm.hex() != ("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                     "34007208d5b887185865"):
        fail(f"hkdf-sha256: RFC 5869 A.1 gives {okm.hex()}")


def main():
    checks = [("aes-128-gcm-streaming", lambda: gcm_streaming(128)),
              ("aes-256-gcm-streaming", lambda: gcm_streaming(256)),
              ("aes-128-gcm-one-shot", lambda: aead_one_shot(AESGCM, 16, "aes-128-gcm-one-shot")),
              ("chacha20-poly1305-one-shot",
               lambda: aead_one_shot(ChaCha20Poly1305, 32, "chacha20-poly1305-one-shot"))]
    for algorithm, label in ((hashes.SHA3_256(), "sha3-256"), (hashes.SHA512_256(), "sha512-256"),
                             (hashes.SHA256(), "sha256")):
        checks.append((f"hmac-{label}", lambda a=algorithm, n=f"hmac-{label}": hmac_streaming(a, n)))
        checks.append((f"hkdf-{label}", lambda a=algorithm, n=f"hkdf-{label}": hkdf(a, n)))
    checks.append(("hkdf-sha256-rfc5869", rfc5869_a1))
    failed = []
    for name, check in checks:
        try:
            check()
        except Exception as e:  # any error of the library is this check's failure
            failed.append(name)
            print(f"FAIL: {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  file=sys.stderr)
    if failed:
        print(f"failed: {' '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
