//! Sprig's cryptographic functions: `bcrypt`/`htpasswd` (`$2a$10$` hashes as Go's x/crypto
//! writes them), `derivePassword` (Master Password's scrypt + HMAC-SHA256 templates),
//! `genPrivateKey` (RSA-4096 PKCS#1, ECDSA P-256 SEC 1, Ed25519 PKCS#8, DSA; RSA keys made by
//! kubepkg-rsakey, see `rsa_key`), the certificate
//! generators (`genCA`, `genSelfSignedCert`, `genSignedCert` and their `…WithKey` forms,
//! `buildCustomCert`) returning Sprig's `certificate{Cert, Key}` struct with PEM text, AES-256-CBC
//! `encryptAES`/`decryptAES`, `randBytes` and `uuidv4`.
//!
//! Certificates are DER-encoded here field by field the way Go's `x509.CreateCertificate` lays
//! them out (serial < 2^128, key usage and basic constraints critical, server+client auth,
//! subject key id on CAs, authority key id from the signer).

use std::sync::Arc;

use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit, block_padding::NoPadding};
use hmac::Mac;
use kubepkg_template::{FuncResult, Function};
use kubepkg_value::{GoObject, Value};
use rand::RngCore;
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey};
use sha1::Digest;

use crate::args::{arg, int, s};
use crate::encoding::{b64dec, b64enc};
use crate::f;

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("bcrypt", [String], |a| Ok(bcrypt_hash(s(a, 0)).into())),
        f!("htpasswd", [String, String], |a| {
            let user = s(a, 0);
            if user.contains(':') {
                return Ok(format!("invalid username: {user}").into());
            }
            Ok(format!("{user}:{}", bcrypt_hash(s(a, 1))).into())
        }),
        f!("randBytes", [Int], |a| {
            let n = int(a, 0);
            if !(0..=1 << 28).contains(&n) {
                return Err("runtime error: makeslice: len out of range".into());
            }
            let mut buf = vec![0u8; n as usize];
            rand::rngs::OsRng.fill_bytes(&mut buf);
            Ok(b64enc(&buf).into())
        }),
        f!("uuidv4", [], |_| Ok(uuid::Uuid::new_v4()
            .to_string()
            .into())),
        f!(
            "derivePassword",
            [Int, String, String, String, String],
            |a| {
                Ok(derive_password(int(a, 0) as u32, s(a, 1), s(a, 2), s(a, 3), s(a, 4)).into())
            }
        ),
        f!("genPrivateKey", [String], |a| Ok(
            gen_private_key(s(a, 0)).into()
        )),
        f!("buildCustomCert", [String, String], build_custom_cert),
        f!("genCA", [String, Int], |a| {
            let key = PrivKey::Rsa(rsa_key(2048)?);
            gen_ca(s(a, 0), int(a, 1), key)
        }),
        f!("genCAWithKey", [String, Int, String], |a| {
            let key =
                parse_private_key_pem(s(a, 2)).map_err(|e| format!("parsing private key: {e}"))?;
            gen_ca(s(a, 0), int(a, 1), key)
        }),
        f!("genSelfSignedCert", [String, List, List, Int], |a| {
            let key = PrivKey::Rsa(rsa_key(2048)?);
            gen_self_signed(a, key)
        }),
        f!(
            "genSelfSignedCertWithKey",
            [String, List, List, Int, String],
            |a| {
                let key = parse_private_key_pem(s(a, 4))
                    .map_err(|e| format!("parsing private key: {e}"))?;
                gen_self_signed(a, key)
            }
        ),
        f!("genSignedCert", [String, List, List, Int, Cert], |a| {
            let ca = certificate_arg(arg(a, 4))?;
            let key = PrivKey::Rsa(rsa_key(2048)?);
            gen_signed(a, &ca, key)
        }),
        f!(
            "genSignedCertWithKey",
            [String, List, List, Int, Cert, String],
            |a| {
                let ca = certificate_arg(arg(a, 4))?;
                let key = parse_private_key_pem(s(a, 5))
                    .map_err(|e| format!("parsing private key: {e}"))?;
                gen_signed(a, &ca, key)
            }
        ),
        f!("encryptAES", [String, String], |a| encrypt_aes(
            s(a, 0),
            s(a, 1)
        )
        .map(Value::from)),
        f!("decryptAES", [String, String], |a| decrypt_aes(
            s(a, 0),
            s(a, 1)
        )
        .map(Value::from)),
    ]
}

