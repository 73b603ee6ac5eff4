//! AutoMTLS: the server's self-signed certificate, and a client verifier that accepts
//! exactly the certificate Terraform passed in `PLUGIN_CLIENT_CERT`.
//!
//! go-plugin's client certificate is self-signed with ECDSA P-521 and SHA-512, and it is a
//! CA certificate; webpki refuses a CA certificate as an end entity, so the verifier pins
//! the certificate instead: the presented certificate must be byte for byte the one in
//! the environment (parsed as an X.509 certificate at start), and the handshake signature
//! must verify with its key.
//!
//! The TLS stack is rustls with *ring*, which starts in no time (no entropy-pool seeding
//! at start) and builds from crates.io without a C toolchain's long build; ring verifies
//! P-256 and P-384 but not P-521, so the P-521/SHA-512 signature of go-plugin's client is
//! verified by the RustCrypto `p521` crate, plugged into webpki as one more algorithm.
//! The server's own key is P-256, which go-plugin's client accepts.

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{
    verify_tls12_signature, verify_tls13_signature, CryptoProvider, WebPkiSupportedAlgorithms,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{
    alg_id, AlgorithmIdentifier, CertificateDer, InvalidSignature, PrivateKeyDer,
    PrivatePkcs8KeyDer, SignatureVerificationAlgorithm, UnixTime,
};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, Error, ServerConfig, SignatureScheme};

/// ECDSA P-521 with SHA-512, as webpki sees a signature algorithm.
#[derive(Debug)]
struct EcdsaP521Sha512;

impl SignatureVerificationAlgorithm for EcdsaP521Sha512 {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        use p521::ecdsa::signature::Verifier;
        let key =
            p521::ecdsa::VerifyingKey::from_sec1_bytes(public_key).map_err(|_| InvalidSignature)?;
        let sig = p521::ecdsa::Signature::from_der(signature).map_err(|_| InvalidSignature)?;
        key.verify(message, &sig).map_err(|_| InvalidSignature)
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::ECDSA_P521
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        alg_id::ECDSA_SHA512
    }
}

static P521_SHA512: EcdsaP521Sha512 = EcdsaP521Sha512;

/// The P-521 scheme, for the handshake signatures ring cannot check.
static P521_ALGORITHMS: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[&P521_SHA512],
    mapping: &[(SignatureScheme::ECDSA_NISTP521_SHA512, &[&P521_SHA512])],
};

/// Accepts exactly one client certificate.
#[derive(Debug)]
pub(crate) struct PinnedClientCert {
    cert: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl PinnedClientCert {
    /// The algorithms that check a handshake signature of `scheme`.
    fn algorithms(&self, scheme: SignatureScheme) -> &WebPkiSupportedAlgorithms {
        if scheme == SignatureScheme::ECDSA_NISTP521_SHA512 {
            &P521_ALGORITHMS
        } else {
            &self.provider.signature_verification_algorithms
        }
    }
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, Error> {
        if intermediates.is_empty() && end_entity.as_ref() == self.cert.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            Err(Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls12_signature(message, cert, dss, self.algorithms(dss.scheme))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        verify_tls13_signature(message, cert, dss, self.algorithms(dss.scheme))
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        let mut schemes = vec![SignatureScheme::ECDSA_NISTP521_SHA512];
        schemes.extend(
            self.provider
                .signature_verification_algorithms
                .supported_schemes(),
        );
        schemes
    }
}

/// The one certificate of `PLUGIN_CLIENT_CERT`, checked to be an X.509 certificate.
fn client_certificate(pem: &str) -> Result<CertificateDer<'static>, String> {
    let mut certs = CertificateDer::pem_slice_iter(pem.as_bytes());
    let cert = match certs.next() {
        None => return Err("PLUGIN_CLIENT_CERT holds no PEM certificate".to_owned()),
        Some(Err(e)) => return Err(format!("PLUGIN_CLIENT_CERT is not a PEM certificate: {e}")),
        Some(Ok(c)) => c,
    };
    if certs.next().is_some() {
        return Err(
            "PLUGIN_CLIENT_CERT holds more than one certificate; go-plugin passes exactly one"
                .to_owned(),
        );
    }
    webpki::EndEntityCert::try_from(&cert).map_err(|e| {
        format!("PLUGIN_CLIENT_CERT holds a PEM block that is not a valid X.509 certificate ({e})")
    })?;
    Ok(cert)
}

/// The server certificate (DER) and the TLS configuration that requires the client
/// certificate in `client_pem`.
pub(crate) fn server_config(client_pem: &str) -> Result<(Vec<u8>, ServerConfig), String> {
    let cert = client_certificate(client_pem)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());

    // What go-plugin's client pins: a self-signed CA certificate for "localhost".
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
        .map_err(|e| format!("generating the server key: {e}"))?;
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .map_err(|e| format!("certificate parameters: {e}"))?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, "HashiCorp");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
        rcgen::KeyUsagePurpose::KeyAgreement,
        rcgen::KeyUsagePurpose::KeyCertSign,
    ];
    params.extended_key_usages = vec![
        rcgen::ExtendedKeyUsagePurpose::ServerAuth,
        rcgen::ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let now = std::time::SystemTime::now();
    params.not_before = (now - std::time::Duration::from_secs(30)).into();
    params.not_after = (now + std::time::Duration::from_secs(262_980 * 3600)).into();
    let server_cert = params
        .self_signed(&key)
        .map_err(|e| format!("signing the server certificate: {e}"))?;
    let der = server_cert.der().to_vec();

    let verifier = Arc::new(PinnedClientCert {
        cert,
        provider: provider.clone(),
    });
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS versions: {e}"))?
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![CertificateDer::from(der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(|e| format!("TLS configuration: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok((der, config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pem_block_with_garbage_inside_is_refused_at_start() {
        let garbage = "-----BEGIN CERTIFICATE-----\naGVsbG8gd29ybGQ=\n-----END CERTIFICATE-----\n";
        let e = server_config(garbage).unwrap_err();
        assert!(e.contains("not a valid X.509 certificate"), "{e}");
        let e = server_config("no pem here").unwrap_err();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        let e = server_config("-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n")
            .unwrap_err();
        assert!(e.contains("PLUGIN_CLIENT_CERT"), "{e}");
    }
}