fn bcrypt_hash(input: &str) -> String {
    if input.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
            .into();
    }
    match bcrypt::hash_with_result(input, 10) {
        Ok(h) => h.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static str {
    match c {
        b'V' => "AEIOU",
        b'C' => "BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => "aeiou",
        b'c' => "bcdfghjklmnpqrstvwxyz",
        b'A' => "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => "0123456789",
        b'o' => "@&%?,=[]_:-+*$#!'^~;()/.",
        _ => "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// Master Password's algorithm as Sprig implements it.
fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = password_templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    const SEED: &str = "com.lyndir.masterpassword";
    let mut salt = SEED.as_bytes().to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let Ok(params) = scrypt::Params::new(15, 8, 2, 64) else {
        return "failed to derive password: invalid scrypt parameters".into();
    };
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {e}");
    }
    let mut msg = SEED.as_bytes().to_vec();
    msg.extend_from_slice(&(site.len() as u32).to_be_bytes());
    msg.extend_from_slice(site.as_bytes());
    msg.extend_from_slice(&counter.to_be_bytes());
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key) else {
        return "failed to derive password: hmac".into();
    };
    mac.update(&msg);
    let seed = mac.finalize().into_bytes();
    let temp = templates[seed[0] as usize % templates.len()].as_bytes();
    temp.iter()
        .enumerate()
        .map(|(i, c)| {
            let chars = template_chars(*c).as_bytes();
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

/// A private key of one of the types Sprig generates or accepts.
enum PrivKey {
    Rsa(rsa::RsaPrivateKey),
    Ecdsa(p256::SecretKey),
    Ed25519(ed25519_dalek::SigningKey),
    Dsa(Box<dsa::SigningKey>),
}

/// An RSA key with public exponent 65537, as Go's `rsa.GenerateKey(rand.Reader, bits)` makes
/// for Sprig (2048 bits for the certificate functions, 4096 for `genPrivateKey "rsa"`).
///
/// Generated by kubepkg-rsakey: FIPS 186-5 A.1.3 primes (an incremental small-prime sieve, then
/// Miller–Rabin with Table B.1's round counts on constant-time Montgomery exponentiation), in
/// 0.4-0.7 times Go's time at 2048 and 4096 bits (`bench/rsa-keygen.sh`), where AWS-LC took 2.29
/// times Go's median for 2048-bit keys and the `rsa` crate's own generator twice Go's. The key
/// comes back as a `rsa::RsaPrivateKey`, which the PEM encoders and the certificate signer take.
/// Sizes: 2048, 3072, 4096 and 8192 bits; others are an error.
pub(crate) fn rsa_key(bits: usize) -> Result<rsa::RsaPrivateKey, String> {
    kubepkg_rsakey::generate(bits).map_err(|e| format!("error generating rsa key: {e}"))
}

fn gen_private_key(kind: &str) -> String {
    let key = match kind {
        "" | "rsa" => rsa_key(4096).map(PrivKey::Rsa),
        "ecdsa" => Ok(PrivKey::Ecdsa(p256::SecretKey::random(
            &mut rand::rngs::OsRng,
        ))),
        "ed25519" => Ok(PrivKey::Ed25519(ed25519_dalek::SigningKey::generate(
            &mut rand::rngs::OsRng,
        ))),
        "dsa" => {
            let c = dsa::Components::generate(&mut rand::rngs::OsRng, dsa::KeySize::DSA_2048_256);
            Ok(PrivKey::Dsa(Box::new(dsa::SigningKey::generate(
                &mut rand::rngs::OsRng,
                c,
            ))))
        }
        other => return format!("Unknown type {other}"),
    };
    match key.and_then(|k| key_pem(&k)) {
        Ok(p) => p,
        Err(e) => format!("failed to generate private key: {e}"),
    }
}

/// `pem.EncodeToMemory`: base64 body in 64-column lines.
fn pem_encode(kind: &str, der: &[u8]) -> String {
    let b = b64enc(der);
    let mut out = format!("-----BEGIN {kind}-----\n");
    for chunk in b.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap_or(""));
        out.push('\n');
    }
    out.push_str(&format!("-----END {kind}-----\n"));
    out
}

/// `pem.Decode`: the first PEM block's type and bytes.
fn pem_decode(text: &str) -> Option<(String, Vec<u8>)> {
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + 11..];
    let type_end = rest.find("-----")?;
    let kind = rest[..type_end].to_string();
    let body = &rest[type_end + 5..];
    let end_marker = format!("-----END {kind}-----");
    let end = body.find(&end_marker)?;
    let body = &body[..end];
    // Skip RFC 1421 headers (lines with ':') before the base64 body.
    let lines: Vec<&str> = body.lines().filter(|l| !l.contains(':')).collect();
    let b64: String = lines.concat().split_whitespace().collect();
    let der = b64dec(&b64).ok()?;
    Some((kind, der))
}

// --- Minimal DER writer -------------------------------------------------------------------

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A DER INTEGER from big-endian unsigned magnitude bytes.
fn der_uint(be: &[u8]) -> Vec<u8> {
    let mut b: Vec<u8> = be.iter().copied().skip_while(|x| *x == 0).collect();
    if b.is_empty() {
        b.push(0);
    }
    if b[0] & 0x80 != 0 {
        b.insert(0, 0);
    }
    tlv(0x02, &b)
}

fn key_pem(k: &PrivKey) -> Result<String, String> {
    Ok(match k {
        PrivKey::Rsa(k) => pem_encode(
            "RSA PRIVATE KEY",
            k.to_pkcs1_der().map_err(|e| e.to_string())?.as_bytes(),
        ),
        PrivKey::Ecdsa(k) => pem_encode(
            "EC PRIVATE KEY",
            &k.to_sec1_der().map_err(|e| e.to_string())?,
        ),
        PrivKey::Ed25519(k) => {
            // PKCS#8 v1 without the public key, as Go's MarshalPKCS8PrivateKey writes it.
            let inner = tlv(0x04, &k.to_bytes());
            let der = seq(&[
                tlv(0x02, &[0]),
                seq(&[vec![0x06, 0x03, 0x2b, 0x65, 0x70]]),
                tlv(0x04, &inner),
            ]);
            pem_encode("PRIVATE KEY", &der)
        }
        PrivKey::Dsa(k) => {
            let c = k.verifying_key().components();
            let der = seq(&[
                der_uint(&[0]),
                der_uint(&c.p().to_bytes_be()),
                der_uint(&c.q().to_bytes_be()),
                der_uint(&c.g().to_bytes_be()),
                der_uint(&k.verifying_key().y().to_bytes_be()),
                der_uint(&k.x().to_bytes_be()),
            ]);
            pem_encode("DSA PRIVATE KEY", &der)
        }
    })
}

/// Sprig's `parsePrivateKeyPEM`.
fn parse_private_key_pem(text: &str) -> Result<PrivKey, String> {
    let (kind, der) = pem_decode(text).ok_or("no PEM data in input")?;
    if kind == "PRIVATE KEY" {
        if let Ok(k) = rsa::RsaPrivateKey::from_pkcs8_der(&der) {
            return Ok(PrivKey::Rsa(k));
        }
        if let Ok(k) = p256::SecretKey::from_pkcs8_der(&der) {
            return Ok(PrivKey::Ecdsa(k));
        }
        if let Ok(k) = ed25519_dalek::SigningKey::from_pkcs8_der(&der) {
            return Ok(PrivKey::Ed25519(k));
        }
        return Err("decoding PEM as PKCS#8: x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)".into());
    }
    let Some(prefix) = kind.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {kind}"));
    };
    match prefix {
        "RSA" => rsa::RsaPrivateKey::from_pkcs1_der(&der)
            .map(PrivKey::Rsa)
            .map_err(|_| "parsing RSA private key from PEM: x509: malformed private key".into()),
        "EC" => p256::SecretKey::from_sec1_der(&der)
            .map(PrivKey::Ecdsa)
            .map_err(|_| {
                "parsing EC private key from PEM: x509: failed to parse EC private key".into()
            }),
        "DSA" => parse_dsa(&der)
            .map(|k| PrivKey::Dsa(Box::new(k)))
            .ok_or_else(|| {
                "parsing DSA private key from PEM: asn1: structure error: tags don't match"
                    .to_string()
            }),
        _ => Err(format!("invalid private key type {kind}")),
    }
}

/// Reads DER `SEQUENCE { INTEGER… }` (Sprig's `DSAKeyFormat`).
fn parse_dsa(der: &[u8]) -> Option<dsa::SigningKey> {
    fn read_tlv(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let tag = *b.first()?;
        let l0 = *b.get(1)? as usize;
        let (len, hdr) = if l0 < 0x80 {
            (l0, 2)
        } else {
            let n = l0 & 0x7f;
            let mut len = 0usize;
            for i in 0..n {
                len = (len << 8) | *b.get(2 + i)? as usize;
            }
            (len, 2 + n)
        };
        let body = b.get(hdr..hdr + len)?;
        Some((tag, body, &b[hdr + len..]))
    }
    let (_, mut body, _) = read_tlv(der)?;
    let mut ints = Vec::new();
    while !body.is_empty() {
        let (tag, v, rest) = read_tlv(body)?;
        if tag != 0x02 {
            return None;
        }
        ints.push(dsa::BigUint::from_bytes_be(v));
        body = rest;
    }
    if ints.len() != 6 {
        return None;
    }
    let c =
        dsa::Components::from_components(ints[1].clone(), ints[2].clone(), ints[3].clone()).ok()?;
    let vk = dsa::VerifyingKey::from_components(c, ints[4].clone()).ok()?;
    dsa::SigningKey::from_components(vk, ints[5].clone()).ok()
}

/// Sprig's `certificate` struct.
#[derive(Debug, Clone)]
pub struct Certificate {
    pub cert: String,
    pub key: String,
}

impl GoObject for Certificate {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(self.cert.as_str().into()),
            "Key" => Some(self.key.as_str().into()),
            _ => None,
        }
    }
    fn format_v(&self) -> String {
        format!("{{{} {}}}", self.cert, self.key)
    }
    fn to_plain(&self) -> Value {
        let mut m = std::collections::BTreeMap::new();
        m.insert("Cert".to_string(), Value::from(self.cert.clone()));
        m.insert("Key".to_string(), Value::from(self.key.clone()));
        Value::map(m)
    }
}

fn cert_value(c: Certificate) -> Value {
    Value::Object(Arc::new(c))
}

fn certificate_arg(v: &Value) -> Result<Certificate, String> {
    match v {
        Value::Object(o) if o.type_name() == "sprig.certificate" => {
            let get = |f: &str| match o.field(f) {
                Some(Value::String(s)) => s.to_string(),
                _ => String::new(),
            };
            Ok(Certificate {
                cert: get("Cert"),
                key: get("Key"),
            })
        }
        other => Err(format!(
            "wrong type for value; expected sprig.certificate; got {}",
            other.type_name()
        )),
    }
}

fn build_custom_cert(a: &[Value]) -> FuncResult {
    let cert = b64dec(s(a, 0)).map_err(|_| "unable to decode base64 certificate".to_string())?;
    let key = b64dec(s(a, 1)).map_err(|_| "unable to decode base64 private key".to_string())?;
    let cert_text = String::from_utf8_lossy(&cert).into_owned();
    let key_text = String::from_utf8_lossy(&key).into_owned();
    let (_, der) = pem_decode(&cert_text).ok_or("unable to decode certificate")?;
    parse_cert(&der).map_err(|e| format!("error parsing certificate: decodedCert.Bytes: {e}"))?;
    parse_private_key_pem(&key_text).map_err(|e| format!("error parsing private key: {e}"))?;
    Ok(cert_value(Certificate {
        cert: cert_text,
        key: key_text,
    }))
}

/// The parts of a parsed certificate a signer needs: its subject and subject key id.
struct ParsedCert {
    subject_der: Vec<u8>,
    ski: Option<Vec<u8>>,
}

fn parse_cert(der: &[u8]) -> Result<ParsedCert, String> {
    use der::{Decode, Encode};
    let c = x509_cert::Certificate::from_der(der)
        .map_err(|_| "x509: malformed certificate".to_string())?;
    let subject_der = c
        .tbs_certificate
        .subject
        .to_der()
        .map_err(|e| e.to_string())?;
    let ski = c.tbs_certificate.extensions.as_ref().and_then(|exts| {
        exts.iter()
            .find(|e| e.extn_id.to_string() == "2.5.29.14")
            .and_then(|e| {
                let b = e.extn_value.as_bytes();
                (b.len() >= 2 && b[0] == 0x04).then(|| b[2..].to_vec())
            })
    });
    Ok(ParsedCert { subject_der, ski })
}

fn ips_arg(v: &Value) -> Result<Vec<Vec<u8>>, String> {
    let Value::List(items, _) = v else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .map(|ip| match ip {
            Value::String(s) => match s.parse::<std::net::IpAddr>() {
                Ok(std::net::IpAddr::V4(a)) => Ok(a.octets().to_vec()),
                Ok(std::net::IpAddr::V6(a)) => Ok(match a.to_ipv4_mapped() {
                    Some(v4) => v4.octets().to_vec(),
                    None => a.octets().to_vec(),
                }),
                Err(_) => Err(format!("error parsing ip: {s}")),
            },
            other => Err(format!(
                "error parsing ip: {} is not a string",
                crate::gofmt::sprint_v(other)
            )),
        })
        .collect()
}

fn dns_arg(v: &Value) -> Result<Vec<String>, String> {
    let Value::List(items, _) = v else {
        return Ok(Vec::new());
    };
    items
        .iter()
        .map(|d| match d {
            Value::String(s) => Ok(s.to_string()),
            other => Err(format!(
                "error processing alternate dns name: {} is not a string",
                crate::gofmt::sprint_v(other)
            )),
        })
        .collect()
}

fn name_der(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return seq(&[]);
    }
    let printable = cn
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?*&".contains(&b));
    let value = tlv(if printable { 0x13 } else { 0x0c }, cn.as_bytes());
    seq(&[tlv(
        0x31,
        &seq(&[vec![0x06, 0x03, 0x55, 0x04, 0x03], value]),
    )])
}

fn der_time(unix: i64) -> Vec<u8> {
    let t = kubepkg_gostd::time::Time::utc_unix(unix, 0);
    if (1950..2050).contains(&t.date().0) {
        tlv(0x17, t.format("060102150405Z").as_bytes())
    } else {
        tlv(0x18, t.format("20060102150405Z").as_bytes())
    }
}

fn ext(oid: &[u8], critical: bool, value: Vec<u8>) -> Vec<u8> {
    let mut parts = vec![tlv(0x06, oid)];
    if critical {
        parts.push(vec![0x01, 0x01, 0xff]);
    }
    parts.push(tlv(0x04, &value));
    seq(&parts)
}

struct Template {
    cn: String,
    ips: Vec<Vec<u8>>,
    dns: Vec<String>,
    days: i64,
    is_ca: bool,
}

fn public_key_der(k: &PrivKey) -> Result<Vec<u8>, String> {
    let der = match k {
        PrivKey::Rsa(k) => k
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| e.to_string())?
            .into_vec(),
        PrivKey::Ecdsa(k) => k
            .public_key()
            .to_public_key_der()
            .map_err(|e| e.to_string())?
            .into_vec(),
        PrivKey::Ed25519(k) => k
            .verifying_key()
            .to_public_key_der()
            .map_err(|e| e.to_string())?
            .into_vec(),
        PrivKey::Dsa(_) => return Err("x509: only RSA, ECDSA and Ed25519 keys supported".into()),
    };
    Ok(der)
}

/// The subjectPublicKey BIT STRING contents of an SPKI (for key identifiers).
fn spki_key_bits(spki: &[u8]) -> Vec<u8> {
    use der::Decode;
    spki::SubjectPublicKeyInfoRef::from_der(spki)
        .map(|s| s.subject_public_key.raw_bytes().to_vec())
        .unwrap_or_default()
}

/// The DER AlgorithmIdentifier of the signatures `k` makes (Go's choice for the key type:
/// SHA256WithRSA, ECDSAWithSHA256, Ed25519).
fn signature_algorithm(k: &PrivKey) -> Result<Vec<u8>, String> {
    Ok(match k {
        PrivKey::Rsa(_) => vec![
            0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05,
            0x00,
        ],
        PrivKey::Ecdsa(_) => vec![
            0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02,
        ],
        PrivKey::Ed25519(_) => vec![0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70],
        PrivKey::Dsa(_) => return Err("x509: only RSA, ECDSA and Ed25519 keys supported".into()),
    })
}

/// `msg` signed by `k` with [`signature_algorithm`]'s algorithm.
fn sign(k: &PrivKey, msg: &[u8]) -> Result<Vec<u8>, String> {
    use rsa::signature::{SignatureEncoding, Signer};
    Ok(match k {
        PrivKey::Rsa(k) => {
            let sk = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(k.clone());
            sk.try_sign(msg).map_err(|e| e.to_string())?.to_vec()
        }
        PrivKey::Ecdsa(k) => {
            let sk = p256::ecdsa::SigningKey::from(k);
            let sig: p256::ecdsa::Signature = sk.try_sign(msg).map_err(|e| e.to_string())?;
            sig.to_der().as_bytes().to_vec()
        }
        PrivKey::Ed25519(k) => k
            .try_sign(msg)
            .map_err(|e| e.to_string())?
            .to_bytes()
            .to_vec(),
        PrivKey::Dsa(_) => return Err("x509: only RSA, ECDSA and Ed25519 keys supported".into()),
    })
}

/// `x509.CreateCertificate(template, parent, signee's public key, signer)` + PEM encoding.
fn create_certificate(
    t: &Template,
    signee: &PrivKey,
    parent: Option<&ParsedCert>,
    signer: &PrivKey,
) -> Result<Certificate, String> {
    let wrap = |e: String| format!("error creating certificate: {e}");
    let spki = public_key_der(signee).map_err(wrap)?;
    let alg = signature_algorithm(signer).map_err(wrap)?;
    let mut serial = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut serial);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs() as i64;
    let subject = name_der(&t.cn);
    let issuer = parent
        .map(|p| p.subject_der.clone())
        .unwrap_or_else(|| subject.clone());

    let mut exts = Vec::new();
    let ku = if t.is_ca {
        vec![0x03, 0x02, 0x02, 0xa4]
    } else {
        vec![0x03, 0x02, 0x05, 0xa0]
    };
    exts.push(ext(&[0x55, 0x1d, 0x0f], true, ku));
    let eku = seq(&[
        tlv(0x06, &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01]),
        tlv(0x06, &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02]),
    ]);
    exts.push(ext(&[0x55, 0x1d, 0x25], false, eku));
    let bc = if t.is_ca {
        seq(&[vec![0x01, 0x01, 0xff]])
    } else {
        seq(&[])
    };
    exts.push(ext(&[0x55, 0x1d, 0x13], true, bc));
    if t.is_ca {
        let ski = sha1::Sha1::digest(spki_key_bits(&spki)).to_vec();
        exts.push(ext(&[0x55, 0x1d, 0x0e], false, tlv(0x04, &ski)));
    }
    if let Some(aki) = parent.and_then(|p| p.ski.clone()) {
        exts.push(ext(&[0x55, 0x1d, 0x23], false, seq(&[tlv(0x80, &aki)])));
    }
    if !t.dns.is_empty() || !t.ips.is_empty() {
        let mut names: Vec<Vec<u8>> = t.dns.iter().map(|d| tlv(0x82, d.as_bytes())).collect();
        names.extend(t.ips.iter().map(|ip| tlv(0x87, ip)));
        exts.push(ext(&[0x55, 0x1d, 0x11], t.cn.is_empty(), seq(&names)));
    }
    let tbs = seq(&[
        tlv(0xa0, &der_uint(&[2])),
        der_uint(&serial),
        alg.clone(),
        issuer,
        seq(&[
            der_time(now),
            der_time(now.saturating_add(t.days.saturating_mul(86_400))),
        ]),
        subject,
        spki,
        tlv(0xa3, &seq(&exts)),
    ]);
    let sig = sign(signer, &tbs).map_err(wrap)?;
    let mut bits = vec![0u8];
    bits.extend(sig);
    let cert = seq(&[tbs, alg, tlv(0x03, &bits)]);
    Ok(Certificate {
        cert: pem_encode("CERTIFICATE", &cert),
        key: key_pem(signee).map_err(|e| format!("error pem-encoding key: {e}"))?,
    })
}

fn gen_ca(cn: &str, days: i64, key: PrivKey) -> FuncResult {
    let t = Template {
        cn: cn.into(),
        ips: vec![],
        dns: vec![],
        days,
        is_ca: true,
    };
    create_certificate(&t, &key, None, &key).map(cert_value)
}

impl Template {
    /// A leaf certificate from the arguments `(cn, ips, alternateDNS, daysValid, …)` of
    /// `genSelfSignedCert` and `genSignedCert`.
    fn leaf(a: &[Value]) -> Result<Template, String> {
        Ok(Template {
            cn: s(a, 0).into(),
            ips: ips_arg(arg(a, 1))?,
            dns: dns_arg(arg(a, 2))?,
            days: int(a, 3),
            is_ca: false,
        })
    }
}

fn gen_self_signed(a: &[Value], key: PrivKey) -> FuncResult {
    let t = Template::leaf(a)?;
    create_certificate(&t, &key, None, &key).map(cert_value)
}

fn gen_signed(a: &[Value], ca: &Certificate, key: PrivKey) -> FuncResult {
    let (_, der) = pem_decode(&ca.cert).ok_or("unable to decode certificate")?;
    let parent = parse_cert(&der)
        .map_err(|e| format!("error parsing certificate: decodedSignerCert.Bytes: {e}"))?;
    let signer =
        parse_private_key_pem(&ca.key).map_err(|e| format!("error parsing private key: {e}"))?;
    let t = Template::leaf(a)?;
    create_certificate(&t, &key, Some(&parent), &signer).map(cert_value)
}

fn aes_key(password: &str) -> [u8; 32] {
    let mut key = [0u8; 32];
    let p = password.as_bytes();
    let n = p.len().min(32);
    key[..n].copy_from_slice(&p[..n]);
    key
}

fn encrypt_aes(password: &str, plaintext: &str) -> Result<String, String> {
    if plaintext.is_empty() {
        return Ok(String::new());
    }
    let key = aes_key(password);
    let mut content = plaintext.as_bytes().to_vec();
    let pad = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(pad as u8, pad));
    let mut iv = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut iv);
    let enc = cbc::Encryptor::<aes::Aes256>::new(&key.into(), &iv.into());
    let len = content.len();
    let ct = enc
        .encrypt_padded_mut::<NoPadding>(&mut content, len)
        .map_err(|e| e.to_string())?
        .to_vec();
    let mut out = iv.to_vec();
    out.extend(ct);
    Ok(b64enc(&out))
}

fn decrypt_aes(password: &str, crypt64: &str) -> Result<String, String> {
    if crypt64.is_empty() {
        return Ok(String::new());
    }
    let key = aes_key(password);
    let crypt = b64dec(crypt64)?;
    if crypt.len() < 16 {
        return Err(format!(
            "runtime error: slice bounds out of range [:16] with capacity {}",
            crypt.len()
        ));
    }
    let (iv, body) = crypt.split_at(16);
    if body.len() % 16 != 0 {
        return Err("crypto/cipher: input not full blocks".into());
    }
    if body.is_empty() {
        return Err("runtime error: index out of range [-1]".into());
    }
    let mut buf = body.to_vec();
    let dec = cbc::Decryptor::<aes::Aes256>::new(&key.into(), iv.into());
    let plain = dec
        .decrypt_padded_mut::<NoPadding>(&mut buf)
        .map_err(|e| e.to_string())?
        .to_vec();
    let pad = *plain.last().unwrap_or(&0) as usize;
    if pad > plain.len() {
        return Err(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - pad as i64
        ));
    }
    Ok(String::from_utf8_lossy(&plain[..plain.len() - pad]).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `openssl rsa -check` on a PEM key: whether OpenSSL accepts it (primes, exponents, CRT
    /// values consistent). OpenSSL missing is a failure, not a skip.
    fn openssl_accepts(pem: &str) -> bool {
        use std::io::Write;
        let mut child = std::process::Command::new("openssl")
            .args(["rsa", "-check", "-noout"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the openssl command is needed by this test (apt-get install openssl)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(pem.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("RSA key ok")
    }

    #[test]
    fn generated_rsa_keys_pass_openssl_check() {
        // genPrivateKey "rsa": a 4096-bit PKCS#1 key, as Helm prints it.
        let pem = gen_private_key("rsa");
        assert!(
            pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"),
            "{pem}"
        );
        assert!(
            openssl_accepts(&pem),
            "openssl rejects genPrivateKey's key:\n{pem}"
        );
        let (_, der) = pem_decode(&pem).unwrap();
        let k = rsa::RsaPrivateKey::from_pkcs1_der(&der).unwrap();
        assert_eq!(rsa::traits::PublicKeyParts::n(&k).bits(), 4096);
        // genCA's key (2048 bits), the key of every certificate function.
        let f = functions().into_iter().find(|f| f.name == "genCA").unwrap();
        let ca = (f.call)(&[Value::from("ca"), Value::Int(30)]).unwrap();
        let Value::Object(ca) = ca else {
            panic!("genCA returned {ca:?}")
        };
        let Some(Value::String(key)) = ca.field("Key") else {
            panic!("no Key")
        };
        assert!(
            key.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"),
            "{key}"
        );
        assert!(openssl_accepts(&key), "openssl rejects genCA's key:\n{key}");
        // The check can fail: a key whose CRT coefficient (the DER's last integer) is off by
        // one bit is refused.
        let (_, mut der) = pem_decode(&key).unwrap();
        *der.last_mut().unwrap() ^= 1;
        let broken = pem_encode("RSA PRIVATE KEY", &der);
        assert!(!openssl_accepts(&broken), "openssl accepted a broken key");
    }

    #[test]
    fn rsa_key_2048_as_pkcs1_pem_passes_openssl_check() {
        let key = rsa_key(2048).unwrap();
        let pem = key_pem(&PrivKey::Rsa(key)).unwrap();
        assert!(
            pem.starts_with("-----BEGIN RSA PRIVATE KEY-----\n"),
            "{pem}"
        );
        assert!(
            openssl_accepts(&pem),
            "openssl rejects rsa_key(2048):\n{pem}"
        );
    }

    #[test]
    fn rsa_keys_have_the_requested_size() {
        use rsa::traits::PublicKeyParts;
        let k = rsa_key(2048).unwrap();
        assert_eq!(k.n().bits(), 2048);
        assert_eq!(k.e(), &rsa::BigUint::from(65_537u32));
        k.validate().unwrap();
        assert_eq!(
            rsa_key(1024).unwrap_err(),
            "error generating rsa key: unsupported size 1024"
        );
    }

    #[test]
    fn aes_round_trips() {
        let c = encrypt_aes("secretkey", "plaintext").unwrap();
        assert_eq!(decrypt_aes("secretkey", &c).unwrap(), "plaintext");
    }

    // Sprig's crypto_test.go: derivePassword 1 "long" "password" "user" "example.com".
    #[test]
    fn derive_password_matches_sprig_test_vector() {
        assert_eq!(
            derive_password(1, "long", "password", "user", "example.com"),
            "ZedaFaxcZaso9*"
        );
    }

    #[test]
    fn bcrypt_uses_go_prefix() {
        let h = bcrypt_hash("abc");
        assert!(h.starts_with("$2a$10$"), "{h}");
        assert!(bcrypt::verify("abc", &h).unwrap());
    }

    /// `openssl verify -CAfile CA LEAF` on PEM certificates: whether OpenSSL accepts the leaf's
    /// signature by the CA (and the CA's own). OpenSSL missing is a failure, not a skip.
    fn openssl_verifies(ca: &str, leaf: &str) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let (ca_path, leaf_path) = (dir.path().join("ca.pem"), dir.path().join("leaf.pem"));
        std::fs::write(&ca_path, ca).unwrap();
        std::fs::write(&leaf_path, leaf).unwrap();
        let out = std::process::Command::new("openssl")
            .arg("verify")
            .arg("-CAfile")
            .arg(&ca_path)
            .arg(&leaf_path)
            .output()
            .expect("the openssl command is needed by this test (apt-get install openssl)");
        out.status.success()
    }

    #[test]
    fn rsa_ca_signed_certificates_pass_openssl_verify() {
        let call = |name: &str, args: &[Value]| {
            let f = functions().into_iter().find(|f| f.name == name).unwrap();
            (f.call)(args).unwrap()
        };
        let pem = |v: &Value, field: &str| match v {
            Value::Object(o) => match o.field(field) {
                Some(Value::String(s)) => s,
                other => panic!("{field}: {other:?}"),
            },
            other => panic!("not a certificate: {other:?}"),
        };
        let ca = call("genCA", &[Value::from("bench-ca"), Value::Int(30)]);
        let leaf = call(
            "genSignedCert",
            &[
                Value::from("leaf.example"),
                Value::list(vec![]),
                Value::list(vec!["leaf.example".into()]),
                Value::Int(30),
                ca.clone(),
            ],
        );
        let (ca_pem, leaf_pem) = (pem(&ca, "Cert"), pem(&leaf, "Cert"));
        assert!(
            openssl_verifies(&ca_pem, &leaf_pem),
            "openssl rejects the chain:\n{ca_pem}\n{leaf_pem}"
        );
        // The check can fail: the leaf's signature with one bit flipped is refused.
        let (_, mut der) = pem_decode(&leaf_pem).unwrap();
        *der.last_mut().unwrap() ^= 1;
        let broken = pem_encode("CERTIFICATE", &der);
        assert!(
            !openssl_verifies(&ca_pem, &broken),
            "openssl accepted a broken signature"
        );
    }

    #[test]
    fn ca_signs_a_certificate_that_parses() {
        let ca = gen_ca(
            "ca",
            365,
            PrivKey::Ecdsa(p256::SecretKey::random(&mut rand::rngs::OsRng)),
        )
        .unwrap();
        let Value::Object(o) = &ca else { panic!() };
        let ca = certificate_arg(&Value::Object(o.clone())).unwrap();
        let a = [
            Value::str("leaf"),
            Value::list(vec!["10.0.0.1".into()]),
            Value::list(vec!["x.example".into()]),
            Value::Int(30),
        ];
        let leaf = gen_signed(
            &a,
            &ca,
            PrivKey::Ed25519(ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng)),
        )
        .unwrap();
        let Value::Object(l) = leaf else { panic!() };
        let Some(Value::String(pem)) = l.field("Cert") else {
            panic!()
        };
        let (_, der) = pem_decode(&pem).unwrap();
        parse_cert(&der).unwrap();
    }
}
